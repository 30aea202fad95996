package io.ax.app.internal.topology;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.ax.app.internal.topology.SchedulerHarness.Dispatched;
import io.ax.codec.WireCodec;
import io.ax.schema.ExecutionReport;
import io.ax.schema.ReportStatus;
import java.util.List;
import org.junit.jupiter.api.Test;

class ApplyExecutionReportTest {

    private static Dispatched fireOne(SchedulerHarness ax) {
        ax.request("t1", "{\"jobType\":\"email\",\"delayMs\":0}");
        ax.advanceMs(10);
        ax.discardEvents();
        return ax.dispatches().get(0);
    }

    private static String report(Dispatched d, int attempt, String status) {
        return "{\"executionId\":\"" + d.executionId() + "\",\"attempt\":" + attempt + ",\"status\":\"" + status + "\"}";
    }

    @Test
    void shouldWalkTriggeredRunningSuccess() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            Dispatched d = fireOne(ax);
            ax.report("t1", report(d, 1, "STARTED"));
            ax.report("t1", report(d, 1, "HEARTBEAT"));
            ax.reportBytes("t1", WireCodec.encode(ExecutionReport.newBuilder().setExecutionId(d.executionId())
                    .setAttempt(1).setStatus(ReportStatus.SUCCEEDED).setWorkerId("w-1").build()));
            List<JsonNode> events = ax.events();
            assertThat(events).extracting(e -> e.get("from").asText() + "->" + e.get("to").asText())
                    .containsExactly("TRIGGERED->RUNNING", "RUNNING->SUCCESS");
            assertThat(events.get(1).get("executionId").asText()).isEqualTo(d.executionId());
            assertThat(events.get(1).get("reason").asText()).isEqualTo("worker w-1");
        }
    }

    @Test
    void shouldKeepTheReportingWorkerUntilTheNextAttemptIsDispatched() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("t1", "{\"jobType\":\"email\",\"delayMs\":0,\"maxRetries\":1,\"backoffMs\":1000,\"jitter\":false}");
            ax.advanceMs(10);
            Dispatched d = ax.dispatches().get(0);
            assertThat(ax.storedTask("t1").getExecution().getWorkerId()).as("dispatched, nobody reported yet").isNull();
            ax.report("t1", "{\"executionId\":\"" + d.executionId() + "\",\"attempt\":1,\"status\":\"STARTED\",\"workerId\":\"w-1\"}");
            assertThat(ax.storedTask("t1").getExecution().getWorkerId()).isEqualTo("w-1");
            ax.report("t1", report(d, 1, "HEARTBEAT"));
            assertThat(ax.storedTask("t1").getExecution().getWorkerId()).as("a report without one keeps it").isEqualTo("w-1");
            ax.report("t1", "{\"executionId\":\"" + d.executionId() + "\",\"attempt\":1,\"status\":\"FAILED\","
                    + "\"retryable\":true,\"message\":\"smtp down\",\"workerId\":\"w-2\"}");
            assertThat(ax.storedTask("t1").getExecution().getWorkerId()).as("the worker that failed it").isEqualTo("w-2");
            ax.advanceMs(1000);
            assertThat(ax.dispatches()).singleElement().satisfies(retry -> assertThat(retry.header("ax-attempt")).isEqualTo("2"));
            assertThat(ax.storedTask("t1").getExecution().getWorkerId()).as("attempt 2: its own worker reports").isNull();
        }
    }

    @Test
    void shouldGoStraightFromTriggeredToSuccessWithoutAStartedReport() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            Dispatched d = fireOne(ax);
            ax.report("t1", report(d, 1, "SUCCEEDED"));
            assertThat(ax.transitions()).containsExactly("SUCCESS");
        }
    }

    @Test
    void shouldRecordAFailureWithItsMessage() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            Dispatched d = fireOne(ax);
            ax.report("t1", "{\"executionId\":\"" + d.executionId() + "\",\"attempt\":1,\"status\":\"FAILED\","
                    + "\"retryable\":false,\"message\":\"mailbox full\"}");
            assertThat(ax.events()).singleElement().satisfies(e -> {
                assertThat(e.get("to").asText()).isEqualTo("FAILED");
                assertThat(e.get("reason").asText()).isEqualTo("non-retryable failure: mailbox full");
            });
        }
    }

    @Test
    void shouldIgnoreStaleAndUnknownReportsWithoutChangingState() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            Dispatched d = fireOne(ax);
            ax.report("t1", report(d, 2, "SUCCEEDED"));
            ax.report("t1", "{\"executionId\":\"not-this-one\",\"attempt\":1,\"status\":\"SUCCEEDED\"}");
            ax.report("nobody", report(d, 1, "SUCCEEDED"));
            List<JsonNode> ignored = ax.events();
            assertThat(ignored).extracting(e -> e.get("to").asText()).containsOnly("IGNORED");
            assertThat(ignored).extracting(e -> e.get("reason").asText()).containsExactly(
                    "SUCCEEDED report ignored: stale attempt 2 (current attempt 1)",
                    "SUCCEEDED report ignored: not the task's current execution (" + d.executionId() + ")",
                    "SUCCEEDED report ignored: no such task");
            // the execution is still TRIGGERED: a real report still applies
            ax.report("t1", report(d, 1, "STARTED"));
            assertThat(ax.transitions()).containsExactly("RUNNING");
        }
    }

    @Test
    void shouldIgnoreReportsAfterTheExecutionFinished() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            Dispatched d = fireOne(ax);
            ax.report("t1", report(d, 1, "SUCCEEDED"));
            ax.report("t1", report(d, 1, "FAILED"));
            ax.report("t1", report(d, 1, "STARTED"));
            assertThat(ax.events()).extracting(e -> e.get("to").asText()).containsExactly("SUCCESS", "IGNORED", "IGNORED");
        }
    }
}
