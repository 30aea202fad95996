package io.ax.app.demo;

import io.ax.AxTopics;
import io.ax.app.AxScheduler;
import io.ax.app.broker.EmbeddedKafkaBroker;
import io.ax.app.config.AxConfig;
import io.ax.client.AxClient;
import io.ax.worker.AxWorker;
import io.ax.worker.Result;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * ax end to end in one process: a real embedded Kafka broker, the scheduler, a worker and a client. It
 * schedules a handful of tasks (one-shot, fixed interval, one that succeeds on its third attempt, one no worker
 * serves so it times out, one whose handler fails for good, one cancelled, a duplicate and a malformed
 * request) and prints every state change from {@code ax.state} as it happens.
 */
public final class Demo {
    private final PrintStream out;
    private final Clock clock;
    private final Duration length;

    public Demo(PrintStream out, Clock clock, Duration length) {
        this.out = out;
        this.clock = clock;
        this.length = length;
    }

    /** Runs the demo; returns each task's latest state as seen on {@code ax.state}. */
    public Map<String, String> run() throws Exception {
        out.println("ax demo: starting a real Kafka broker (KRaft, in this process)...");
        Path stateDir = Files.createTempDirectory("ax-demo-state");
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults())) {
            String bootstrap = broker.bootstrapServers();
            AxTopics topics = AxTopics.defaults();
            out.println("  broker ready at " + bootstrap);
            try (AxScheduler scheduler = AxScheduler.start(new AxConfig(Map.of(
                        AxConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                        AxConfig.APPLICATION_ID_CONFIG, "ax-demo",
                        AxConfig.TOPIC_PARTITIONS_CONFIG, 3,
                        AxConfig.STATE_DIR_CONFIG, stateDir.toString()))).awaitRunning(Duration.ofMinutes(2));
                 AxWorker worker = demoWorker(bootstrap);
                 AxClient client = AxClient.builder().bootstrapServers(bootstrap).clock(clock).build()) {
                worker.start();
                out.println("  scheduler running (exactly-once, topics " + String.join(", ", topics.all()) + ")");
                out.println("  worker '" + worker.workerId() + "' handles job types: email, sync, payment, report");
                long startMs = clock.millis();
                try (StateWatcher watcher = new StateWatcher(bootstrap, topics.state(), out, startMs)) {
                    watcher.start();
                    out.println();
                    out.println("Scheduling: welcome-email in 2s; inventory-sync every 1.5s; charge-card in 1s (fails twice,"
                            + " then succeeds on retry); legacy-export in 2s (no worker serves it: it times out after 1.5s,"
                            + " retries once, then fails); nightly-report in 3s (its handler fails for good); reminder in 6s"
                            + " (cancelled at 4s); a duplicate and a malformed request.");
                    out.println("State changes on " + topics.state() + " (what `kcat -C -t " + topics.state() + "` shows), seconds"
                            + " from now:");
                    scheduleDemoTasks(client, bootstrap, topics);
                    awaitMs(4000 - (clock.millis() - startMs));
                    client.cancel("reminder", "customer unsubscribed").get();
                    awaitMs(length.toMillis() - (clock.millis() - startMs));
                    client.cancel("inventory-sync", "demo over").get();
                    awaitMs(1500);
                    Map<String, String> latest = new TreeMap<>(watcher.latestStates());
                    out.println();
                    out.println("Final states: " + latest);
                    return latest;
                }
            }
        } finally {
            deleteQuietly(stateDir);
        }
    }

    private static AxWorker demoWorker(String bootstrap) {
        return AxWorker.builder().bootstrapServers(bootstrap).groupId("ax-demo-workers").workerId("demo-worker")
                .handler("email", context -> Result.success())
                .handler("sync", context -> Result.success())
                .handler("payment", context -> context.attempt() < 3 ? Result.retryable("card processor busy") : Result.success())
                .handler("report", context -> Result.fatal("report database unreachable"))
                .build();
    }

    private void scheduleDemoTasks(AxClient client, String bootstrap, AxTopics topics) throws Exception {
        client.schedule("welcome-email").jobType("email").after(Duration.ofSeconds(2))
                .payload("{\"to\":\"ada@example.com\"}").submit().get();
        client.schedule("welcome-email").jobType("email").after(Duration.ofSeconds(2)).submit().get();
        client.schedule("inventory-sync").jobType("sync").every(Duration.ofMillis(1500)).priority(7).submit().get();
        client.schedule("nightly-report").jobType("report").after(Duration.ofSeconds(3)).submit().get();
        client.schedule("charge-card").jobType("payment").after(Duration.ofSeconds(1)).maxRetries(3)
                .backoff(Duration.ofMillis(500)).submit().get();
        client.schedule("legacy-export").jobType("export").after(Duration.ofSeconds(2)).timeout(Duration.ofMillis(1500))
                .maxRetries(1).backoff(Duration.ofMillis(500)).submit().get();
        client.schedule("reminder").jobType("email").after(Duration.ofSeconds(6)).submit().get();
        // What a typo from a shell looks like: rejected on ax.state, nothing else disturbed.
        try (KafkaProducer<String, byte[]> raw = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
                new StringSerializer(), new ByteArraySerializer())) {
            raw.send(new ProducerRecord<>(topics.requests(), "typo-task",
                    "{\"jobType\":\"email\",\"delayMS\":1000}".getBytes(StandardCharsets.UTF_8))).get();
        }
    }

    private static void awaitMs(long ms) throws InterruptedException {
        if (ms > 0) {
            Thread.sleep(ms);
        }
    }

    private static void deleteQuietly(Path dir) {
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (java.io.IOException e) {
            // a temp dir; the OS cleans it eventually
        }
    }
}
