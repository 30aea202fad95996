package io.ax.app.internal.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.ax.AxTopics;
import io.ax.app.config.AxConfig;
import io.ax.app.config.HttpAddress;
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
 * The web console's files on a server whose scheduler is not running yet and has a token: served without it, with a
 * policy that forbids inline script; only the listed files; the data behind them still asks for the token.
 */
class ConsoleEndpointsTest {
    private final HttpClient http = HttpClient.newHttpClient();
    private KafkaStreams streams;
    private QueryServer server;
    private KafkaProducer<String, byte[]> producer;
    private int port;

    @BeforeEach
    void start() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        AxConfig config = new AxConfig(Map.of(AxConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:1",
                AxConfig.STATE_DIR_CONFIG, Files.createTempDirectory("ax-console").toString(),
                AxConfig.HTTP_LISTEN_CONFIG, Integer.toString(port)));
        streams = new KafkaStreams(AxTopology.build(config, 6, ConsumerPositions.SYNCHRONOUS), config.streamsProperties());
        HttpAddress address = config.httpListen().orElseThrow();
        producer = new KafkaProducer<>(Map.of("bootstrap.servers", "127.0.0.1:1"), new StringSerializer(), new ByteArraySerializer());
        server = QueryServer.start(streams, address, address, 6, Optional.of("s3cret"), producer, AxTopics.defaults(),
                ScheduleLimits.defaults(), new SchedulerMetrics(MetricsSettings.DEFAULTS));
    }

    @AfterEach
    void stop() {
        server.close();
        producer.close();
        streams.close();
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void shouldServeThePageWithoutATokenUnderAPolicyWithoutInlineScript() throws Exception {
        HttpResponse<String> page = get("/");
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/html"));
        assertThat(page.headers().firstValue("Content-Security-Policy"))
                .hasValueSatisfying(p -> assertThat(p).contains("script-src 'self'", "connect-src 'self'").doesNotContain("unsafe-inline"));
        assertThat(page.body()).contains("console/console.js", "console/console.css");
        assertThat(get("/console/console.js").headers().firstValue("Content-Type"))
                .hasValueSatisfying(t -> assertThat(t).startsWith("text/javascript"));
        assertThat(get("/console/console.css").statusCode()).isEqualTo(200);
    }

    @Test
    void shouldServeOnlyTheConsolesOwnFiles() throws Exception {
        HttpResponse<String> missing = get("/console/QueryServer.class");
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(missing.body()).contains("no console file");
        assertThat(get("/console/..%2F..%2Flogback.xml").statusCode()).isEqualTo(404);
    }

    @Test
    void shouldStillAskForTheTokenForTheData() throws Exception {
        assertThat(get("/stats").statusCode()).isEqualTo(401);
        assertThat(get("/tasks/t1").statusCode()).isEqualTo(401);
    }
}
