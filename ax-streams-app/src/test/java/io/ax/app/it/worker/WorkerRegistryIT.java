package io.ax.app.it.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ax.AxTopics;
import io.ax.app.AxScheduler;
import io.ax.app.broker.EmbeddedKafkaBroker;
import io.ax.app.cli.Cli;
import io.ax.app.config.AxConfig;
import io.ax.client.AxClient;
import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The worker registry end to end on a real broker: {@code ./ax worker} (the SDK) in a child JVM announces itself every
 * 500 ms, {@code GET /workers} and {@code ./ax workers} list it with the execution it runs; killed with SIGKILL (no
 * goodbye), it is declared dead after 3 silent heartbeats, on {@code ax.state} naming that execution. A worker that
 * never announces (reports written by hand, as kcat or another language would) is listed from its reports.
 */
@Tag("integration")
class WorkerRegistryIT {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final String PREFIX = "wreg.";
    private static EmbeddedKafkaBroker broker;

    @BeforeAll
    static void start() throws Exception {
        broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults());
    }

    @AfterAll
    static void stop() {
        broker.close();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static AxConfig config(Path stateDir, int port) {
        Map<String, Object> props = new HashMap<>();
        props.put(AxConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        props.put(AxConfig.APPLICATION_ID_CONFIG, "it-workers");
        props.put(AxConfig.TOPIC_PREFIX_CONFIG, PREFIX);
        props.put(AxConfig.TOPIC_PARTITIONS_CONFIG, 2);
        props.put(AxConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(AxConfig.HTTP_LISTEN_CONFIG, Integer.toString(port));
        props.put(AxConfig.WORKERS_CHECK_MS_CONFIG, 100L);
        return new AxConfig(props);
    }

    /** {@code ./ax worker} in a JVM of its own, serving job type "hang" with a handler that sleeps ten minutes. */
    private static Process childWorker(String workerId, Path logDir) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder builder = new ProcessBuilder(java, "-XX:TieredStopAtLevel=1", "-Xmx256m",
                "-cp", System.getProperty("java.class.path"), "io.ax.app.cli.AxMain", "worker",
                "--bootstrap", broker.bootstrapServers(), "-D", AxConfig.TOPIC_PREFIX_CONFIG + "=" + PREFIX,
                "--group", PREFIX + "workers", "--worker-id", workerId, "--heartbeat", "500ms", "--only",
                "--handler", "hang=sleep:600000");
        File log = logDir.resolve(workerId + ".log").toFile();
        return builder.redirectErrorStream(true).redirectOutput(log).start();
    }

    private static JsonNode workers(int port) throws Exception {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/workers"))
                .GET().build(), HttpResponse.BodyHandlers.ofString());
        return response.statusCode() == 200 ? MAPPER.readTree(response.body()) : MAPPER.createObjectNode();
    }

    private static JsonNode get(int port, String path) throws Exception {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .GET().build(), HttpResponse.BodyHandlers.ofString());
        return response.statusCode() == 200 ? MAPPER.readTree(response.body()) : MAPPER.createObjectNode();
    }

    private static JsonNode worker(JsonNode listing, String workerId) {
        for (JsonNode worker : listing.path("workers")) {
            if (workerId.equals(worker.path("workerId").asText())) {
                return worker;
            }
        }
        return null;
    }

    @Test
    void shouldListAnAnnouncingWorkerAndDeclareItDeadThreeHeartbeatsAfterItWasKilled(@TempDir Path dir) throws Exception {
        int port = freePort();
        AxTopics topics = config(dir, port).topics();
        List<JsonNode> workerLines = new CopyOnWriteArrayList<>();
        try (AxScheduler scheduler = AxScheduler.start(config(dir, port)).awaitRunning(Duration.ofMinutes(2));
             AxClient client = AxClient.builder().bootstrapServers(broker.bootstrapServers()).topics(topics).build();
             StateReader state = new StateReader(topics.state(), workerLines)) {
            Process worker = childWorker("doomed", dir);
            try {
                client.schedule("long-job").jobType("hang").after(Duration.ZERO).submit().join();

                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> {
                    JsonNode listed = worker(workers(port), "doomed");
                    return listed != null && listed.path("inFlightCount").asInt() == 1;
                });
                JsonNode listed = worker(workers(port), "doomed");
                assertThat(listed.path("state").asText()).isEqualTo("ALIVE");
                assertThat(listed.path("heartbeatMs").asInt()).isEqualTo(500);
                assertThat(listed.path("jobTypes")).extracting(JsonNode::asText).containsExactly("hang");
                assertThat(listed.path("lanes").get(0).path("running").asInt()).isEqualTo(1);
                String executionId = listed.path("inFlight").get(0).path("executionId").asText();
                assertThat(listed.path("inFlight").get(0).path("taskId").asText()).isEqualTo("long-job");

                Cli.Run cli = Cli.run("workers", "--http", "127.0.0.1:" + port);
                assertThat(cli.exitCode()).as(cli.err()).isZero();
                assertThat(cli.out()).contains("doomed").contains("ALIVE").contains("hang 1/4").contains(executionId)
                        .contains("1 alive, 0 dead");

                // a worker that never announces (kcat, another language) is listed from the reports naming it
                client.schedule("by-hand").jobType("manual").after(Duration.ZERO).submit().join();
                await().atMost(Duration.ofSeconds(30)).until(() -> !get(port, "/tasks/by-hand").path("execution")
                        .path("executionId").asText().isEmpty());
                String handExecution = get(port, "/tasks/by-hand").path("execution").path("executionId").asText();
                try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()), new StringSerializer(), new StringSerializer())) {
                    producer.send(new ProducerRecord<>(topics.results(), "by-hand", "{\"executionId\":\"" + handExecution
                            + "\",\"attempt\":1,\"status\":\"STARTED\",\"workerId\":\"node-9\"}")).get();
                }
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                        .until(() -> worker(workers(port), "node-9") != null);
                JsonNode reporting = worker(workers(port), "node-9");
                assertThat(reporting.path("state").asText()).isEqualTo("REPORTING");
                assertThat(reporting.path("inFlight").get(0).path("executionId").asText()).isEqualTo(handExecution);
                assertThat(Cli.run("workers", "--http", "127.0.0.1:" + port).out()).contains("node-9")
                        .contains("1 known from their reports only");

                Instant killedAt = Instant.now();
                worker.destroyForcibly(); // SIGKILL: no goodbye
                worker.waitFor();

                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                        .until(() -> workerLines.stream().anyMatch(l -> "DEAD".equals(l.path("to").asText())));
                Duration toDead = Duration.between(killedAt, Instant.now());
                JsonNode dead = workerLines.stream().filter(l -> "DEAD".equals(l.path("to").asText())).findFirst().orElseThrow();
                assertThat(dead.path("worker").asText()).isEqualTo("doomed");
                assertThat(dead.path("inFlight").get(0).path("executionId").asText()).isEqualTo(executionId);
                assertThat(dead.path("inFlight").get(0).path("taskId").asText()).isEqualTo("long-job");
                assertThat(Duration.between(Instant.parse(dead.path("lastSeenAt").asText()), Instant.parse(dead.path("at").asText())))
                        .as("silent for 3 heartbeats of 500 ms before declared dead").isGreaterThanOrEqualTo(Duration.ofMillis(1_500));
                System.out.printf("RESULT worker-registry killed_to_dead_ms=%d%n", toDead.toMillis());

                JsonNode after = worker(workers(port), "doomed");
                assertThat(after.path("state").asText()).isEqualTo("DEAD");
                assertThat(after.has("deadAt")).isTrue();
                assertThat(scheduler.metrics().scrape()).contains("ax_workers_dead_total 1.0");
                assertThat(Cli.run("workers", "--http", "127.0.0.1:" + port).out()).contains("0 alive, 1 dead");
            } finally {
                worker.destroyForcibly();
            }
        }
    }

    /** Reads the state topic from its start, keeping the worker registry's lines. */
    private static final class StateReader implements AutoCloseable {
        private final KafkaConsumer<String, String> consumer;
        private final Thread thread;
        private volatile boolean running = true;

        StateReader(String topic, List<JsonNode> lines) {
            Map<String, Object> props = new HashMap<>();
            props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
            props.put(ConsumerConfig.GROUP_ID_CONFIG, "state-reader-" + java.util.UUID.randomUUID());
            props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            consumer = new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
            consumer.subscribe(List.of(topic));
            thread = new Thread(() -> {
                while (running) {
                    for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(100))) {
                        try {
                            JsonNode line = MAPPER.readTree(record.value());
                            if (line.has("worker")) {
                                lines.add(line);
                            }
                        } catch (IOException e) {
                            // not JSON: not the registry's
                        }
                    }
                }
                consumer.close();
            }, "state-reader");
            thread.start();
        }

        @Override
        public void close() throws InterruptedException {
            running = false;
            thread.join(5_000);
        }
    }
}
