package io.ax.app.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.ax.AxHeaders;
import io.ax.AxTopics;
import io.ax.app.AxScheduler;
import io.ax.app.broker.EmbeddedKafkaBroker;
import io.ax.app.config.AxConfig;
import io.ax.client.AxClient;
import io.ax.schema.DependencyCondition;
import io.ax.worker.AxWorker;
import io.ax.worker.Result;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sharded task (topology-docs/WORKFLOWS.md) on a real embedded broker with a real worker: 16 slices, each run once
 * with its index in the job context and the header {@code ax-shard}, one of them failing once and retried on its own;
 * the task succeeds once, and a task waiting for it runs after it.
 */
@Tag("integration")
class ShardsIT {
    private static final Clock CLOCK = Clock.systemUTC();
    private static final int SHARDS = 16;

    private static String header(TopicRecorder.Seen seen, String name) {
        Header header = seen.record().headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    @Test
    void shouldRunSixteenSlicesEachOnceWithItsIndexAndSucceedTheTaskOnce(@TempDir Path stateDir) throws Exception {
        List<String> ran = new CopyOnWriteArrayList<>(); // "shard/count executionId attempt"
        List<String> order = new CopyOnWriteArrayList<>();
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults())) {
            String bootstrap = broker.bootstrapServers();
            AxConfig config = new AxConfig(Map.of(AxConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                    AxConfig.APPLICATION_ID_CONFIG, "it-shards", AxConfig.TOPIC_PARTITIONS_CONFIG, 3,
                    AxConfig.STATE_DIR_CONFIG, stateDir.toString()));
            AxTopics topics = config.topics();
            try (AxWorker worker = AxWorker.builder().bootstrapServers(bootstrap).groupId("shard-workers")
                         .handler("scan", context -> {
                             ran.add(context.shardIndex() + "/" + context.shardCount() + " " + context.executionId() + " "
                                     + context.attempt());
                             order.add(context.taskId());
                             // Slice 5 fails once: it alone is retried.
                             return context.shardIndex() == 5 && context.attempt() == 1 ? Result.retryable("slice 5 hiccup")
                                     : Result.success();
                         })
                         .handler("after-scan", context -> {
                             order.add(context.taskId());
                             return Result.success();
                         })
                         .build();
                 AxClient client = AxClient.builder().bootstrapServers(bootstrap).build();
                 TopicRecorder state = new TopicRecorder(bootstrap, topics.state(), CLOCK);
                 TopicRecorder dispatch = new TopicRecorder(bootstrap, topics.dispatch(), CLOCK);
                 AxScheduler scheduler = AxScheduler.start(config).awaitRunning(Duration.ofMinutes(2))) {
                worker.start();
                client.schedule("report").jobType("after-scan").after("scan", DependencyCondition.SUCCESS).submit().get();
                client.schedule("scan").jobType("scan").after(Duration.ZERO).shards(SHARDS).maxRetries(2)
                        .backoffIntervals(Duration.ofMillis(200)).submit().get();

                await().atMost(Duration.ofSeconds(60)).until(() -> state.json("report").stream()
                        .anyMatch(e -> e.get("to").asText().equals("SUCCESS")));

                List<String> firstAttempts = ran.stream().filter(r -> r.endsWith(" 1")).toList();
                assertThat(firstAttempts).as("each slice ran once at its first attempt").hasSize(SHARDS);
                assertThat(firstAttempts.stream().map(r -> r.substring(0, r.indexOf(' '))))
                        .containsExactlyInAnyOrderElementsOf(IntStream.range(0, SHARDS).mapToObj(i -> i + "/" + SHARDS).toList());
                Set<String> ids = new HashSet<>();
                firstAttempts.forEach(r -> ids.add(r.split(" ")[1]));
                assertThat(ids).as("each its own executionId").hasSize(SHARDS);
                assertThat(ran.stream().filter(r -> !r.endsWith(" 1"))).as("only slice 5 ran again")
                        .singleElement().satisfies(r -> assertThat(r).startsWith("5/16 ").endsWith(" 2"));

                List<TopicRecorder.Seen> runs = dispatch.seen().stream().filter(s -> "scan".equals(s.record().key())
                        && "RUN".equals(header(s, AxHeaders.KIND))).toList();
                assertThat(runs).hasSize(SHARDS + 1);
                assertThat(runs.stream().map(s -> header(s, AxHeaders.SHARD)).distinct())
                        .containsExactlyInAnyOrderElementsOf(IntStream.range(0, SHARDS).mapToObj(i -> i + "/" + SHARDS).toList());

                List<JsonNode> scan = state.json("scan");
                List<JsonNode> outcome = scan.stream().filter(e -> e.has("shards") && !e.has("shard") && e.has("from")).toList();
                assertThat(outcome).as("the task succeeded once").singleElement().satisfies(e -> {
                    assertThat(e.get("to").asText()).isEqualTo("SUCCESS");
                    assertThat(e.get("reason").asText()).isEqualTo("all 16 slices succeeded");
                });
                assertThat(scan.stream().filter(e -> e.get("to").asText().equals("SUCCESS") && e.has("shard")))
                        .hasSize(SHARDS);
                assertThat(scan.stream().filter(e -> e.get("to").asText().equals("RETRY_WAITING")))
                        .singleElement().satisfies(e -> assertThat(e.get("shard").asInt()).isEqualTo(5));
                assertThat(order.indexOf("report")).as("the dependent ran after every slice").isEqualTo(order.size() - 1);
                // A figure, printed, not asserted (a timed assertion on a busy box is a flaky test).
                long firstTriggeredMs = scan.stream().filter(e -> e.get("to").asText().equals("TRIGGERED"))
                        .mapToLong(e -> java.time.Instant.parse(e.get("at").asText()).toEpochMilli()).min().orElseThrow();
                long outcomeMs = java.time.Instant.parse(outcome.get(0).get("at").asText()).toEpochMilli();
                System.out.println("ShardsIT: 16 slices (one retried after 200 ms) from the first dispatch to the task's SUCCESS: "
                        + (outcomeMs - firstTriggeredMs) + " ms");
            }
        }
    }
}
