package io.ax.app.internal.query;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.ax.AxTopics;
import io.ax.app.config.AxConfig;
import io.ax.app.config.HttpAddress;
import io.ax.app.internal.metrics.MetricsSettings;
import io.ax.app.internal.metrics.SchedulerMetrics;
import io.ax.app.internal.inputs.ConsumerPositions;
import io.ax.app.internal.topology.AxTopology;
import io.ax.validation.ScheduleLimits;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The HTTP API of a scheduler that is not running yet (a real {@link KafkaStreams}, never started): what a client gets
 * before the data can be read. Access rules without a token; 400 before 503; 503 with Retry-After, not a hang.
 */
class QueryServerTest {
    private final HttpClient http = HttpClient.newHttpClient();
    private KafkaStreams streams;
    private QueryServer server;
    /** A real producer that never gets to send: no POST passes the access check here. */
    private KafkaProducer<String, byte[]> producer;
    private int port;

    @BeforeEach
    void start() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        AxConfig config = new AxConfig(Map.of(AxConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:1",
                AxConfig.STATE_DIR_CONFIG, Files.createTempDirectory("ax-query").toString(),
                AxConfig.HTTP_LISTEN_CONFIG, Integer.toString(port)));
        streams = new KafkaStreams(AxTopology.build(config, 6, ConsumerPositions.SYNCHRONOUS), config.streamsProperties());
        HttpAddress address = config.httpListen().orElseThrow();
        producer = new KafkaProducer<>(Map.of("bootstrap.servers", "127.0.0.1:1"), new StringSerializer(), new ByteArraySerializer());
        server = QueryServer.start(streams, address, address, 6, Optional.empty(), producer, AxTopics.defaults(),
                ScheduleLimits.defaults(), new SchedulerMetrics(MetricsSettings.DEFAULTS));
    }

    @AfterEach
    void stop() {
        server.close();
        producer.close();
        streams.close();
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path) throws Exception {
        return send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)));
    }

    private static String error(HttpResponse<String> response) throws IOException {
        JsonNode body = TaskView.MAPPER.readTree(response.body());
        return body.get("error").asText();
    }

    @Test
    void shouldAnswer503WithRetryAfterUntilTheSchedulerRuns() throws Exception {
        for (String path : new String[] {"/tasks/t1", "/tasks", "/tasks?state=FAILED", "/executions/e1", "/stats", "/dead-letters"}) {
            HttpResponse<String> response = get(path);
            assertThat(response.statusCode()).as(path).isEqualTo(503);
            assertThat(response.headers().firstValue("Retry-After")).as(path).contains("1");
            assertThat(response.headers().firstValue("Content-Type")).as(path).hasValueSatisfying(t -> assertThat(t).startsWith("application/json"));
            assertThat(error(response)).as(path).contains("CREATED");
        }
        HttpResponse<String> health = get("/health");
        assertThat(health.statusCode()).isEqualTo(503);
        assertThat(TaskView.MAPPER.readTree(health.body()).get("state").asText()).isEqualTo("CREATED");
    }

    @Test
    void shouldAnswer400ForABadParameterEvenBeforeTheSchedulerRuns() throws Exception {
        HttpResponse<String> response = get("/tasks?limit=5000");
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(error(response)).isEqualTo("limit must be 1-1000: 5000");
    }

    @Test
    void shouldRefuseEveryPostWithoutAToken() throws Exception {
        HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/tasks"))
                .POST(HttpRequest.BodyPublishers.ofString("{\"taskId\":\"t1\",\"jobType\":\"j\",\"delayMs\":0}")));
        assertThat(response.statusCode()).isEqualTo(401);
        assertThat(response.headers().firstValue("WWW-Authenticate")).contains("Bearer");
        assertThat(error(response)).contains("ax.http.token");
    }

    @Test
    void shouldAnswerAnUnknownPathWithA404InTheErrorForm() throws Exception {
        HttpResponse<String> response = get("/no/such/endpoint");
        assertThat(response.statusCode()).isEqualTo(404);
        assertThat(error(response)).isEqualTo("no endpoint GET /no/such/endpoint");
    }

    @Test
    void shouldTakeATaskIdWithAnEncodedSlash() throws Exception {
        assertThat(get("/tasks/orders%2F42").statusCode()).as("routed to the task, not refused by the server").isEqualTo(503);
    }
}
