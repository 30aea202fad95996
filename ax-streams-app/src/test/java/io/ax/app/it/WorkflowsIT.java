package io.ax.app.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.ax.AxTopics;
import io.ax.app.AxScheduler;
import io.ax.app.broker.EmbeddedKafkaBroker;
import io.ax.app.config.AxConfig;
import io.ax.app.internal.topology.KeyPartition;
import io.ax.client.AxClient;
import io.ax.schema.DependencyCondition;
import io.ax.worker.AxWorker;
import io.ax.worker.Result;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tasks that wait for other tasks (topology-docs/WORKFLOWS.md) on a real embedded broker with a real worker, over
 * three partitions, so most dependencies cross partitions through ax.deps: a chain, a fan-in of 100, and a wait that
 * outlives a restart of the scheduler.
 */
@Tag("integration")
class WorkflowsIT {
    private static final Clock CLOCK = Clock.systemUTC();
    private static final int PARTITIONS = 3;

    private static List<String> path(TopicRecorder state, String taskId) {
        return state.json(taskId).stream().map(e -> e.get("to").asText()).toList();
    }

    private static AxConfig config(String bootstrap, Path stateDir) {
        return new AxConfig(Map.of(AxConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, AxConfig.APPLICATION_ID_CONFIG, "it-workflows",
                AxConfig.TOPIC_PARTITIONS_CONFIG, PARTITIONS, AxConfig.STATE_DIR_CONFIG, stateDir.toString()));
    }

    @Test
    void shouldRunAChainAFanInOf100AndAWaitAcrossARestart(@TempDir Path stateDir) throws Exception {
        List<String> ran = new CopyOnWriteArrayList<>();
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults())) {
            String bootstrap = broker.bootstrapServers();
            AxConfig config = config(bootstrap, stateDir);
            AxTopics topics = config.topics();
            try (AxWorker worker = AxWorker.builder().bootstrapServers(bootstrap).groupId("workflow-workers")
                         .handler("step", context -> {
                             ran.add(context.taskId());
                             return Result.success();
                         })
                         .build();
                 AxClient client = AxClient.builder().bootstrapServers(bootstrap).build();
                 TopicRecorder state = new TopicRecorder(bootstrap, topics.state(), CLOCK)) {
                worker.start();
                try (AxScheduler scheduler = AxScheduler.start(config).awaitRunning(Duration.ofMinutes(2))) {
                    // A chain c after b after a, scheduled backwards: each waits for a task not known yet.
                    client.schedule("chain-c").jobType("step").after("chain-b", DependencyCondition.SUCCESS).submit().get();
                    client.schedule("chain-b").jobType("step").after("chain-a", DependencyCondition.SUCCESS).submit().get();
                    client.schedule("chain-a").jobType("step").after(Duration.ZERO).submit().get();

                    // A fan-in of 100 into one, the 100 spread over every partition.
                    List<String> ups = IntStream.range(0, 100).mapToObj(i -> "fan-" + i).toList();
                    assertThat(ups.stream().map(u -> KeyPartition.of(u, PARTITIONS)).distinct()).hasSize(PARTITIONS);
                    var join = client.schedule("fan-join").jobType("step");
                    ups.forEach(u -> join.after(u, DependencyCondition.SUCCESS));
                    join.submit().get();
                    for (String up : ups) {
                        client.schedule(up).jobType("step").after(Duration.ofMillis(500)).submit();
                    }

                    await().atMost(Duration.ofSeconds(60)).until(() -> path(state, "chain-c").contains("SUCCESS")
                            && path(state, "fan-join").contains("SUCCESS"));
                    assertThat(path(state, "chain-c")).startsWith("WAITING").containsSubsequence("WAITING", "PENDING", "TRIGGERED", "SUCCESS");
                    assertThat(ran).containsSubsequence("chain-a", "chain-b", "chain-c");
                    assertThat(ran.indexOf("fan-join")).as("the join ran after every one of the 100")
                            .isGreaterThan(ups.stream().mapToInt(ran::indexOf).max().orElseThrow());
                    assertThat(ran.stream().filter("fan-join"::equals)).as("once").hasSize(1);
                    List<String> joinPath = path(state, "fan-join");
                    assertThat(joinPath.stream().filter("WAITING"::equals)).as("created, then 99 conditions met").hasSize(100);
                    assertThat(joinPath).containsSubsequence("PENDING", "TRIGGERED", "SUCCESS");

                    // A wait that outlives the scheduler: the dependency fires while no scheduler runs.
                    client.schedule("late").jobType("step").after("gate", DependencyCondition.SUCCESS).submit().get();
                    client.schedule("gate").jobType("step").after(Duration.ofSeconds(3)).submit().get();
                    await().atMost(Duration.ofSeconds(30)).until(() -> path(state, "gate").contains("PENDING")
                            && path(state, "late").contains("WAITING"));
                }
                try (AxScheduler restarted = AxScheduler.start(config).awaitRunning(Duration.ofMinutes(2))) {
                    await().atMost(Duration.ofSeconds(60)).until(() -> path(state, "late").contains("SUCCESS"));
                    assertThat(path(state, "late")).startsWith("WAITING").containsSubsequence("WAITING", "PENDING", "TRIGGERED", "SUCCESS");
                    assertThat(ran.stream().filter("late"::equals)).hasSize(1);
                }
            }
        }
    }
}
