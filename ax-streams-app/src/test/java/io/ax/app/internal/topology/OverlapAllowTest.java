package io.ax.app.internal.topology;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.ax.app.internal.topology.SchedulerHarness.Dispatched;
import io.ax.codec.WireCodec;
import io.ax.schema.DispatchKind;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Overlap ALLOW under TopologyTestDriver: an occurrence due while earlier executions are in flight runs beside them,
 * each its own execution, followed by its own executionId through reports, retries, timeouts and a cancel; at most
 * 10 in flight at once; the task ends once the last of them has.
 */
class OverlapAllowTest {
    private static final long SECOND = 1000;
    private static final long TICK_MS = 10;

    private static void report(SchedulerHarness ax, Dispatched d, String status) {
        ax.report("p", "{\"executionId\":\"" + d.executionId() + "\",\"attempt\":" + d.task().getAttempt()
                + ",\"status\":\"" + status + "\"}");
    }

    private static List<JsonNode> withTo(List<JsonNode> events, String to) {
        return events.stream().filter(e -> e.get("to").asText().equals(to)).toList();
    }

    private static List<Dispatched> runs(SchedulerHarness ax) {
        return ax.dispatches().stream().filter(d -> d.task().getKind() == DispatchKind.RUN).toList();
    }

    /** A 1 s interval task with overlap ALLOW; its first occurrence fires and is left in flight. */
    private static Dispatched firstInFlight(SchedulerHarness ax, String options) {
        ax.request("p", "{\"jobType\":\"sync\",\"everyMs\":1000,\"overlap\":\"ALLOW\"" + options + "}");
        ax.advanceMs(SECOND + TICK_MS);
        List<Dispatched> dispatched = runs(ax);
        assertThat(dispatched).hasSize(1);
        ax.discardEvents();
        return dispatched.get(0);
    }

    @Test
    void shouldRunAnOccurrenceBesideTheExecutionInFlightAndFollowEachByItsOwnId() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            Dispatched first = firstInFlight(ax, "");
            report(ax, first, "STARTED");

            ax.advanceMs(SECOND);
            Dispatched second = runs(ax).get(0);
            assertThat(second.executionId()).isNotEqualTo(first.executionId());
            JsonNode triggered = withTo(ax.events(), "TRIGGERED").get(0);
            assertThat(triggered.get("executionId").asText()).isEqualTo(second.executionId());
            assertThat(triggered.get("reason").asText()).contains("overlap ALLOW: runs beside 1 execution(s) in flight")
                    .contains(first.executionId()).contains("RUNNING");
            StoredTask stored = ax.storedTask("p");
            assertThat(stored.getExecution().getExecutionId()).isEqualTo(second.executionId());
            assertThat(stored.getAlongside()).extracting(StoredExecution::getExecutionId).containsExactly(first.executionId());

            report(ax, first, "SUCCEEDED");
            List<JsonNode> events = ax.events();
            assertThat(events).as("the report of the one beside is applied to it, not ignored as stale")
                    .extracting(e -> e.get("to").asText()).containsExactly("SUCCESS");
            assertThat(events.get(0).get("executionId").asText()).isEqualTo(first.executionId());
            assertThat(events.get(0).get("from").asText()).isEqualTo("RUNNING");
            stored = ax.storedTask("p");
            assertThat(stored.getAlongside()).as("it leaves the list when it ends").isEmpty();
            assertThat(stored.getExecution().getExecutionId()).isEqualTo(second.executionId());
            assertThat(stored.getExecution().getState()).isEqualTo(TaskState.TRIGGERED);

            report(ax, second, "SUCCEEDED");
            assertThat(withTo(ax.events(), "SUCCESS")).singleElement()
                    .satisfies(e -> assertThat(e.get("executionId").asText()).isEqualTo(second.executionId()));
        }
    }

    @Test
    void shouldRetryAnExecutionBesideTheCurrentOneWithItsOwnAttempts() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            Dispatched first = firstInFlight(ax, ",\"backoffIntervalsMs\":[3000],\"jitter\":false,\"maxOccurrences\":2");
            ax.advanceMs(SECOND);
            Dispatched second = runs(ax).get(0);

            report(ax, first, "FAILED");
            assertThat(withTo(ax.events(), "RETRY_WAITING")).singleElement()
                    .satisfies(e -> assertThat(e.get("executionId").asText()).isEqualTo(first.executionId()));
            ax.retryBytes("p", WireCodec.encode(ax.retries().get(0)));
            ax.advanceMs(3 * SECOND);
            List<Dispatched> retried = runs(ax);
            assertThat(retried).singleElement().satisfies(d -> {
                assertThat(d.executionId()).isEqualTo(first.executionId());
                assertThat(d.task().getAttempt()).isEqualTo(2);
            });
            assertThat(ax.storedTask("p").getExecution().getExecutionId()).isEqualTo(second.executionId());

            report(ax, second, "SUCCEEDED");
            assertThat(ax.storedTask("p").getFinishedAtMs()).as("not finished while the one beside still runs").isNull();
            report(ax, retried.get(0), "SUCCEEDED");
            StoredTask done = ax.storedTask("p");
            assertThat(done.getAlongside()).isEmpty();
            assertThat(done.getFinishedAtMs()).as("finished once the last execution in flight ended").isNotNull();
        }
    }

    @Test
    void shouldTimeOutAnExecutionBesideTheCurrentOneEvenWhenTheirTimeoutsShareAMillisecond() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            Dispatched first = firstInFlight(ax, ",\"timeoutMs\":5000,\"maxRetries\":0");
            ax.advanceMs(SECOND);
            Dispatched second = runs(ax).get(0);
            long secondTimeoutAt = ax.storedTask("p").getExecution().getTimeoutAtMs();
            // A heartbeat of the first now moves its deadline onto the second's: one timer key for both.
            report(ax, first, "HEARTBEAT");
            ax.advanceMs(4 * SECOND); // the first's timer fires before its deadline and is set again at it
            assertThat(ax.storedTask("p").getAlongside().get(0).getTimeoutAtMs()).isEqualTo(secondTimeoutAt);

            report(ax, first, "SUCCEEDED"); // gives its timer up: the second's must stay
            assertThat(ax.hasTimer(secondTimeoutAt, "p", io.ax.app.internal.core.TimerKind.TIMEOUT))
                    .as("still armed, so a restart would derive it").isTrue();
            ax.discardEvents();
            ax.advanceMs(SECOND + TICK_MS);

            List<JsonNode> timedOut = withTo(ax.events(), "TIMED_OUT");
            assertThat(timedOut).as("the second still times out").singleElement()
                    .satisfies(e -> assertThat(e.get("executionId").asText()).isEqualTo(second.executionId()));
        }
    }

    @Test
    void shouldSkipAnOccurrenceWhenTenExecutionsAreAlreadyInFlight() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            firstInFlight(ax, ",\"timeoutMs\":60000");
            for (int i = 0; i < 9; i++) {
                ax.advanceMs(SECOND);
            }
            assertThat(runs(ax)).hasSize(9);
            StoredTask ten = ax.storedTask("p");
            assertThat(ten.getAlongside()).hasSize(9);
            ax.discardEvents();

            ax.advanceMs(SECOND);
            assertThat(runs(ax)).isEmpty();
            assertThat(withTo(ax.events(), "SKIPPED")).singleElement().satisfies(e -> assertThat(e.get("reason").asText())
                    .contains("10 executions of this task are already in flight side by side"));
        }
    }

    @Test
    void shouldCancelEveryExecutionInFlightWithTheTask() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            Dispatched first = firstInFlight(ax, "");
            ax.advanceMs(SECOND);
            Dispatched second = runs(ax).get(0);
            ax.discardEvents();

            ax.request("p", "{\"cancel\":true,\"reason\":\"done\"}");

            List<JsonNode> cancelled = withTo(ax.events(), "CANCELLED");
            assertThat(cancelled).extracting(e -> e.get("executionId").asText())
                    .contains(first.executionId(), second.executionId());
            List<Dispatched> signals = ax.dispatches().stream().filter(d -> d.task().getKind() == DispatchKind.CANCEL).toList();
            assertThat(signals).extracting(Dispatched::executionId).containsExactlyInAnyOrder(first.executionId(), second.executionId());
            StoredTask stored = ax.storedTask("p");
            assertThat(stored.getAlongside()).isEmpty();
            assertThat(stored.getFinishedAtMs()).isNotNull();
            report(ax, first, "SUCCEEDED");
            assertThat(withTo(ax.events(), "IGNORED")).as("a late report of a cancelled one is stale").hasSize(1);
        }
    }

    @Test
    void shouldHoldExecutionsBesideEachOtherAtAFlowGateAndReleaseEverySlotOnCancel() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.pipeRaw(ax.topics.limits(), "type:sync".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                    "{\"maxInFlight\":1}".getBytes(java.nio.charset.StandardCharsets.UTF_8), ax.nowMs());
            Dispatched first = firstInFlight(ax, "");
            ax.advanceMs(SECOND);
            assertThat(runs(ax)).as("the second waits at the gate: the first holds its only slot").isEmpty();
            ax.advanceMs(SECOND);
            assertThat(runs(ax)).isEmpty();
            StoredTask stored = ax.storedTask("p");
            assertThat(stored.getAlongside()).as("the first in flight and the second held, beside the third (held)").hasSize(2);

            report(ax, first, "SUCCEEDED");
            Dispatched second = runs(ax).get(0);
            assertThat(second.executionId()).isNotEqualTo(first.executionId());
            ax.discardEvents();

            ax.request("p", "{\"cancel\":true}");
            List<JsonNode> cancelled = withTo(ax.events(), "CANCELLED");
            assertThat(cancelled).hasSizeGreaterThanOrEqualTo(2);
            assertThat(ax.dispatches()).filteredOn(d -> d.task().getKind() == DispatchKind.CANCEL)
                    .as("a signal for the one dispatched, none for the one never dispatched").extracting(Dispatched::executionId)
                    .containsExactly(second.executionId());
            ax.request("other", "{\"jobType\":\"sync\",\"delayMs\":0}");
            ax.advanceMs(TICK_MS);
            assertThat(runs(ax)).as("every slot was given back: another task of the type runs")
                    .extracting(Dispatched::key).containsExactly("other");
        }
    }
}
