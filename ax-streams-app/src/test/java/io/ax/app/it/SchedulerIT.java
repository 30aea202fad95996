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

    private static String header(TopicRecorder.Seen seen, String name) {
        return new String(seen.record().headers().lastHeader(name).value(), StandardCharsets.UTF_8);
    }
}
