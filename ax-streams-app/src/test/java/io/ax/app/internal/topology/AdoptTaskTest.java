package io.ax.app.internal.topology;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.ax.AxHeaders;
import io.ax.app.config.AxConfig;
import io.ax.app.internal.topology.SchedulerHarness.Dispatched;
import io.ax.codec.WireCodec;
import io.ax.schema.AdoptRequest;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Adopting tasks handed over by {@code ./ax migrate}. Each task is first brought into its state by a real scheduler
 * (the "old" deployment, its own driver); its stored record is then adopted by another (the "new" one), which runs on
 * the same clock.
 */
class AdoptTaskTest {
    private static final Map<String, Object> ADOPTING = Map.of(AxConfig.ADOPT_ENABLED_CONFIG, true);

    private static SchedulerHarness oldDeployment() {
        return new SchedulerHarness(SchedulerHarness.tempDir());
    }

    private static SchedulerHarness newDeployment() {
        return new SchedulerHarness(SchedulerHarness.tempDir(), ADOPTING);
    }

    private static byte[] adopt(StoredTask task) {
        return WireCodec.encode(AdoptRequest.newBuilder().setTask(task).setFromApplicationId("ax-old")
                .setFromTopic("old.requests").setFromPartition(2).setMigratedAtMs(SchedulerHarness.T0.toEpochMilli()).build());
    }

    /** Brings the new deployment's clock to the old one's. */
    private static void catchUp(SchedulerHarness newer, SchedulerHarness older) {
        newer.advanceMs(older.nowMs() - newer.nowMs());
    }

    private static String report(String executionId, int attempt, String status) {
        return "{\"executionId\":\"" + executionId + "\",\"attempt\":" + attempt + ",\"status\":\"" + status + "\"}";
    }

    @Test
    void shouldKeepAnAdoptedWaitingTaskWaitingAndReleaseItWhenItsDependencyEndsHere() {
        try (SchedulerHarness old = oldDeployment(); SchedulerHarness ax = newDeployment()) {
            old.request("b", "{\"jobType\":\"j\",\"after\":[{\"taskId\":\"a\",\"on\":\"SUCCESS\"}],\"afterTimeoutMs\":60000}");
            ax.requestBytes("b", adopt(old.storedTask("b")));
            assertThat(ax.events()).singleElement().satisfies(e -> {
                assertThat(e.get("from").asText() + "->" + e.get("to").asText()).isEqualTo("WAITING->WAITING");
                assertThat(e.get("reason").asText()).isEqualTo("migrated from old.requests partition 2 (application ax-old); waits for a (SUCCESS)");
            });
            ax.request("a", "{\"jobType\":\"j\",\"delayMs\":0}");
            ax.advanceMs(10);
            SchedulerHarness.Dispatched a = ax.dispatches().get(0);
            ax.report("a", report(a.executionId(), 1, "SUCCEEDED"));
            ax.advanceMs(10);
            assertThat(ax.dispatches()).extracting(SchedulerHarness.Dispatched::key).containsExactly("b");
        }
    }

    @Test
    void shouldFireAnAdoptedPendingTaskAtItsDueTimeWithTheExecutionIdTheOldDeploymentWouldHaveUsed() {
        try (SchedulerHarness old = oldDeployment(); SchedulerHarness ax = newDeployment()) {
            old.request("t1", "{\"jobType\":\"email\",\"delayMs\":5000}");
            JsonNode pending = old.events().get(0);
            ax.requestBytes("t1", adopt(old.storedTask("t1")));

            JsonNode restated = ax.events().get(0);
            assertThat(restated.get("from").asText()).isEqualTo("PENDING");
            assertThat(restated.get("to").asText()).isEqualTo("PENDING");
            assertThat(restated.get("executionId").asText()).isEqualTo(pending.get("executionId").asText());
            assertThat(restated.get("dueAt").asText()).isEqualTo(pending.get("dueAt").asText());
            assertThat(restated.get("reason").asText()).isEqualTo("migrated from old.requests partition 2 (application ax-old)");
            assertThat(restated.get("source").get("topic").asText()).isEqualTo("ax.requests");

            ax.advanceMs(4_990);
            assertThat(ax.dispatches()).as("not before its due time").isEmpty();
            ax.advanceMs(10);
            assertThat(ax.dispatches()).singleElement().satisfies(d -> {
                assertThat(d.executionId()).isEqualTo(pending.get("executionId").asText());
                assertThat(d.task().getDueAtMs()).isEqualTo(SchedulerHarness.T0.toEpochMilli() + 5_000);
                assertThat(d.timestampMs()).isGreaterThanOrEqualTo(d.task().getDueAtMs());
            });
        }
    }

    @Test
    void shouldKeepARunningExecutionsIdAndAttemptSoItsWorkersReportCompletesIt() {
        try (SchedulerHarness old = oldDeployment(); SchedulerHarness ax = newDeployment()) {
            old.request("t1", "{\"jobType\":\"email\",\"delayMs\":0}");
            old.advanceMs(10);
            Dispatched d = old.dispatches().get(0);
            old.report("t1", report(d.executionId(), 1, "STARTED"));
            catchUp(ax, old);
            ax.requestBytes("t1", adopt(old.storedTask("t1")));
            assertThat(ax.events()).singleElement().satisfies(e -> {
                assertThat(e.get("to").asText()).isEqualTo("RUNNING");
                assertThat(e.get("executionId").asText()).isEqualTo(d.executionId());
                assertThat(e.get("attempt").asInt()).isEqualTo(1);
            });
            assertThat(ax.dispatches()).as("an adopted execution is not dispatched again").isEmpty();

            ax.report("t1", report(d.executionId(), 1, "SUCCEEDED"));
            assertThat(ax.events()).extracting(e -> e.get("from").asText() + "->" + e.get("to").asText())
                    .containsExactly("RUNNING->SUCCESS");
            assertThat(ax.storedTask("t1").getExecution().getState()).isEqualTo(TaskState.SUCCESS);
        }
    }

    @Test
    void shouldTimeOutAnAdoptedRunningExecutionAtItsDeadline() {
        try (SchedulerHarness old = oldDeployment(); SchedulerHarness ax = newDeployment()) {
            old.request("t1", "{\"jobType\":\"email\",\"delayMs\":0,\"timeoutMs\":10000,\"maxRetries\":0}");
            old.advanceMs(10);
            Dispatched d = old.dispatches().get(0);
            old.report("t1", report(d.executionId(), 1, "STARTED"));
            long deadlineMs = old.storedTask("t1").getExecution().getTimeoutAtMs();
            old.advanceMs(2_000);
            catchUp(ax, old);
            ax.requestBytes("t1", adopt(old.storedTask("t1")));
            ax.discardEvents();

            ax.advanceMs(deadlineMs - ax.nowMs() - 10);
            assertThat(ax.events()).as("not before the deadline").isEmpty();
            ax.advanceMs(10);
            List<JsonNode> events = ax.events();
            assertThat(events).extracting(e -> e.get("to").asText()).containsExactly("TIMED_OUT", "FAILED");
            assertThat(events).allSatisfy(e -> {
                assertThat(e.get("executionId").asText()).isEqualTo(d.executionId());
                assertThat(e.get("attempt").asInt()).isEqualTo(1);
            });
            assertThat(ax.dispatches()).singleElement().satisfies(cancel -> {
                assertThat(cancel.header(AxHeaders.KIND)).isEqualTo("CANCEL");
                assertThat(cancel.executionId()).isEqualTo(d.executionId());
            });
        }
    }

    @Test
    void shouldKeepARetryWaitingExecutionsAttemptAndFireTheRetryAtItsTime() {
        try (SchedulerHarness old = oldDeployment(); SchedulerHarness ax = newDeployment()) {
            old.request("t1", "{\"jobType\":\"email\",\"delayMs\":0,\"maxRetries\":2,\"backoffIntervalsMs\":[5000],\"jitter\":false}");
            old.advanceMs(10);
            Dispatched first = old.dispatches().get(0);
            old.report("t1", "{\"executionId\":\"" + first.executionId() + "\",\"attempt\":1,\"status\":\"FAILED\","
                    + "\"retryable\":true,\"message\":\"smtp down\"}");
            StoredTask waiting = old.storedTask("t1");
            long retryAtMs = waiting.getExecution().getRetryAtMs();
            catchUp(ax, old);
            ax.requestBytes("t1", adopt(waiting));
            assertThat(ax.events()).singleElement().satisfies(e -> {
                assertThat(e.get("to").asText()).isEqualTo("RETRY_WAITING");
                assertThat(e.get("attempt").asInt()).isEqualTo(1);
            });

            ax.advanceMs(retryAtMs - ax.nowMs() - 10);
            assertThat(ax.dispatches()).as("not before the retry time").isEmpty();
            ax.advanceMs(10);
            assertThat(ax.dispatches()).singleElement().satisfies(retry -> {
                assertThat(retry.executionId()).isEqualTo(first.executionId());
                assertThat(retry.header(AxHeaders.ATTEMPT)).isEqualTo("2");
                assertThat(retry.task().getDueAtMs()).isEqualTo(retryAtMs);
            });
            assertThat(ax.storedTask("t1").getExecution().getErrors()).as("the error history came along")
                    .singleElement().satisfies(error -> assertThat(error.getMessage()).isEqualTo("smtp down"));
        }
    }

    @Test
    void shouldTimeTheRetryOfAnAdoptedExecutionFromTheRetryRecordCopiedAfterIt() {
        try (SchedulerHarness old = oldDeployment(); SchedulerHarness ax = newDeployment()) {
            old.request("t1", "{\"jobType\":\"email\",\"delayMs\":0,\"maxRetries\":2,\"backoffIntervalsMs\":[5000],\"jitter\":false}");
            old.advanceMs(10);
            Dispatched first = old.dispatches().get(0);
            old.report("t1", "{\"executionId\":\"" + first.executionId() + "\",\"attempt\":1,\"status\":\"FAILED\","
                    + "\"retryable\":true,\"message\":\"smtp down\"}");
            // As the old deployment stored it before reading its RetryRecord back: the record is still unread on its retry topic.
            StoredTask waiting = old.storedTask("t1");
            long retryAtMs = waiting.getExecution().getRetryAtMs();
            waiting.setExecution(StoredExecution.newBuilder(waiting.getExecution()).setRetryAtMs(null).build());
            byte[] retryRecord = WireCodec.encode(old.retries().get(0));
            catchUp(ax, old);
            ax.requestBytes("t1", adopt(waiting));
            ax.retryBytes("t1", retryRecord);

            ax.advanceMs(retryAtMs - ax.nowMs());
            assertThat(ax.dispatches()).singleElement().satisfies(retry -> assertThat(retry.header(AxHeaders.ATTEMPT)).isEqualTo("2"));
        }
    }

    @Test
    void shouldIgnoreAnAdoptForATaskItAlreadyHoldsSoTheCommandCanBeRunAgain() {
        try (SchedulerHarness old = oldDeployment(); SchedulerHarness ax = newDeployment()) {
            old.request("t1", "{\"jobType\":\"email\",\"delayMs\":5000}");
            byte[] adopt = adopt(old.storedTask("t1"));
            ax.requestBytes("t1", adopt);
            StoredTask adopted = ax.storedTask("t1");
            ax.discardEvents();
            ax.requestBytes("t1", adopt);
            assertThat(ax.events()).singleElement().satisfies(e -> {
                assertThat(e.get("to").asText()).isEqualTo("IGNORED");
                assertThat(e.get("reason").asText()).startsWith("adopt ignored: this deployment already holds the task");
            });
            assertThat(ax.storedTask("t1")).isEqualTo(adopted);
            ax.advanceMs(5_000);
            assertThat(ax.dispatches()).as("fires once").hasSize(1);
        }
    }

    @Test
    void shouldRejectMalformedAdoptsAndGoOn() {
        try (SchedulerHarness old = oldDeployment(); SchedulerHarness ax = newDeployment()) {
            old.request("t1", "{\"jobType\":\"email\",\"delayMs\":0}");
            old.advanceMs(10);
            StoredTask running = old.storedTask("t1");
            byte[] whole = adopt(running);

            ax.requestBytes("t1", Arrays.copyOf(whole, whole.length / 2));
            ax.requestBytes("other", whole);
            StoredTask silent = StoredTask.newBuilder(running)
                    .setExecution(StoredExecution.newBuilder(running.getExecution()).setTimeoutAtMs(null).build()).build();
            ax.requestBytes("t1", adopt(silent));
            StoredTask fromTheFuture = StoredTask.newBuilder(running)
                    .setExecution(StoredExecution.newBuilder(running.getExecution()).setAttempt(9).build()).build();
            ax.requestBytes("t1", adopt(fromTheFuture));
            ax.request("t2", "{\"jobType\":\"email\",\"delayMs\":0}");

            List<JsonNode> events = ax.events();
            assertThat(events).extracting(e -> e.get("to").asText())
                    .containsExactly("REJECTED", "REJECTED", "REJECTED", "REJECTED", "PENDING");
            assertThat(events.get(0).get("reason").asText()).startsWith("cannot decode io.ax.schema.AdoptRequest");
            assertThat(events.get(1).get("reason").asText()).contains("is not the record key");
            assertThat(events.get(2).get("reason").asText()).contains("must carry its timeout");
            assertThat(events.get(3).get("reason").asText()).contains("attempt must be between 1 and maxRetries + 1");
            assertThat(ax.storedTask("t1")).isNull();
        }
    }

    @Test
    void shouldRefuseAdoptsUnlessTheOperatorEnabledThem() {
        try (SchedulerHarness old = oldDeployment(); SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            old.request("t1", "{\"jobType\":\"email\",\"delayMs\":5000}");
            ax.requestBytes("t1", adopt(old.storedTask("t1")));
            assertThat(ax.events()).singleElement().satisfies(e -> {
                assertThat(e.get("to").asText()).isEqualTo("REJECTED");
                assertThat(e.get("reason").asText()).contains("ax.adopt.enabled=false");
            });
            assertThat(ax.storedTask("t1")).isNull();
        }
    }

    @Test
    void shouldKeepAFinishedTaskUntilItsOldPurgeTime() {
        try (SchedulerHarness old = oldDeployment(); SchedulerHarness ax = newDeployment()) {
            old.request("t1", "{\"jobType\":\"email\",\"delayMs\":0,\"maxRetries\":0}");
            old.advanceMs(10);
            Dispatched d = old.dispatches().get(0);
            old.report("t1", "{\"executionId\":\"" + d.executionId() + "\",\"attempt\":1,\"status\":\"FAILED\",\"retryable\":false}");
            StoredTask failed = old.storedTask("t1");
            catchUp(ax, old);
            ax.requestBytes("t1", adopt(failed));
            assertThat(ax.events()).singleElement().satisfies(e -> assertThat(e.get("to").asText()).isEqualTo("FAILED"));
            ax.advanceMs(failed.getPurgeAtMs() - ax.nowMs() - 10);
            assertThat(ax.storedTask("t1")).isNotNull();
            ax.advanceMs(10);
            assertThat(ax.storedTask("t1")).isNull();
        }
    }

    @Test
    void shouldKeepAnAdoptedPausedTaskPausedAndSayItIs() {
        try (SchedulerHarness old = oldDeployment(); SchedulerHarness ax = newDeployment()) {
            old.request("p", "{\"jobType\":\"sync\",\"everyMs\":1000}");
            old.request("p", "{\"pause\":true}");
            StoredTask paused = old.storedTask("p");
            assertThat(paused.getPausedAtMs()).isNotNull();

            ax.requestBytes("p", adopt(paused));

            assertThat(ax.events()).singleElement().satisfies(e -> assertThat(e.get("reason").asText())
                    .contains("migrated from").contains("paused since").contains("no occurrence fires until resumed"));
            assertThat(ax.hasTimer(paused.getNextDueAtMs(), "p", io.ax.app.internal.core.TimerKind.OCCURRENCE))
                    .as("no occurrence timer while paused").isFalse();
            ax.advanceMs(3_000);
            assertThat(ax.dispatches()).isEmpty();
            ax.request("p", "{\"resume\":true}");
            ax.advanceMs(1_010);
            assertThat(ax.dispatches()).as("resumed, it fires on its grid").hasSize(1);
        }
    }

    @Test
    void shouldArmTheTimersOfExecutionsInFlightBesideTheCurrentOne() {
        try (SchedulerHarness old = oldDeployment(); SchedulerHarness ax = newDeployment()) {
            old.request("p", "{\"jobType\":\"sync\",\"everyMs\":1000,\"overlap\":\"ALLOW\",\"timeoutMs\":5000,\"maxRetries\":0}");
            old.advanceMs(1_010);
            old.advanceMs(1_000);
            List<Dispatched> both = old.dispatches();
            assertThat(both).hasSize(2);
            StoredTask task = old.storedTask("p");
            assertThat(task.getAlongside()).hasSize(1);
            long besideTimeoutAt = task.getAlongside().get(0).getTimeoutAtMs();
            catchUp(ax, old);

            ax.requestBytes("p", adopt(task));

            assertThat(ax.events()).extracting(e -> e.get("executionId").asText())
                    .contains(both.get(0).executionId(), both.get(1).executionId());
            assertThat(ax.hasTimer(besideTimeoutAt, "p", io.ax.app.internal.core.TimerKind.TIMEOUT)).isTrue();
            ax.report("p", report(both.get(0).executionId(), 1, "SUCCEEDED"));
            assertThat(ax.events()).extracting(e -> e.get("to").asText()).containsExactly("SUCCESS");
            assertThat(ax.storedTask("p").getAlongside()).isEmpty();
        }
    }

    @Test
    void shouldRejectAnAdoptWhoseExecutionsAlongsideBreakTheStoredShape() {
        try (SchedulerHarness old = oldDeployment(); SchedulerHarness ax = newDeployment()) {
            old.request("p", "{\"jobType\":\"sync\",\"everyMs\":1000,\"overlap\":\"ALLOW\"}");
            old.advanceMs(1_010);
            StoredTask task = old.storedTask("p");
            task.setAlongside(List.of(task.getExecution())); // the current one twice

            ax.requestBytes("p", adopt(task));

            assertThat(ax.events()).singleElement().satisfies(e -> {
                assertThat(e.get("to").asText()).isEqualTo("REJECTED");
                assertThat(e.get("reason").asText()).contains("appears twice");
            });
        }
    }
}
