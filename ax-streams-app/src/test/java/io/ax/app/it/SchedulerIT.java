package io.ax.app.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ax.AxHeaders;
import io.ax.AxTopics;
import io.ax.app.AxScheduler;
import io.ax.app.broker.EmbeddedKafkaBroker;
import io.ax.app.config.AxConfig;
import io.ax.client.AxClient;
import io.ax.codec.WireCodec;
import io.ax.schema.DispatchTask;
import io.ax.worker.AxWorker;
import io.ax.worker.Result;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The main path end to end against a real embedded Kafka broker: client → scheduler (exactly-once, RocksDB)
 * → dispatch → a real worker → results → SUCCESS on the state topic.
 */
@Tag("integration")
class SchedulerIT {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Clock CLOCK = Clock.systemUTC();
    private static EmbeddedKafkaBroker broker;

    @BeforeAll
    static void startBroker() {
        broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults());
    }

    @AfterAll
    static void stopBroker() {
        broker.close();
    }

    private static AxConfig config(String name, Path stateDir) {
        return new AxConfig(Map.of(
                AxConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                AxConfig.APPLICATION_ID_CONFIG, "it-" + name,
                AxConfig.TOPIC_PREFIX_CONFIG, name + ".",
                AxConfig.TOPIC_PARTITIONS_CONFIG, 3,
                AxConfig.STATE_DIR_CONFIG, stateDir.toString()));
    }

    private static AxWorker worker(AxTopics topics) {
        AxWorker worker = AxWorker.builder().bootstrapServers(broker.bootstrapServers()).topics(topics)
                .groupId(topics.prefix() + "workers").concurrency(8)
                .handler("noop", context -> Result.success()).build();
        worker.start();
        return worker;
    }

    /** Submits n one-shot tasks due evenly over [firstDue, firstDue + spread); returns taskId → due ms. */
    private static Map<String, Long> submit(AxClient client, int n, Instant firstDue, Duration spread) {
        Map<String, Long> due = new HashMap<>();
        List<CompletableFuture<?>> acks = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Instant at = firstDue.plusMillis(spread.toMillis() * i / n);
            String taskId = "task-" + i;
            due.put(taskId, at.toEpochMilli());
            acks.add(client.schedule(taskId).jobType("noop").at(at).submit());
        }
        CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).join();
        return due;
    }

    /**
     * Runs one task through the whole loop first, so the measurement starts with every client joined and the
     * first transactions behind us: this test is about firing on time, not about start-up.
     */
    private static void awaitPipelineLive(AxClient client, TopicRecorder state) {
        client.schedule("warm-up").jobType("noop").after(Duration.ZERO).submit().join();
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50)).until(() -> successes(state) == 1);
    }

    private static JsonNode json(byte[] value) {
        try {
            return MAPPER.readTree(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static java.util.Set<String> succeeded(TopicRecorder state) {
        return state.seen().stream().map(s -> json(s.record().value())).filter(e -> "SUCCESS".equals(e.path("to").asText()))
                .map(e -> e.get("taskId").asText()).collect(Collectors.toSet());
    }

    private static long successes(TopicRecorder state) {
        return state.seen().stream().map(s -> json(s.record().value()))
                .filter(e -> "SUCCESS".equals(e.path("to").asText())).map(e -> e.get("taskId").asText()).distinct().count();
    }

    @Test
    void shouldDispatchEachOfAThousandTasksOnceOnTimeAndRunItToSuccess(@TempDir Path stateDir) throws Exception {
        AxConfig config = config("it-a", stateDir);
        AxTopics topics = config.topics();
        try (AxScheduler scheduler = AxScheduler.start(config).awaitRunning(Duration.ofMinutes(2));
             AxWorker worker = worker(topics);
             AxClient client = AxClient.builder().bootstrapServers(broker.bootstrapServers()).topics(topics).build();
             TopicRecorder dispatch = new TopicRecorder(broker.bootstrapServers(), topics.dispatch(), CLOCK);
             TopicRecorder state = new TopicRecorder(broker.bootstrapServers(), topics.state(), CLOCK)) {
            awaitPipelineLive(client, state);
            Map<String, Long> due = submit(client, 1000, CLOCK.instant().plusSeconds(2), Duration.ofSeconds(5));

            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                    .until(() -> successes(state) == 1001);

            List<TopicRecorder.Seen> dispatched = dispatch.seen().stream().filter(s -> due.containsKey(s.record().key())).toList();
            Map<String, Long> perTask = dispatched.stream()
                    .collect(Collectors.groupingBy(s -> s.record().key(), Collectors.counting()));
            assertThat(perTask).hasSize(1000).allSatisfy((taskId, count) -> assertThat(count).as(taskId).isEqualTo(1));
            List<Long> lateness = new ArrayList<>();
            List<Long> fireLateness = new ArrayList<>();
            for (TopicRecorder.Seen seen : dispatched) {
                DispatchTask task = WireCodec.decodeBinary(seen.record().value(), DispatchTask.class);
                long dueAtMs = due.get(seen.record().key());
                assertThat(task.getDueAtMs()).isEqualTo(dueAtMs);
                assertThat(header(seen, AxHeaders.DUE_AT)).isEqualTo(Long.toString(dueAtMs));
                assertThat(task.getFiredAtMs()).as("fired not before due").isGreaterThanOrEqualTo(dueAtMs);
                assertThat(seen.seenAtMs()).as("visible not before due").isGreaterThanOrEqualTo(dueAtMs);
                lateness.add(seen.seenAtMs() - dueAtMs);
                fireLateness.add(task.getFiredAtMs() - dueAtMs);
            }
            // Lateness is a figure, printed, not asserted: on a busy 2-core box it is whatever the box allows (it was 1.1 s
            // once with a benchmark beside the suite); the benchmarks measure it. What is asserted is never early, once each.
            lateness.sort(null);
            fireLateness.sort(null);
            System.out.printf("RESULT it-a n=1000 visible_lateness_ms p50=%d p99=%d max=%d fire_lateness_ms p50=%d p99=%d max=%d%n",
                    lateness.get(499), lateness.get(989), lateness.get(999),
                    fireLateness.get(499), fireLateness.get(989), fireLateness.get(999));
        }
    }

    /**
     * A fire is visible to a read_committed worker when its transaction commits. A scheduler keeping up with its inputs
     * commits right after a punctuation that fired, not at the commit interval: here ten minutes, so without that the
     * dispatches would stay invisible (or be aborted by the transaction timeout) long after the test gives up.
     */
    @Test
    void shouldCommitAFireAtOnceWhenTheSchedulerIsKeepingUp(@TempDir Path stateDir) throws Exception {
        Map<String, Object> settings = new HashMap<>(config("it-early", stateDir).originals());
        settings.put(AxConfig.STREAMS_PREFIX + "commit.interval.ms", 600_000);
        settings.put(AxConfig.STREAMS_PREFIX + "producer.transaction.timeout.ms", 900_000); // Streams wants it above the interval
        AxConfig config = new AxConfig(settings);
        AxTopics topics = config.topics();
        try (AxScheduler scheduler = AxScheduler.start(config).awaitRunning(Duration.ofMinutes(2));
             AxClient client = AxClient.builder().bootstrapServers(broker.bootstrapServers()).topics(topics).build();
             TopicRecorder dispatch = new TopicRecorder(broker.bootstrapServers(), topics.dispatch(), CLOCK)) {
            Map<String, Long> due = submit(client, 3, CLOCK.instant().plusSeconds(1), Duration.ofSeconds(3));

            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20)).until(() -> dispatch.seen().size() == 3);
            for (TopicRecorder.Seen seen : dispatch.seen()) {
                long dueAtMs = due.get(seen.record().key());
                assertThat(seen.seenAtMs()).as("visible not before due").isGreaterThanOrEqualTo(dueAtMs);
                System.out.printf("RESULT it-early %s visible_lateness_ms=%d%n", seen.record().key(), seen.seenAtMs() - dueAtMs);
            }
        }
    }

    @Test
    void shouldLoseAndDuplicateNothingWhenTheSchedulerRestartsHalfway(@TempDir Path stateDir) throws Exception {
        AxConfig config = config("it-b", stateDir);
        AxTopics topics = config.topics();
        try (AxWorker worker = worker(topics);
             AxClient client = AxClient.builder().bootstrapServers(broker.bootstrapServers()).topics(topics).build();
             TopicRecorder dispatch = new TopicRecorder(broker.bootstrapServers(), topics.dispatch(), CLOCK);
             TopicRecorder state = new TopicRecorder(broker.bootstrapServers(), topics.state(), CLOCK)) {
            Map<String, Long> due;
            try (AxScheduler first = AxScheduler.start(config).awaitRunning(Duration.ofMinutes(2))) {
                due = submit(client, 1000, CLOCK.instant().plusSeconds(2), Duration.ofSeconds(6));
                await().atMost(Duration.ofSeconds(30)).until(() -> dispatch.seen().size() >= 300);
            }
            int beforeRestart = dispatch.seen().size();
            assertThat(beforeRestart).as("the restart comes half-way").isLessThan(1000);
            try (AxScheduler second = AxScheduler.start(config).awaitRunning(Duration.ofMinutes(2))) {
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                        .until(() -> successes(state) == 1000);
                Map<String, Long> perTask = dispatch.seen().stream()
                        .collect(Collectors.groupingBy(s -> s.record().key(), Collectors.counting()));
                assertThat(perTask.keySet()).containsExactlyInAnyOrderElementsOf(due.keySet());
                assertThat(perTask).allSatisfy((taskId, count) -> assertThat(count).as(taskId).isEqualTo(1));
                for (TopicRecorder.Seen seen : dispatch.seen()) {
                    assertThat(seen.seenAtMs()).isGreaterThanOrEqualTo(due.get(seen.record().key()));
                }
            }
        }
    }

    /**
     * The timer index is derived from the task store and not changelogged: an instance that takes the partitions over
     * with no local state (another machine, a wiped disk) restores the tasks and derives every timer from them. Before
     * the stop: occurrences due after it, a periodic task, and executions dispatched to no worker (their timeout timers
     * armed). After it, on a fresh state directory: every occurrence fires once, at or after its due time; every silent
     * execution times out and is retried; the periodic task keeps its grid.
     */
    @Test
    void shouldRebuildEveryTimerFromTheTasksOnAnInstanceWithNoLocalState(@TempDir Path firstDir, @TempDir Path secondDir)
            throws Exception {
        AxConfig firstConfig = config("it-c", firstDir);
        AxTopics topics = firstConfig.topics();
        try (AxClient client = AxClient.builder().bootstrapServers(broker.bootstrapServers()).topics(topics).build();
             TopicRecorder dispatch = new TopicRecorder(broker.bootstrapServers(), topics.dispatch(), CLOCK);
             TopicRecorder state = new TopicRecorder(broker.bootstrapServers(), topics.state(), CLOCK)) {
            Map<String, Long> later;
            Instant periodicStart = CLOCK.instant().plusSeconds(3);
            try (AxScheduler first = AxScheduler.start(firstConfig).awaitRunning(Duration.ofMinutes(2))) {
                List<CompletableFuture<?>> acks = new ArrayList<>();
                for (int i = 0; i < 20; i++) { // fired now, to no worker: each waits for its timeout
                    acks.add(client.schedule("silent-" + i).jobType("noop").after(Duration.ZERO).timeout(Duration.ofSeconds(8))
                            .maxRetries(1).backoff(Duration.ofMillis(100)).submit());
                }
                // Side by side and every occurrence caught up, so all 8 run however long the handover and the worker take.
                acks.add(client.schedule("periodic").jobType("noop").every(Duration.ofSeconds(2), periodicStart).maxOccurrences(8)
                        .overlap(io.ax.schema.OverlapPolicy.ALLOW).misfire(io.ax.schema.MisfirePolicy.FIRE_ALL).submit());
                CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).join();
                later = submit(client, 200, CLOCK.instant().plusSeconds(20), Duration.ofSeconds(4));
                await().atMost(Duration.ofSeconds(30)).until(() -> dispatch.seen().stream()
                        .filter(s -> s.record().key().startsWith("silent-")).count() == 20);
            }
            assertThat(dispatch.seen()).as("the later tasks are not due before the stop")
                    .noneMatch(s -> s.record().key().startsWith("task-"));
            try (AxScheduler second = AxScheduler.start(config("it-c", secondDir)).awaitRunning(Duration.ofMinutes(2))) {
                // No worker yet: each silent execution must time out here, from a timeout timer derived from its task.
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> state.seen().stream()
                        .map(s -> json(s.record().value())).filter(e -> "TIMED_OUT".equals(e.path("to").asText()))
                        .map(e -> e.get("taskId").asText()).distinct().count() == 20);
                try (AxWorker worker = worker(topics)) {
                    java.util.Set<String> expected = new java.util.HashSet<>(later.keySet());
                    for (int i = 0; i < 20; i++) {
                        expected.add("silent-" + i);
                    }
                    await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200))
                            .untilAsserted(() -> assertThat(succeeded(state)).as("tasks that reached SUCCESS").containsAll(expected));
                    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                            .until(() -> dispatch.seen().stream().filter(s -> s.record().key().equals("periodic")).count() == 8);
                }
                Map<String, List<TopicRecorder.Seen>> perTask = dispatch.seen().stream()
                        .collect(Collectors.groupingBy(s -> s.record().key()));
                for (String taskId : later.keySet()) {
                    assertThat(perTask.get(taskId)).as(taskId).hasSize(1);
                    assertThat(header(perTask.get(taskId).get(0), AxHeaders.KIND)).isEqualTo("RUN");
                    assertThat(perTask.get(taskId).get(0).seenAtMs()).as(taskId).isGreaterThanOrEqualTo(later.get(taskId));
                }
                for (int i = 0; i < 20; i++) {
                    assertThat(perTask.get("silent-" + i)).as("silent-%d: attempt 1, timed out, then attempt 2", i)
                            .filteredOn(seen -> header(seen, AxHeaders.KIND).equals("RUN")).hasSize(2);
                }
                assertThat(perTask.get("periodic").stream()
                        .map(s -> WireCodec.decodeBinary(s.record().value(), DispatchTask.class).getDueAtMs()).distinct().count())
                        .as("each of the 8 occurrences once").isEqualTo(8);
            }
        }
    }

    private static String header(TopicRecorder.Seen seen, String name) {
        return new String(seen.record().headers().lastHeader(name).value(), StandardCharsets.UTF_8);
    }
}
