package io.ax.app.internal.query;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.ax.AxTopics;
import io.ax.app.config.AxConfig;
import io.ax.app.config.HttpAddress;
import io.ax.app.fuzz.HostileHttpWalk;
import io.ax.app.internal.metrics.MetricsSettings;
import io.ax.app.internal.metrics.SchedulerMetrics;
import io.ax.app.internal.timer.ConsumerPositions;
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
        assertThat(error(response)).isEqualTo("limit must be 1-1000: \"5000\"");
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

    /** A second server on a free port, with a token (so POSTs reach their body) and the given bounds. */
    private QueryServer serverWithToken(HttpLimits limits) throws IOException {
        int tokenPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            tokenPort = socket.getLocalPort();
        }
        HttpAddress address = io.ax.app.config.HttpAddress.parse(Integer.toString(tokenPort));
        return QueryServer.start(streams, address, address, 6, Optional.of("t"), producer, AxTopics.defaults(),
                ScheduleLimits.defaults(), new SchedulerMetrics(MetricsSettings.DEFAULTS), limits);
    }

    private HttpResponse<String> call(int serverPort, String method, String path, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + serverPort + path))
                .timeout(java.time.Duration.ofSeconds(10)).header("Authorization", "Bearer t");
        request.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void shouldAnswerEveryEndpointWithHostileValuesWithoutA5xxOrAHang() throws Exception {
        io.ax.app.internal.topology.LogCapture logs = io.ax.app.internal.topology.LogCapture.root();
        HostileHttpWalk walk;
        try (QueryServer withToken = serverWithToken(HttpLimits.DEFAULTS)) {
            walk = HostileHttpWalk.of(withToken.port(), "t").accepting5xx(QueryServerTest::notRunning).walk();
        } finally {
            logs.stop();
        }
        System.out.println("Hostile HTTP walk, instance not running: " + walk.asked() + " requests, slowest " + walk.slowest());
        assertThat(walk.broken()).as(walk.asked() + " hostile requests: no 5xx but the 503 of an instance not running yet").isEmpty();
        assertThat(logs.events()).as("no ERROR from client input").noneMatch(e -> e.getLevel() == ch.qos.logback.classic.Level.ERROR);
        assertThat(logs.longest()).as("log lines stay short").isLessThan(4_000);
    }

    /** The 503 of an instance not running yet (in the API's error form). */
    private static boolean notRunning(int status, String body) {
        return status == 503 && (body.contains("CREATED") || body.contains("\"state\"") || body.contains("has not been started"));
    }

    @Test
    void shouldKeepHealthAnsweringWhileFortyConnectionsHoldAnAbsentBody() throws Exception {
        io.ax.app.internal.topology.LogCapture logs = io.ax.app.internal.topology.LogCapture.root();
        HttpLimits limits = new HttpLimits(393_216, 1_500, 256, 32, 16);
        java.util.List<java.net.Socket> held = new java.util.ArrayList<>();
        long worstHealthMs = 0;
        try (QueryServer withToken = serverWithToken(limits)) {
            for (int i = 0; i < 40; i++) {
                java.net.Socket socket = new java.net.Socket("127.0.0.1", withToken.port());
                held.add(socket);
                // Half declare a body far over the bound, half a small one; none is sent.
                String length = i % 2 == 0 ? "99999999999" : "100";
                socket.getOutputStream().write(("POST /tasks/t" + i + "/cancel HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\n"
                        + "Content-Type: application/json\r\nContent-Length: " + length + "\r\n\r\n")
                        .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                socket.getOutputStream().flush();
            }
            java.net.Socket declaredHuge = held.get(0);
            declaredHuge.setSoTimeout(2_000);
            String status = new java.io.BufferedReader(new java.io.InputStreamReader(declaredHuge.getInputStream(),
                    java.nio.charset.StandardCharsets.US_ASCII)).readLine();
            assertThat(status).as("refused from its Content-Length at once").startsWith("HTTP/1.1 413");
            for (int i = 0; i < 10; i++) {
                long startNs = System.nanoTime();
                HttpResponse<String> health = call(withToken.port(), "GET", "/internal/health", null);
                long tookMs = (System.nanoTime() - startNs) / 1_000_000;
                worstHealthMs = Math.max(worstHealthMs, tookMs);
                assertThat(health.body()).as("the health answer").contains("\"state\"");
                assertThat(tookMs).as("health answers while 40 connections hold their body").isLessThan(2_000);
            }
            HttpResponse<String> data = call(withToken.port(), "GET", "/tasks", null);
            assertThat(data.statusCode()).as("data endpoints answer (503 at once while saturated or not running), no hang")
                    .isIn(400, 503);
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(20)).untilAsserted(() -> assertThat(
                    logs.lines().stream().filter(line -> line.contains("HTTP request abandoned")).count()).isEqualTo(1));
            System.out.println("Health with 40 held connections: worst of 10 calls " + worstHealthMs + " ms");
        } finally {
            for (java.net.Socket socket : held) {
                socket.close();
            }
            logs.stop();
        }
        assertThat(logs.events()).as("abandoned requests: one WARN line, no ERROR")
                .noneMatch(e -> e.getLevel() == ch.qos.logback.classic.Level.ERROR);
    }
}
