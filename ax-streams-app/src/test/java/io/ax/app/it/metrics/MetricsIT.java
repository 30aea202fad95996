package io.ax.app.it.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.ax.AxTopics;
import io.ax.app.cli.AxMain;
import io.ax.app.AxScheduler;
import io.ax.app.broker.EmbeddedKafkaBroker;
import io.ax.app.config.AxConfig;
import io.ax.app.deploy.PrometheusServer;
import io.ax.app.internal.metrics.Scrape;
import io.ax.client.AxClient;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /metrics} of a running scheduler and of {@code ./ax worker} (a child JVM) on a real embedded broker: the
 * figures follow what the tasks did, every metric topology-docs/METRICS.md lists is served and every metric served is
 * listed there, and both endpoints want the token.
 */
@Tag("integration")
class MetricsIT {
    static final String TOKEN = "metrics-s3cret";
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final Path METRICS_DOC = Path.of("..", "topology-docs", "METRICS.md");

    static EmbeddedKafkaBroker broker;
    static AxScheduler scheduler;
    static Process worker;
    static int schedulerPort;
    static int workerPort;
    static AxTopics topics;
    static final List<String> scrapes = new ArrayList<>();

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    static HttpResponse<String> get(int port, String path, String token) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(10));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        try {
            return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A scrape of {@code port}, kept for the contract check. */
    static Scrape scrape(int port) {
        HttpResponse<String> response = get(port, "/metrics", TOKEN);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain");
        synchronized (scrapes) {
            scrapes.add(response.body());
        }
        return new Scrape(response.body());
    }

    static boolean answers(int port) {
        try {
            return get(port, "/health", TOKEN).statusCode() == 200;
        } catch (UncheckedIOException e) {
            return false;
        }
    }

    @BeforeAll
    static void start(@TempDir Path dir) throws Exception {
        broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults());
        schedulerPort = freePort();
        workerPort = freePort();
        Map<String, Object> props = new HashMap<>();
        props.put(AxConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        props.put(AxConfig.APPLICATION_ID_CONFIG, "it-metrics");
        props.put(AxConfig.TOPIC_PREFIX_CONFIG, "m.");
        props.put(AxConfig.TOPIC_PARTITIONS_CONFIG, 2);
        props.put(AxConfig.STATE_DIR_CONFIG, dir.resolve("state").toString());
        props.put(AxConfig.HTTP_LISTEN_CONFIG, Integer.toString(schedulerPort));
        props.put(AxConfig.HTTP_TOKEN_CONFIG, TOKEN);
        props.put(AxConfig.METRICS_REFRESH_MS_CONFIG, 100L);
        props.put(AxConfig.METRICS_LONG_RUNNING_MS_CONFIG, 1_000L);
        props.put(AxConfig.METRICS_LATE_FIRE_MS_CONFIG, 500L); // the burst below fires up to ~1.5 s late
        props.put(AxConfig.FIRE_BATCH_MAX_CONFIG, 1); // a burst becomes a backlog the gauges can see
        AxConfig config = new AxConfig(props);
        topics = config.topics();
        scheduler = AxScheduler.start(config).awaitRunning(Duration.ofMinutes(2));
        worker = axWorker(dir, "--handler", "flaky=fail", "--handler", "broken=fail", "--handler", "slow=sleep:4000",
                "--concurrency", "8");
        await().atMost(Duration.ofMinutes(1)).until(() -> answers(workerPort));
    }

    /** {@code ./ax worker} as a child JVM on the test's class path, on the test topics, metrics on {@link #workerPort}. */
    static Process axWorker(Path dir, String... extra) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-XX:TieredStopAtLevel=1", "-Xmx256m", "-cp",
                System.getProperty("java.class.path"), AxMain.class.getName(), "worker", "--bootstrap", broker.bootstrapServers(),
                "-D", "ax.topic.prefix=m.", "--group", "it-metrics-workers", "--worker-id", "metrics-worker",
                "--http", "127.0.0.1:" + workerPort, "--http-token", TOKEN));
        command.addAll(List.of(extra));
        File log = Files.createDirectories(dir.resolve("logs")).resolve("worker.log").toFile();
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log).start();
    }

    @AfterAll
    static void stop() {
        if (worker != null) {
            worker.destroyForcibly();
        }
        if (scheduler != null) {
            scheduler.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void shouldShowWhatTheTasksDidOnBothEndpointsAndServeExactlyTheDocumentedMetrics() throws Exception {
        Scrape before = scrape(schedulerPort); // the other tests' tasks count too: compare with what was there
        try (AxClient client = AxClient.builder().bootstrapServers(broker.bootstrapServers()).topics(topics).build()) {
            // Flow control: at most 2 flaky executions in flight, so some of the 5 below wait (ax_flow_*).
            client.setLimit("type:flaky", io.ax.FlowLimit.none().withMaxInFlight(2)).join();
            await().atMost(Duration.ofSeconds(30)).until(() -> scheduler.limits().containsKey("type:flaky"));
            List<CompletableFuture<?>> acks = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                acks.add(client.schedule("mail-" + i).jobType("email").after(Duration.ZERO).owner("growth").submit());
                acks.add(client.schedule("flaky-" + i).jobType("flaky").after(Duration.ZERO).maxRetries(0).owner("billing").submit());
            }
            // No worker serves "orphan": both attempts time out (one retry), then it is dead-lettered.
            acks.add(client.schedule("orphan-0").jobType("orphan").after(Duration.ZERO).timeout(Duration.ofSeconds(1))
                    .maxRetries(1).backoff(Duration.ofMillis(100)).submit());
            CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).join();
            client.schedule("mail-0").jobType("email").after(Duration.ofHours(1)).submit().join(); // a duplicate: IGNORED
            // One fire per tick and partition: 300 tasks due at once (after they are all in) are a backlog for ~1.5 s.
            List<CompletableFuture<?>> burst = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                burst.add(client.schedule("burst-" + i).jobType("email").after(Duration.ofSeconds(5)).owner("batch").submit());
            }
            CompletableFuture.allOf(burst.toArray(CompletableFuture[]::new)).join();
        }
        try (KafkaProducer<String, byte[]> raw = new KafkaProducer<>(Map.of("bootstrap.servers", broker.bootstrapServers()),
                new StringSerializer(), new ByteArraySerializer())) {
            raw.send(new ProducerRecord<>(topics.requests(), "typo", "{\"jobType\":\"email\",\"delayMS\":1}"
                    .getBytes(StandardCharsets.UTF_8))).get(); // REJECTED
        }

        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50)).until(() -> {
            Scrape s = scrape(schedulerPort);
            return s.value("ax_tasks_overdue") >= 10 && s.find("ax_oldest_overdue_seconds").stream()
                    .anyMatch(o -> o.labels().get("task_id").startsWith("burst-"));
        });
        Scrape duringBacklog = new Scrape(scrapes.get(scrapes.size() - 1));
        assertThat(duringBacklog.find("ax_oldest_overdue_seconds")).filteredOn(o -> o.labels().get("task_id").startsWith("burst-"))
                .allSatisfy(o -> assertThat(o.labels()).containsEntry("owner", "batch").containsKey("execution_id"));
        // A handler that runs 4 s is in flight past the 1 s threshold from 1 s after it fires until it ends.
        try (AxClient client = AxClient.builder().bootstrapServers(broker.bootstrapServers()).topics(topics).build()) {
            client.schedule("slow-0").jobType("slow").after(Duration.ZERO).owner("ops").submit().get();
        }
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> !scrape(schedulerPort).find("ax_long_running_execution_seconds", "task_id", "slow-0").isEmpty());

        await().atMost(Duration.ofSeconds(90)).until(() -> {
            Scrape s = scrape(schedulerPort);
            return s.value("ax_executions_succeeded_total", "job_type", "email") == 305
                    && s.value("ax_executions_failed_total", "job_type", "flaky") == 5
                    && s.value("ax_executions_succeeded_total", "job_type", "slow") == 1
                    && s.value("ax_dead_letters_total", "job_type", "orphan") == 1
                    && s.value("ax_tasks_overdue") == 0 && s.value("ax_executions_in_flight") == 0 // gauges: next refresh
;
        });
        Scrape s = scrape(schedulerPort);
        assertThat(s.value("ax_fired_total") - before.value("ax_fired_total")).isEqualTo(313);
        assertThat(s.value("ax_requests_accepted_total", "input", "schedule")
                - before.value("ax_requests_accepted_total", "input", "schedule")).isEqualTo(312);
        assertThat(s.value("ax_inputs_ignored_total", "input", "schedule", "reason", "duplicate")
                - before.value("ax_inputs_ignored_total", "input", "schedule", "reason", "duplicate")).isEqualTo(1);
        assertThat(s.value("ax_requests_rejected_total", "input", "request") - before.value("ax_requests_rejected_total", "input", "request"))
                .as("not decodable as a request").isEqualTo(1);
        assertThat(s.value("ax_dead_letters_total", "job_type", "flaky")).isEqualTo(5);
        assertThat(s.value("ax_timeouts_total", "job_type", "orphan", "kind", "timeout")).isEqualTo(2);
        assertThat(s.value("ax_retries_total", "job_type", "orphan")).isEqualTo(1);
        assertThat(s.value("ax_executions_failed_total", "job_type", "orphan")).isEqualTo(2);
        assertThat(s.value("ax_executions_succeeded_total", "job_type", "slow")).isEqualTo(1);
        assertThat(s.value("ax_fire_lateness_seconds_count") - before.value("ax_fire_lateness_seconds_count")).isEqualTo(313);
        assertThat(s.value("ax_streams_state", "state", "RUNNING")).isEqualTo(1);
        assertThat(s.value("ax_stream_threads_alive")).isGreaterThanOrEqualTo(1);
        assertThat(s.find("ax_last_failure_timestamp_seconds", "job_type", "flaky")).singleElement()
                .satisfies(failure -> assertThat(failure.labels()).containsEntry("owner", "billing"));

        await().atMost(Duration.ofSeconds(30)).until(() -> {
            Scrape w = scrape(workerPort);
            return w.value("ax_worker_handler_duration_seconds_count", "job_type", "email", "outcome", "success") == 305
                    && w.value("ax_worker_handler_duration_seconds_count", "job_type", "flaky", "outcome", "failure") == 5;
        });
        Scrape w = scrape(workerPort);
        assertThat(w.value("ax_worker_handler_duration_seconds_sum", "job_type", "slow", "outcome", "success")).isGreaterThanOrEqualTo(4);
        assertThat(w.value("ax_worker_redeliveries_skipped_total", "job_type", "email")).isZero();
        assertThat(w.value("ax_worker_executions_running")).isZero();

        Set<String> documented = documentedMetrics();
        Set<String> served = new TreeSet<>();
        synchronized (scrapes) {
            scrapes.forEach(text -> new Scrape(text).samples().forEach(sample -> served.add(family(sample.name()))));
        }
        served.removeIf(name -> !name.startsWith("ax_"));
        assertThat(served).as("every metric served is documented in METRICS.md").isSubsetOf(documented);
        assertThat(documented).as("every metric METRICS.md lists is served").isSubsetOf(served);
    }

    /**
     * The shipped alert rules (their {@code for:} set to 0 s, so the test need not wait minutes) in the real
     * Prometheus, scraping this scheduler and worker: a job type whose every attempt fails fires AxJobFailureRateHigh,
     * naming a failed execution and its owner.
     */
    @Test
    void shouldFireTheFailureRateAlertInARealPrometheus(@TempDir Path dir) throws Exception {
        assumeTrue(PrometheusServer.binary().isPresent(), PrometheusServer.MISSING);
        Path rules = PrometheusServer.withoutForDurations(PrometheusServer.shippedRules(), dir);
        try (PrometheusServer prometheus = PrometheusServer.builder()
                .scrape(PrometheusServer.SCHEDULER_JOB, List.of("127.0.0.1:" + schedulerPort), TOKEN)
                .scrape(PrometheusServer.WORKER_JOB, List.of("127.0.0.1:" + workerPort), TOKEN)
                .rules(rules).start();
             AxClient client = AxClient.builder().bootstrapServers(broker.bootstrapServers()).topics(topics).build()) {
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                    .until(() -> prometheus.samples("up == 1").size() == 2);
            client.schedule("broken-0").jobType("broken").after(Duration.ZERO).maxRetries(0).owner("billing").submit().get();
            // A rate needs the counter seen before it grows: wait for Prometheus to have the series, then fail more.
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                    .until(() -> !prometheus.samples("ax_executions_failed_total{job_type=\"broken\"}").isEmpty());
            for (int i = 1; i <= 4; i++) {
                client.schedule("broken-" + i).jobType("broken").after(Duration.ZERO).maxRetries(0).owner("billing").submit().get();
            }
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500))
                    .until(() -> !prometheus.alerts("AxJobFailureRateHigh", "firing").isEmpty());
            assertThat(prometheus.alerts("AxJobFailureRateHigh", "firing")).singleElement().satisfies(alert -> {
                assertThat(alert.labels()).containsEntry("job_type", "broken").containsEntry("owner", "billing");
                assertThat(alert.labels().get("task_id")).startsWith("broken-");
                assertThat(alert.labels().get("execution_id")).isNotBlank();
                assertThat(alert.annotations().values()).anySatisfy(text -> assertThat(text).contains(alert.labels().get("execution_id")));
            });
            assertThat(prometheus.alerts("AxSchedulerDown", "firing")).isEmpty();
        }
    }

    @Test
    void shouldRefuseAScrapeWithoutTheToken() {
        assertThat(get(schedulerPort, "/metrics", null).statusCode()).isEqualTo(401);
        assertThat(get(workerPort, "/metrics", null).statusCode()).isEqualTo(401);
        assertThat(get(workerPort, "/metrics", "wrong").statusCode()).isEqualTo(401);
        assertThat(get(workerPort, "/health", TOKEN).body()).contains("\"status\":\"UP\"").contains("metrics-worker");
    }

    /** The metric names in METRICS.md's tables (first column). */
    static Set<String> documentedMetrics() throws IOException {
        Set<String> names = new TreeSet<>();
        Matcher m = Pattern.compile("(?m)^\\| `(ax_[a-z_]+)` \\|").matcher(Files.readString(METRICS_DOC));
        while (m.find()) {
            names.add(m.group(1));
        }
        assertThat(names).hasSizeGreaterThan(20);
        return names;
    }

    /** A sample's metric family: a histogram's buckets, count, sum and max are its own. */
    private static String family(String sample) {
        for (String suffix : List.of("_bucket", "_count", "_sum", "_max")) {
            if (sample.endsWith(suffix) && sample.startsWith("ax_") && sample.contains("_seconds")) {
                return sample.substring(0, sample.length() - suffix.length());
            }
        }
        return sample;
    }
}
