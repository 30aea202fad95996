package io.ax.app.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.ax.AxTopics;
import io.ax.app.AxScheduler;
import io.ax.app.broker.EmbeddedKafkaBroker;
import io.ax.app.config.AxConfig;
import io.ax.client.AxClient;
import io.ax.schema.DependencyCondition;
import io.ax.worker.AxWorker;
import io.ax.worker.Result;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two cron tasks on a real embedded broker with a real worker, over three partitions (topology-docs/WORKFLOWS.md,
 * "Periodic tasks that wait"): A on every even second, B on every odd second after A (SUCCESS). A fails one of its
 * occurrences; B's occurrence of that period is SKIPPED, naming it; B runs in every other period.
 */
@Tag("integration")
class PeriodicDependenciesIT {
    private static final Clock CLOCK = Clock.systemUTC();
    /** A's occurrence that fails: its third (the first may be cut short by the start). */
    private static final int FAILING_RUN = 3;

    private static List<JsonNode> to(TopicRecorder state, String taskId, String to) {
        return state.json(taskId).stream().filter(e -> to.equals(e.get("to").asText())).toList();
    }

    private static long dueAt(JsonNode event) {
        return Instant.parse(event.get("dueAt").asText()).toEpochMilli();
    }

    @Test
    void shouldSkipTheDependentsOccurrenceOfThePeriodItsUpstreamFailedAndRunTheOthers(@TempDir Path stateDir) throws Exception {
        AtomicInteger aRuns = new AtomicInteger();
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults())) {
            String bootstrap = broker.bootstrapServers();
            AxConfig config = new AxConfig(Map.of(AxConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                    AxConfig.APPLICATION_ID_CONFIG, "it-periodic-deps", AxConfig.TOPIC_PARTITIONS_CONFIG, 3,
                    AxConfig.STATE_DIR_CONFIG, stateDir.toString()));
            AxTopics topics = config.topics();
            try (AxWorker worker = AxWorker.builder().bootstrapServers(bootstrap).groupId("periodic-deps-workers")
                         .handler("export", context -> aRuns.incrementAndGet() == FAILING_RUN
                                 ? Result.fatal("export failed (run " + FAILING_RUN + ")") : Result.success())
                         .handler("report", context -> Result.success())
                         .build();
                 AxClient client = AxClient.builder().bootstrapServers(bootstrap).build();
                 TopicRecorder state = new TopicRecorder(bootstrap, topics.state(), CLOCK);
                 AxScheduler scheduler = AxScheduler.start(config).awaitRunning(Duration.ofMinutes(2))) {
                worker.start();
                long startedMs = System.currentTimeMillis();
                client.schedule("export").jobType("export").cron("0/2 * * * * ?", ZoneId.of("UTC")).maxRetries(0).submit().get();
                client.schedule("report").jobType("report").cron("1/2 * * * * ?", ZoneId.of("UTC")).maxRetries(0)
                        .after("export", DependencyCondition.SUCCESS).submit().get();

                await().atMost(Duration.ofSeconds(30)).until(() -> !to(state, "export", "FAILED").isEmpty()
                        && to(state, "report", "SUCCESS").size() >= 4
                        && to(state, "report", "SUCCESS").stream().anyMatch(s -> dueAt(s) > dueAt(to(state, "export", "FAILED").get(0))));

                System.out.println("PeriodicDependenciesIT: from the first request to the report's run after the failed period: "
                        + (System.currentTimeMillis() - startedMs) + " ms");
                long failedAt = dueAt(to(state, "export", "FAILED").get(0));
                List<JsonNode> skipped = to(state, "report", "SKIPPED");
                assertThat(skipped).as("report's occurrence of the failed period").anySatisfy(s -> {
                    assertThat(dueAt(s)).isEqualTo(failedAt + 1_000);
                    assertThat(s.get("reason").asText()).startsWith("dependency not met in its period (")
                            .contains("export FAILED (due " + Instant.ofEpochMilli(failedAt) + ")");
                });
                assertThat(skipped).as("no other occurrence skipped for a failure")
                        .allSatisfy(s -> assertThat(dueAt(s) == failedAt + 1_000 || !s.get("reason").asText().contains("FAILED")).isTrue());
                List<Long> succeeded = to(state, "report", "SUCCESS").stream().map(e -> dueAt(e)).toList();
                assertThat(succeeded).as("report runs in the periods before and after").anyMatch(t -> t < failedAt)
                        .anyMatch(t -> t > failedAt).doesNotContain(failedAt + 1_000);
            }
        }
    }
}
