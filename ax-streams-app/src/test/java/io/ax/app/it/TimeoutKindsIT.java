package io.ax.app.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.ax.AxTopics;
import io.ax.app.AxScheduler;
import io.ax.app.broker.EmbeddedKafkaBroker;
import io.ax.app.config.AxConfig;
import io.ax.client.AxClient;
import io.ax.client.ScheduleBuilder;
import io.ax.worker.AxWorker;
import io.ax.worker.Result;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The timeout kinds end to end: a worker with concurrency 1 holds a second dispatch in its queue for longer than
 * {@code timeoutMs}; with a large schedule-to-start that one is not timed out before it starts, while the handler in
 * front of it, running past its start-to-close limit, is timed out with the start-to-close reason (and interrupted by
 * the cancel signal, which frees the lane).
 */
@Tag("integration")
class TimeoutKindsIT {
    private static final Clock CLOCK = Clock.systemUTC();
    private static final long TIMEOUT_MS = 1000;
    private static final long START_TO_CLOSE_MS = 3000;

    private static List<String> path(TopicRecorder state, String taskId) {
        return state.json(taskId).stream().map(e -> e.get("to").asText()).toList();
    }

    private static Instant at(TopicRecorder state, String taskId, String to) {
        return state.json(taskId).stream().filter(e -> e.get("to").asText().equals(to)).findFirst()
                .map(e -> Instant.parse(e.get("at").asText())).orElseThrow();
    }

    private static ScheduleBuilder withKinds(ScheduleBuilder schedule) {
        return schedule.jobType("slow").after(Duration.ZERO).maxRetries(0)
                .timeout(Duration.ofMillis(TIMEOUT_MS))
                .scheduleToStartTimeout(Duration.ofMinutes(1))
                .startToCloseTimeout(Duration.ofMillis(START_TO_CLOSE_MS));
    }

    @Test
    void shouldLeaveAQueuedDispatchAloneUntilItStartsAndTimeOutAHandlerPastStartToClose(@TempDir Path stateDir) throws Exception {
        CountDownLatch never = new CountDownLatch(1);
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults())) {
            String bootstrap = broker.bootstrapServers();
            AxConfig config = new AxConfig(Map.of(AxConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                    AxConfig.APPLICATION_ID_CONFIG, "it-timeout-kinds", AxConfig.TOPIC_PARTITIONS_CONFIG, 2,
                    AxConfig.STATE_DIR_CONFIG, stateDir.toString()));
            AxTopics topics = config.topics();
            try (AxScheduler scheduler = AxScheduler.start(config).awaitRunning(Duration.ofMinutes(2));
                 AxWorker worker = AxWorker.builder().bootstrapServers(bootstrap).groupId("timeout-kinds-workers")
                         .handler("slow", 1, context -> {
                             if (context.taskId().equals("stuck")) {
                                 never.await(); // runs until the cancel signal interrupts it
                             }
                             return Result.success();
                         })
                         .build();
                 AxClient client = AxClient.builder().bootstrapServers(bootstrap).build();
                 TopicRecorder state = new TopicRecorder(bootstrap, topics.state(), CLOCK)) {
                worker.start();
                withKinds(client.schedule("stuck")).submit().get();
                await().atMost(Duration.ofSeconds(30)).until(() -> path(state, "stuck").contains("RUNNING"));
                withKinds(client.schedule("queued")).submit().get();

                await().atMost(Duration.ofSeconds(30)).until(() -> path(state, "queued").contains("SUCCESS"));
                assertThat(path(state, "queued")).as("never timed out while it waited in the worker's queue")
                        .containsExactly("PENDING", "TRIGGERED", "RUNNING", "SUCCESS");
                Duration waited = Duration.between(at(state, "queued", "TRIGGERED"), at(state, "queued", "RUNNING"));
                assertThat(waited).as("it waited longer than timeoutMs would have allowed")
                        .isGreaterThan(Duration.ofMillis(TIMEOUT_MS));

                await().atMost(Duration.ofSeconds(30)).until(() -> path(state, "stuck").contains("FAILED"));
                assertThat(path(state, "stuck")).containsSubsequence("RUNNING", "TIMED_OUT", "FAILED");
                JsonNode timedOut = state.json("stuck").stream().filter(e -> e.get("to").asText().equals("TIMED_OUT"))
                        .findFirst().orElseThrow();
                assertThat(timedOut.get("reason").asText())
                        .isEqualTo("timed out: still running after startToCloseTimeoutMs 3000 ms since STARTED");
                assertThat(Duration.between(at(state, "stuck", "RUNNING"), at(state, "stuck", "TIMED_OUT")))
                        .isGreaterThanOrEqualTo(Duration.ofMillis(START_TO_CLOSE_MS));
                assertThat(at(state, "queued", "RUNNING")).as("the lane was freed by the timed-out handler's end")
                        .isAfterOrEqualTo(at(state, "stuck", "TIMED_OUT"));
            }
        }
    }
}
