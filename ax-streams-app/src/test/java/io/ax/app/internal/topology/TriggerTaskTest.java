package io.ax.app.internal.topology;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.ax.AxHeaders;
import io.ax.app.internal.topology.SchedulerHarness.Dispatched;
import io.ax.codec.WireCodec;
import io.ax.schema.TriggerRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Run now ({@code {"trigger":true}}): a pending task fires at once; anything else is answered IGNORED. */
class TriggerTaskTest {
    private static final long HOUR_MS = Duration.ofHours(1).toMillis();

    private static String report(Dispatched d, String status) {
        return "{\"executionId\":\"" + d.executionId() + "\",\"attempt\":" + d.task().getAttempt() + ",\"status\":\"" + status + "\"}";
    }

    @Test
    void shouldFireAOneShotTaskDueInAnHourNowWithTheExecutionIdItsPendingEventAnnounced() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("t1", "{\"jobType\":\"report\",\"delayMs\":" + HOUR_MS + "}");
            JsonNode pending = ax.events().get(0);
            ax.advanceMs(1_000);

            ax.request("t1", "{\"trigger\":true,\"reason\":\"month end\"}");

            Dispatched run = ax.dispatches().get(0);
            assertThat(run.executionId()).isEqualTo(pending.get("executionId").asText());
            assertThat(run.task().getDueAtMs()).as("a run asked for is due now").isEqualTo(ax.nowMs());
            assertThat(run.header(AxHeaders.DUE_AT)).isEqualTo(Long.toString(ax.nowMs()));
            assertThat(ax.events()).singleElement().satisfies(e -> {
                assertThat(e.get("from").asText() + "->" + e.get("to").asText()).isEqualTo("PENDING->TRIGGERED");
                assertThat(e.get("reason").asText()).isEqualTo("run now by request: month end (was due "
                        + Instant.ofEpochMilli(SchedulerHarness.T0.toEpochMilli() + HOUR_MS) + ")");
            });

            ax.report("t1", report(run, "SUCCEEDED"));
            assertThat(ax.transitions()).containsExactly("SUCCESS");
            ax.advanceMs(HOUR_MS);
            ax.advanceMs(10); // one punctuation refills the wheel from the index, the next fires what is due
            ax.advanceMs(10);
            assertThat(ax.dispatches()).as("the old due time passes without a second run").isEmpty();
            assertThat(ax.events()).isEmpty();
        }
    }

    @Test
    void shouldRunOneExtraOccurrenceOfAPeriodicTaskAndKeepItsGrid() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            long start = SchedulerHarness.T0.toEpochMilli();
            ax.request("sync", "{\"jobType\":\"sync\",\"everyMs\":3000}");
            JsonNode firstPending = ax.events().get(0);
            ax.advanceMs(1_000);

            ax.requestBytes("sync", WireCodec.encode(new TriggerRequest(null)));

            List<JsonNode> events = ax.events();
            assertThat(events).extracting(e -> e.path("from").asText("") + "->" + e.get("to").asText())
                    .containsExactly("->PENDING", "PENDING->TRIGGERED");
            assertThat(events.get(0).get("reason").asText()).isEqualTo("run now by request (an extra occurrence; the next"
                    + " regular one stays due " + Instant.ofEpochMilli(start + 3_000) + ")");
            Dispatched extra = ax.dispatches().get(0);
            assertThat(extra.executionId()).isEqualTo(events.get(0).get("executionId").asText())
                    .isNotEqualTo(firstPending.get("executionId").asText());
            assertThat(extra.task().getDueAtMs()).isEqualTo(start + 1_000);
            ax.report("sync", report(extra, "SUCCEEDED"));
            ax.discardEvents();

            ax.advanceMs(2_000);
            Dispatched regular = ax.dispatches().get(0);
            assertThat(regular.executionId()).as("the grid is unchanged").isEqualTo(firstPending.get("executionId").asText());
            assertThat(regular.task().getDueAtMs()).isEqualTo(start + 3_000);
            assertThat(ax.storedTask("sync").getNextDueAtMs()).isEqualTo(start + 6_000);
        }
    }

    @Test
    void shouldSkipTheRegularOccurrenceWhenTheExtraRunIsStillInFlight() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("sync", "{\"jobType\":\"sync\",\"everyMs\":3000,\"timeoutMs\":600000}");
            ax.advanceMs(2_500);
            ax.request("sync", "{\"trigger\":true}");
            ax.discardEvents();
            ax.discardDispatches();

            ax.advanceMs(500);
            assertThat(ax.dispatches()).isEmpty();
            assertThat(ax.transitions()).containsExactly("SKIPPED", "PENDING");
        }
    }

    @Test
    void shouldIgnoreATriggerOfATaskInFlightFinishedOrUnknown() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("nobody", "{\"trigger\":true}");
            assertThat(ax.events()).singleElement().satisfies(e -> {
                assertThat(e.get("to").asText()).isEqualTo("IGNORED");
                assertThat(e.get("reason").asText()).isEqualTo("trigger: no such task");
                assertThat(e.get("source").get("topic").asText()).isEqualTo("ax.requests");
            });

            ax.request("t1", "{\"jobType\":\"j\",\"delayMs\":0}");
            ax.advanceMs(10);
            Dispatched run = ax.dispatches().get(0);
            ax.discardEvents();
            ax.request("t1", "{\"trigger\":true}");
            assertThat(ax.events()).singleElement().satisfies(e -> assertThat(e.get("reason").asText())
                    .isEqualTo("trigger: execution " + run.executionId() + " is TRIGGERED; only a PENDING task can be triggered"));
            assertThat(ax.dispatches()).isEmpty();

            ax.report("t1", report(run, "SUCCEEDED"));
            ax.discardEvents();
            ax.request("t1", "{\"trigger\":true}");
            assertThat(ax.events()).singleElement().satisfies(e -> assertThat(e.get("reason").asText())
                    .isEqualTo("trigger: task already ended (SUCCESS)"));
            assertThat(ax.dispatches()).isEmpty();
        }
    }

    @Test
    void shouldRejectATriggerWithAnOversizeReason() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("t1", "{\"jobType\":\"j\",\"delayMs\":" + HOUR_MS + "}");
            ax.discardEvents();
            ax.request("t1", "{\"trigger\":true,\"reason\":\"" + "x".repeat(1025) + "\"}");
            assertThat(ax.events()).singleElement().satisfies(e -> assertThat(e.get("to").asText()).isEqualTo("REJECTED"));
            assertThat(ax.dispatches()).isEmpty();
        }
    }
}
