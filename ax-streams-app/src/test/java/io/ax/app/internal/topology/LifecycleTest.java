package io.ax.app.internal.topology;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.ax.AxHeaders;
import io.ax.app.config.AxConfig;
import io.ax.app.internal.topology.SchedulerHarness.Dispatched;
import io.ax.schema.DeadLetter;
import io.ax.schema.RetryRecord;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The rows of the state machine beyond the first run: retries, timeouts, dead letters, cancel, replay, retention. */
class LifecycleTest {

    private static String report(Dispatched d, String status, String extra) {
        return "{\"executionId\":\"" + d.executionId() + "\",\"attempt\":" + d.task().getAttempt() + ",\"status\":\""
                + status + "\"" + extra + "}";
    }

    private static Dispatched fire(SchedulerHarness ax, String taskId, String json) {
        ax.request(taskId, json);
        ax.advanceMs(10);
        ax.discardEvents();
        return ax.dispatches().get(0);
    }

    @Test
    void shouldRetryARetryableFailureWithTheSameExecutionIdAfterItsBackoff() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            Dispatched first = fire(ax, "t1", "{\"jobType\":\"j\",\"delayMs\":0,\"maxRetries\":2,\"backoffMs\":1000,\"jitter\":false}");
            ax.report("t1", report(first, "FAILED", ",\"message\":\"smtp down\""));
            List<JsonNode> events = ax.events();
            assertThat(events).extracting(e -> e.get("from").asText() + "->" + e.get("to").asText())
                    .containsExactly("TRIGGERED->RETRY_WAITING");
            assertThat(events.get(0).get("reason").asText()).startsWith("retry 1 of 2 at ").contains("(backoff 1000 ms): smtp down");
            RetryRecord retry = ax.retries().get(0);
            assertThat(retry.getAttempt()).isEqualTo(2);
            assertThat(retry.getNextAttemptAtMs()).isEqualTo(ax.nowMs() + 1000);

            ax.advanceMs(990);
            assertThat(ax.dispatches()).isEmpty();
            ax.advanceMs(10);
            Dispatched second = ax.dispatches().get(0);
            assertThat(second.executionId()).isEqualTo(first.executionId());
            assertThat(second.header(AxHeaders.ATTEMPT)).isEqualTo("2");
            assertThat(second.task().getDueAtMs()).as("a retry is due at its retry time").isEqualTo(retry.getNextAttemptAtMs());
            assertThat(ax.events()).singleElement().satisfies(e -> {
                assertThat(e.get("from").asText() + "->" + e.get("to").asText()).isEqualTo("RETRY_WAITING->TRIGGERED");
                assertThat(e.get("reason").asText()).isEqualTo("retry 1 of 2");
            });
            ax.report("t1", report(second, "SUCCEEDED", ""));
            assertThat(ax.transitions()).containsExactly("SUCCESS");
        }
    }

    @Test
    void shouldHandTheLatestProgressCheckpointToTheNextAttempt() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            Dispatched first = fire(ax, "t1", "{\"jobType\":\"j\",\"delayMs\":0,\"backoffMs\":100,\"jitter\":false}");
            assertThat(first.task().getProgress()).isNull();
            ax.report("t1", report(first, "HEARTBEAT", ",\"progress\":\"row 500\""));
            ax.report("t1", report(first, "HEARTBEAT", ",\"progress\":\"row 900\""));
            ax.report("t1", report(first, "FAILED", ""));
            ax.advanceMs(100);
            Dispatched second = ax.dispatches().get(0);
            assertThat(second.task().getAttempt()).isEqualTo(2);
            assertThat(second.task().getProgress()).isEqualTo("row 900");
            ax.report("t1", report(second, "HEARTBEAT", ",\"progress\":\"" + "x".repeat(4097) + "\""));
            assertThat(ax.events()).last().satisfies(e -> {
                assertThat(e.get("to").asText()).isEqualTo("REJECTED");
                assertThat(e.get("reason").asText()).startsWith("progress is longer than 4096 chars: \"xxx").contains("(4097 chars, sha-256 ");
            });
        }
    }

    @Test
    void shouldDoubleTheBackoffAndDeadLetterWithTheWholeHistoryWhenRetriesRunOut() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            Dispatched d = fire(ax, "t1", "{\"jobType\":\"j\",\"delayMs\":0,\"maxRetries\":2,\"backoffMs\":100,\"jitter\":false}");
            long[] expectedBackoffs = {100, 200};
            for (long backoffMs : expectedBackoffs) {
                ax.report("t1", report(d, "FAILED", ",\"message\":\"boom " + d.task().getAttempt() + "\""));
                assertThat(ax.retries()).singleElement().satisfies(r -> assertThat(r.getBackoffMs()).isEqualTo(backoffMs));
                ax.advanceMs(backoffMs);
                d = ax.dispatches().get(0);
            }
            ax.discardEvents();
            ax.report("t1", report(d, "FAILED", ",\"message\":\"boom 3\""));
            assertThat(ax.events()).singleElement().satisfies(e -> {
                assertThat(e.get("to").asText()).isEqualTo("FAILED");
                assertThat(e.get("reason").asText()).isEqualTo("retries exhausted after 3 attempt(s): boom 3");
            });
            DeadLetter letter = ax.deadLetters().get(0);
            assertThat(letter.getDispatch().getExecutionId()).isEqualTo(d.executionId());
            assertThat(letter.getDispatch().getAttempt()).isEqualTo(3);
            assertThat(letter.getErrors()).extracting(e -> e.getAttempt() + ":" + e.getMessage())
                    .containsExactly("1:boom 1", "2:boom 2", "3:boom 3");
            assertThat(ax.retries()).isEmpty();
        }
    }

    @Test
    void shouldDeadLetterANonRetryableFailureAtOnce() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            Dispatched d = fire(ax, "t1", "{\"jobType\":\"j\",\"delayMs\":0,\"maxRetries\":5}");
            ax.report("t1", report(d, "FAILED", ",\"retryable\":false,\"message\":\"bad address\",\"workerId\":\"w1\""));
            assertThat(ax.events()).singleElement().satisfies(e ->
                    assertThat(e.get("reason").asText()).isEqualTo("non-retryable failure: bad address (worker w1)"));
            assertThat(ax.deadLetters()).singleElement().satisfies(l -> assertThat(l.getReason()).isEqualTo("non-retryable failure: bad address"));
        }
    }

    @Test
    void shouldTimeOutASilentExecutionAndRetryIt() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            Dispatched d = fire(ax, "t1", "{\"jobType\":\"j\",\"delayMs\":0,\"timeoutMs\":1000,\"backoffMs\":500,\"jitter\":false}");
            ax.advanceMs(990);
            assertThat(ax.events()).isEmpty();
            ax.advanceMs(10);
            List<JsonNode> events = ax.events();
            assertThat(events).extracting(e -> e.get("from").asText() + "->" + e.get("to").asText())
                    .containsExactly("TRIGGERED->TIMED_OUT", "TIMED_OUT->RETRY_WAITING");
            assertThat(events.get(0).get("reason").asText()).isEqualTo("timed out: no report or heartbeat for 1000 ms");
            assertThat(ax.dispatches()).singleElement().satisfies(c -> {
                assertThat(c.header(AxHeaders.KIND)).isEqualTo("CANCEL");
                assertThat(c.executionId()).isEqualTo(d.executionId());
            });
            ax.advanceMs(500);
            assertThat(ax.dispatches()).singleElement().satisfies(r -> assertThat(r.task().getAttempt()).isEqualTo(2));
            // the first attempt's worker wakes up late: its report is stale
            ax.report("t1", report(d, "SUCCEEDED", ""));
            assertThat(ax.events()).last().satisfies(e -> {
                assertThat(e.get("to").asText()).isEqualTo("IGNORED");
                assertThat(e.get("reason").asText()).contains("stale attempt 1 (current attempt 2)");
            });
        }
    }

    @Test
    void shouldExtendTheTimeoutWithEachHeartbeat() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            Dispatched d = fire(ax, "t1", "{\"jobType\":\"j\",\"delayMs\":0,\"timeoutMs\":1000,\"maxRetries\":0}");
            ax.report("t1", report(d, "STARTED", ""));
            for (int i = 0; i < 5; i++) {
                ax.advanceMs(800);
                ax.report("t1", report(d, "HEARTBEAT", ""));
            }
            assertThat(ax.transitions()).containsExactly("RUNNING");
            ax.advanceMs(990);
            assertThat(ax.events()).isEmpty();
            ax.advanceMs(20);
            assertThat(ax.transitions()).containsExactly("TIMED_OUT", "FAILED");
            assertThat(ax.deadLetters()).singleElement().satisfies(l -> assertThat(l.getErrors().get(0).getTimedOut()).isTrue());
        }
    }

    @Test
    void shouldRetryAFailureReportedWhileRunning() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            Dispatched d = fire(ax, "t1", "{\"jobType\":\"j\",\"delayMs\":0,\"backoffMs\":100}");
            ax.report("t1", report(d, "STARTED", ""));
            ax.report("t1", report(d, "FAILED", ",\"message\":\"db locked\""));
            assertThat(ax.events()).extracting(e -> e.get("from").asText() + "->" + e.get("to").asText())
                    .containsExactly("TRIGGERED->RUNNING", "RUNNING->RETRY_WAITING");
        }
    }

    @Test
    void shouldCancelARunningExecutionAndSignalTheWorker() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            Dispatched d = fire(ax, "t1", "{\"jobType\":\"j\",\"delayMs\":0,\"timeoutMs\":1000}");
            ax.report("t1", report(d, "STARTED", ""));
            ax.request("t1", "{\"cancel\":true,\"reason\":\"operator\"}");
            assertThat(ax.events()).extracting(e -> e.get("from").asText() + "->" + e.get("to").asText())
                    .containsExactly("TRIGGERED->RUNNING", "RUNNING->CANCELLED");
            assertThat(ax.dispatches()).singleElement().satisfies(c -> {
                assertThat(c.header(AxHeaders.KIND)).isEqualTo("CANCEL");
                assertThat(c.executionId()).isEqualTo(d.executionId());
            });
            ax.advanceMs(5000); // its timeout timer was disarmed: no TIMED_OUT after a cancel
            assertThat(ax.events()).isEmpty();
            ax.report("t1", report(d, "FAILED", ",\"retryable\":false,\"message\":\"cancelled while running\""));
            assertThat(ax.events()).singleElement().satisfies(e -> assertThat(e.get("to").asText()).isEqualTo("IGNORED"));
        }
    }

    @Test
    void shouldCancelAnExecutionWaitingToRetry() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            Dispatched d = fire(ax, "t1", "{\"jobType\":\"j\",\"delayMs\":0,\"backoffMs\":1000}");
            ax.report("t1", report(d, "FAILED", ""));
            ax.request("t1", "{\"cancel\":true}");
            assertThat(ax.events()).extracting(e -> e.get("from").asText() + "->" + e.get("to").asText())
                    .containsExactly("TRIGGERED->RETRY_WAITING", "RETRY_WAITING->CANCELLED");
            ax.advanceMs(5000);
            assertThat(ax.dispatches()).isEmpty();
            assertThat(ax.events()).isEmpty();
        }
    }

    @Test
    void shouldReplayADeadLetteredTaskAsANewExecution() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            Dispatched d = fire(ax, "t1", "{\"jobType\":\"j\",\"delayMs\":0}");
            ax.request("t1", "{\"replay\":true}");
            assertThat(ax.events()).singleElement().satisfies(e -> assertThat(e.get("reason").asText())
                    .isEqualTo("replay: the task is still live; only a task that ended FAILED can be replayed"));
            ax.report("t1", report(d, "FAILED", ",\"retryable\":false"));
            ax.request("t1", "{\"replay\":true,\"reason\":\"smtp fixed\"}");
            assertThat(ax.events()).last().satisfies(e -> {
                assertThat(e.get("to").asText()).isEqualTo("PENDING");
                assertThat(e.get("reason").asText()).isEqualTo("replay of failed execution " + d.executionId() + ": smtp fixed");
            });
            ax.advanceMs(10);
            Dispatched replayed = ax.dispatches().get(0);
            assertThat(replayed.executionId()).isNotEqualTo(d.executionId());
            assertThat(replayed.task().getAttempt()).isEqualTo(1);
            ax.report("t1", report(replayed, "SUCCEEDED", ""));
            ax.request("t1", "{\"replay\":true}");
            assertThat(ax.events()).last().satisfies(e -> assertThat(e.get("reason").asText())
                    .isEqualTo("replay: only a task that ended FAILED can be replayed; this one ended SUCCESS"));
        }
    }

    @Test
    void shouldSpreadTheRetriesOfExecutionsThatFailedTogether() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            for (int i = 0; i < 1000; i++) {
                ax.request("t" + i, "{\"jobType\":\"j\",\"delayMs\":100,\"backoffMs\":10000}");
            }
            ax.advanceMs(100);
            List<Dispatched> fired = ax.dispatches();
            assertThat(fired).hasSize(1000);
            for (Dispatched d : fired) {
                ax.report(d.key(), report(d, "FAILED", ""));
            }
            long failedAtMs = ax.nowMs();
            List<Long> retryAt = ax.retries().stream().map(RetryRecord::getNextAttemptAtMs).toList();
            assertThat(retryAt).hasSize(1000).allSatisfy(at -> assertThat(at - failedAtMs).isBetween(5_000L, 9_999L));
            Map<Long, Long> perTick = retryAt.stream().collect(java.util.stream.Collectors.groupingBy(at -> at / 10,
                    java.util.stream.Collectors.counting()));
            assertThat(perTick.size()).as("distinct 10 ms ticks among 1000 retries").isGreaterThan(400);
            assertThat(perTick.values().stream().mapToLong(Long::longValue).max().orElseThrow()).isLessThanOrEqualTo(8);
        }
    }

    @Test
    void shouldPurgeFinishedTasksAfterRetentionSoTheStoreStaysBounded() {
        Map<String, Object> shortRetention = Map.of(AxConfig.RETENTION_MS_CONFIG, 1000L);
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir(), shortRetention)) {
            long maxTasks = 0;
            for (int round = 0; round < 40; round++) {
                for (int i = 0; i < 10; i++) {
                    ax.request("r" + round + "-" + i, "{\"jobType\":\"j\",\"delayMs\":0}");
                }
                ax.advanceMs(10);
                for (Dispatched d : ax.dispatches()) {
                    ax.report(d.key(), report(d, "SUCCEEDED", ""));
                }
                ax.advanceMs(90);
                maxTasks = Math.max(maxTasks, ax.storedTasks());
            }
            assertThat(maxTasks).as("at most ~1 s of finished tasks are kept").isLessThanOrEqualTo(120);
            ax.advanceMs(1100);
            assertThat(ax.storedTasks()).isZero();
            // Each finished execution's timeout (due 5 min after its dispatch) was held in the far level, in memory, and
            // left it at the finish: nothing of it in the index, and nothing to fire stale in those 5 minutes.
            assertThat(ax.storedTimers()).isZero();
            ax.discardEvents();
            ax.discardDispatches();

            for (int second = 0; second <= 300; second++) { // ax.default.timeout.ms = 5 min
                ax.advanceMs(1000);
            }
            assertThat(ax.storedTimers()).isZero();
            assertThat(ax.events()).as("a stale timer changes nothing").isEmpty();
            assertThat(ax.dispatches()).isEmpty();
        }
    }

    @Test
    void shouldDeleteALoadedTimeoutTimerFromIndexAndWheelWhenItsExecutionFinishes() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            Dispatched d = fire(ax, "t1", "{\"jobType\":\"j\",\"delayMs\":0,\"timeoutMs\":2000}");
            ax.advanceMs(10); // a punctuation loads the timeout timer, due within the wheel's horizon
            ax.report("t1", report(d, "SUCCEEDED", ""));
            assertThat(ax.transitions()).containsExactly("SUCCESS");
            assertThat(ax.storedTimers()).as("only the purge timer").isEqualTo(1);
            ax.advanceMs(3000);
            assertThat(ax.events()).isEmpty();
            assertThat(ax.storedTimers()).isEqualTo(1);
        }
    }

    @Test
    void shouldLeaveACancelledTasksTimerUntilItsDueTimeThenDropItWithoutEffect() {
        // The far level off: a timer a minute ahead goes to the index, as one beyond ax.wheel.far.horizon.ms does (one
        // in the far level leaves memory at the cancel: TimersTest.shouldHoldTimersOfTheFarHorizonInMemoryAloneAndGiveThemUpAtOnce).
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir(), Map.of(AxConfig.WHEEL_FAR_HORIZON_MS_CONFIG, 0L))) {
            ax.request("far", "{\"jobType\":\"j\",\"delayMs\":60000}");
            ax.advanceMs(10);
            ax.request("far", "{\"cancel\":true}");
            assertThat(ax.transitions()).containsExactly("PENDING", "CANCELLED");
            assertThat(ax.storedTimers()).as("the occurrence timer, ahead of the loaded window, and the purge timer")
                    .isEqualTo(2);

            for (int second = 0; second <= 60; second++) {
                ax.advanceMs(1000);
            }
            assertThat(ax.dispatches()).isEmpty();
            assertThat(ax.events()).isEmpty();
            assertThat(ax.storedTimers()).as("only the purge timer is left").isEqualTo(1);
        }
    }

    /**
     * Dedup holds while the task is live, and ends when it finishes, not when retention purges it: the finished task
     * is kept only to be read and to answer late reports, so a second request with its taskId is a new task at once.
     */
    @Test
    void shouldIgnoreADuplicateWhileTheTaskIsLiveAndScheduleItAnewOnceFinishedBeforeRetentionEnds() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir(), Map.of(AxConfig.RETENTION_MS_CONFIG, 1000L))) {
            String request = "{\"jobType\":\"j\",\"delayMs\":0}";
            Dispatched first = fire(ax, "t1", request);

            ax.request("t1", request); // the duplicate while the execution is in flight
            assertThat(ax.events()).singleElement().satisfies(e -> {
                assertThat(e.get("to").asText()).isEqualTo("IGNORED");
                assertThat(e.get("reason").asText()).isEqualTo("duplicate: a live task with this taskId exists (ifExists=KEEP)");
            });
            ax.advanceMs(10);
            assertThat(ax.dispatches()).as("the duplicate fires nothing").isEmpty();

            ax.report("t1", report(first, "SUCCEEDED", ""));
            assertThat(ax.transitions()).containsExactly("SUCCESS");
            ax.advanceMs(500);
            assertThat(ax.storedTasks()).as("the finished task is kept until its retention ends").isOne();

            ax.request("t1", request); // the duplicate after the finish, before the purge
            assertThat(ax.transitions()).containsExactly("PENDING");
            ax.advanceMs(10);
            Dispatched second = ax.dispatches().get(0);
            assertThat(second.executionId()).as("a new task, a new execution").isNotEqualTo(first.executionId());
            ax.discardEvents();

            ax.advanceMs(1000); // the first task's purge time passes
            assertThat(ax.storedTask("t1").getExecution().getExecutionId())
                    .as("the finished task's purge timer leaves the new task alone").isEqualTo(second.executionId());
            assertThat(ax.events()).isEmpty();

            ax.report("t1", report(second, "SUCCEEDED", ""));
            ax.advanceMs(1000);
            assertThat(ax.storedTasks()).as("purged once its own retention ended").isZero();
            ax.discardEvents();
            ax.request("t1", "{\"cancel\":true}");
            assertThat(ax.events()).singleElement().satisfies(e -> assertThat(e.get("reason").asText()).isEqualTo("cancel: no such task"));
        }
    }
}
