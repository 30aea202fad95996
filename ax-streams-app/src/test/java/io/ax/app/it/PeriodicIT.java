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
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cron task end to end on a real embedded broker: it fires repeatedly through the scheduler (exactly-once, RocksDB
 * timers) to a real worker, keeps firing after the scheduler is stopped and started again, and every second of its
 * grid is accounted for exactly once: dispatched, or SKIPPED (missed while it was down, or overlapping), with the
 * default misfire policy (the first missed occurrence runs late, the others are coalesced into it).
 */
@Tag("integration")
class PeriodicIT {
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

    private static JsonNode json(byte[] value) {
        try {
            return MAPPER.readTree(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<JsonNode> events(TopicRecorder state, String to) {
        return state.seen().stream().map(s -> json(s.record().value())).filter(e -> to.equals(e.path("to").asText())).toList();
    }

    private static long ms(JsonNode event, String field) {
        return Instant.parse(event.get(field).asText()).toEpochMilli();
    }

    @Test
    void shouldFireAnEverySecondCronTaskRepeatedlyAndAccountForEverySecondAcrossARestart(@TempDir Path stateDir)
            throws Exception {
        AxConfig config = new AxConfig(Map.of(
                AxConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                AxConfig.APPLICATION_ID_CONFIG, "it-periodic",
                AxConfig.TOPIC_PREFIX_CONFIG, "periodic.",
                AxConfig.TOPIC_PARTITIONS_CONFIG, 2,
                AxConfig.STATE_DIR_CONFIG, stateDir.toString()));
        AxTopics topics = config.topics();
        try (AxWorker worker = AxWorker.builder().bootstrapServers(broker.bootstrapServers()).topics(topics)
                     .groupId("periodic.workers").handler("tick", context -> Result.success()).build();
             AxClient client = AxClient.builder().bootstrapServers(broker.bootstrapServers()).topics(topics).build();
             TopicRecorder dispatch = new TopicRecorder(broker.bootstrapServers(), topics.dispatch(), CLOCK);
             TopicRecorder state = new TopicRecorder(broker.bootstrapServers(), topics.state(), CLOCK)) {
            worker.start();
            try (AxScheduler first = AxScheduler.start(config).awaitRunning(Duration.ofMinutes(2))) {
                client.schedule("ticker").jobType("tick").cron("* * * * * ?", "Europe/Berlin").submit().join();
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                        .until(() -> events(state, "SUCCESS").size() >= 3);
            }
            int beforeRestart = events(state, "SUCCESS").size();
            long stoppedAtMs = CLOCK.millis();
            // The scheduler stays down for 3.5 s of the task's grid (a condition on the clock, not a sleep for an outcome).
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
                    .until(() -> CLOCK.millis() >= stoppedAtMs + 3_500);
            try (AxScheduler second = AxScheduler.start(config).awaitRunning(Duration.ofMinutes(2))) {
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                        .until(() -> events(state, "SUCCESS").size() >= beforeRestart + 3);
                client.cancel("ticker", "done").join();
                await().atMost(Duration.ofSeconds(30)).until(() -> !events(state, "CANCELLED").isEmpty());
            }

            // Every dispatch: once per executionId, on the whole-second grid, never visible before its due time.
            Set<String> executionIds = new HashSet<>();
            TreeMap<Long, String> grid = new TreeMap<>();
            for (TopicRecorder.Seen seen : dispatch.seen()) {
                if (!"RUN".equals(new String(seen.record().headers().lastHeader(AxHeaders.KIND).value(), StandardCharsets.UTF_8))) {
                    continue;
                }
                DispatchTask task = WireCodec.decodeBinary(seen.record().value(), DispatchTask.class);
                assertThat(executionIds.add(task.getExecutionId())).as("one dispatch per execution").isTrue();
                assertThat(task.getDueAtMs() % 1000).as("on the cron's grid").isZero();
                assertThat(seen.seenAtMs()).as("never early").isGreaterThanOrEqualTo(task.getDueAtMs());
                assertThat(grid.put(task.getDueAtMs(), "dispatched")).isNull();
            }
            assertThat(executionIds.size()).isGreaterThanOrEqualTo(6);
            // Every SKIPPED event: its seconds, none of them dispatched too.
            List<String> reasons = new ArrayList<>();
            for (JsonNode skipped : events(state, "SKIPPED")) {
                long count = skipped.has("skipped") ? skipped.get("skipped").asLong() : 1;
                long firstMs = ms(skipped, "dueAt");
                long lastMs = count > 1 ? ms(skipped, "lastDueAt") : firstMs;
                assertThat(lastMs - firstMs).as("%s", skipped).isEqualTo((count - 1) * 1000);
                for (long t = firstMs; t <= lastMs; t += 1000) {
                    assertThat(grid.put(t, "skipped")).as("second %s accounted for once", Instant.ofEpochMilli(t)).isNull();
                }
                reasons.add(skipped.get("reason").asText());
            }
            assertThat(reasons).as("the occurrences missed while down: one ran late, the rest coalesced")
                    .anySatisfy(reason -> assertThat(reason).contains("coalesced", "FIRE_ONCE"));
            // No second between the first and the last is missing.
            long firstMs = grid.firstKey();
            long lastMs = grid.lastKey();
            assertThat(grid).as("every second from %s to %s, skipped: %s", Instant.ofEpochMilli(firstMs),
                    Instant.ofEpochMilli(lastMs), reasons).hasSize((int) ((lastMs - firstMs) / 1000 + 1));
            System.out.printf("RESULT periodic-it seconds=%d dispatched=%d skipped=%d reasons=%s%n", grid.size(),
                    executionIds.size(), grid.size() - executionIds.size(), reasons);
        }
    }

    @Test
    void shouldRunOverlappingOccurrencesSideBySideWithOverlapAllow(@TempDir Path stateDir) throws Exception {
        AxConfig config = new AxConfig(Map.of(
                AxConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                AxConfig.APPLICATION_ID_CONFIG, "it-periodic-allow",
                AxConfig.TOPIC_PREFIX_CONFIG, "allow.",
                AxConfig.TOPIC_PARTITIONS_CONFIG, 2,
                AxConfig.STATE_DIR_CONFIG, stateDir.toString()));
        AxTopics topics = config.topics();
        java.util.concurrent.atomic.AtomicInteger running = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger mostAtOnce = new java.util.concurrent.atomic.AtomicInteger();
        try (AxWorker worker = AxWorker.builder().bootstrapServers(broker.bootstrapServers()).topics(topics)
                     .groupId("allow.workers").handler("slow", 4, context -> {
                         mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
                         try {
                             Thread.sleep(2_500); // longer than the interval: each occurrence overlaps the one before
                         } finally {
                             running.decrementAndGet();
                         }
                         return Result.success();
                     }).build();
             AxClient client = AxClient.builder().bootstrapServers(broker.bootstrapServers()).topics(topics).build();
             TopicRecorder state = new TopicRecorder(broker.bootstrapServers(), topics.state(), CLOCK);
             AxScheduler scheduler = AxScheduler.start(config).awaitRunning(Duration.ofMinutes(2))) {
            worker.start();
            client.schedule("overlapping").jobType("slow").every(Duration.ofSeconds(1))
                    .overlap(io.ax.schema.OverlapPolicy.ALLOW).submit().join();
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                    .until(() -> events(state, "SUCCESS").size() >= 4);
            client.cancel("overlapping", "done").join();
            await().atMost(Duration.ofSeconds(30)).until(() -> !events(state, "CANCELLED").isEmpty());

            assertThat(mostAtOnce.get()).as("occurrences ran side by side").isGreaterThanOrEqualTo(2);
            List<String> succeeded = events(state, "SUCCESS").stream().map(e -> e.get("executionId").asText()).toList();
            assertThat(new HashSet<>(succeeded)).as("each its own execution").hasSameSizeAs(succeeded);
            assertThat(events(state, "IGNORED")).as("no report of an execution beside the current one is taken for stale")
                    .noneSatisfy(e -> assertThat(e.get("executionId").asText()).isIn(succeeded));
            assertThat(events(state, "TRIGGERED")).anySatisfy(e -> assertThat(e.path("reason").asText()).contains("overlap ALLOW"));
        }
    }
}
