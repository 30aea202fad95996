package io.ax.app.internal.topology;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.ax.AxHeaders;
import io.ax.app.internal.topology.SchedulerHarness.Dispatched;
import io.ax.schema.StoredTask;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 14 part B under TopologyTestDriver: the overlap policy QUEUE_ONE (one occurrence waits for the execution in
 * flight, further ones are SKIPPED), pausing and resuming a periodic task, and updating its schedule with
 * {@code ifExists=UPDATE} while an execution is in flight.
 */
class OverlapPauseUpdateTest {
    private static final long SECOND = 1000;
    private static final long TICK_MS = 10;

    private static void report(SchedulerHarness ax, String taskId, Dispatched d, String status) {
        ax.report(taskId, "{\"executionId\":\"" + d.executionId() + "\",\"attempt\":" + d.task().getAttempt()
                + ",\"status\":\"" + status + "\"}");
    }

    private static List<JsonNode> withTo(List<JsonNode> events, String to) {
        return events.stream().filter(e -> e.get("to").asText().equals(to)).toList();
    }

    private static String at(long ms) {
        return Instant.ofEpochMilli(ms).toString();
    }

    /** A 1 s interval task; its first occurrence fires and is left in flight. Returns that dispatch. */
    private static Dispatched firstInFlight(SchedulerHarness ax, String options) {
        ax.request("p", "{\"jobType\":\"sync\",\"everyMs\":1000" + options + "}");
        ax.advanceMs(SECOND + TICK_MS);
        List<Dispatched> dispatched = ax.dispatches();
        assertThat(dispatched).hasSize(1);
        ax.discardEvents();
        return dispatched.get(0);
    }

    // ---- overlap QUEUE_ONE ----

    @Test
    void shouldHoldOneOccurrenceWhileTheExecutionIsInFlightAndRunItWhenThatEnds() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            Dispatched first = firstInFlight(ax, ",\"overlap\":\"QUEUE_ONE\"");
            long secondDue = first.task().getDueAtMs() + SECOND;

            ax.advanceMs(SECOND);
            assertThat(ax.dispatches()).as("the second occurrence waits").isEmpty();
            JsonNode held = withTo(ax.events(), "PENDING").get(0);
            assertThat(held.get("from").asText()).isEqualTo("PENDING");
            assertThat(held.get("dueAt").asText()).isEqualTo(at(secondDue));
            assertThat(held.get("reason").asText()).contains("held: previous execution " + first.executionId())
                    .contains("overlap QUEUE_ONE");
            assertThat(ax.storedTask("p").getQueuedDueAtMs()).isEqualTo(secondDue);

            ax.advanceMs(SECOND);
            assertThat(ax.dispatches()).isEmpty();
            JsonNode skipped = withTo(ax.events(), "SKIPPED").get(0);
            assertThat(skipped.get("dueAt").asText()).isEqualTo(at(secondDue + SECOND));
            assertThat(skipped.get("reason").asText()).contains("the occurrence due " + at(secondDue) + " already waits");

            report(ax, "p", first, "SUCCEEDED");
            Dispatched queued = ax.dispatches().get(0);
            assertThat(queued.task().getDueAtMs()).as("dispatched at once, with its own due time").isEqualTo(secondDue);
            assertThat(queued.executionId()).isNotEqualTo(first.executionId());
            JsonNode triggered = withTo(ax.events(), "TRIGGERED").get(0);
            assertThat(triggered.get("executionId").asText()).isEqualTo(queued.executionId());
            assertThat(triggered.get("reason").asText()).contains("queued behind execution " + first.executionId())
                    .contains("ended SUCCESS");
            assertThat(ax.storedTask("p").getQueuedDueAtMs()).isNull();

            report(ax, "p", queued, "SUCCEEDED");
            ax.advanceMs(SECOND);
            assertThat(ax.dispatches()).as("the grid goes on").singleElement()
                    .satisfies(d -> assertThat(d.task().getDueAtMs()).isEqualTo(secondDue + 2 * SECOND));
        }
    }

    @Test
    void shouldRunTheQueuedOccurrenceWhenTheOlderExecutionTimesOut() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            Dispatched first = firstInFlight(ax, ",\"overlap\":\"QUEUE_ONE\",\"timeoutMs\":2500,\"maxRetries\":0");
            ax.advanceMs(SECOND);
            assertThat(ax.dispatches()).isEmpty();
            ax.advanceMs(2 * SECOND); // the first execution's timeout passed: FAILED (no retries left)
            List<JsonNode> events = ax.events();
            assertThat(withTo(events, "FAILED")).singleElement()
                    .satisfies(e -> assertThat(e.get("executionId").asText()).isEqualTo(first.executionId()));
            List<Dispatched> dispatched = ax.dispatches();
            assertThat(dispatched).filteredOn(d -> d.task().getDueAtMs() == first.task().getDueAtMs() + SECOND)
                    .as("the queued occurrence ran once the older one timed out").hasSize(1);
        }
    }

    @Test
    void shouldKeepTheQueuedOccurrenceWaitingWhileTheOlderExecutionRetries() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            Dispatched first = firstInFlight(ax, ",\"overlap\":\"QUEUE_ONE\",\"backoffIntervalsMs\":[5000],\"jitter\":false");
            ax.advanceMs(SECOND);
            report(ax, "p", first, "FAILED"); // retryable: RETRY_WAITING, still in flight
            ax.retryBytes("p", io.ax.codec.WireCodec.encode(ax.retries().get(0)));
            assertThat(ax.dispatches()).as("the queued one waits through the backoff").isEmpty();
            assertThat(ax.storedTask("p").getQueuedDueAtMs()).isNotNull();

            ax.advanceMs(5 * SECOND);
            List<Dispatched> retried = ax.dispatches().stream().filter(d -> d.executionId().equals(first.executionId())).toList();
            assertThat(retried).singleElement().satisfies(d -> assertThat(d.task().getAttempt()).isEqualTo(2));
            assertThat(ax.storedTask("p").getQueuedDueAtMs()).isNotNull();

            report(ax, "p", retried.get(0), "SUCCEEDED");
            assertThat(ax.dispatches()).singleElement().satisfies(d -> {
                assertThat(d.executionId()).isNotEqualTo(first.executionId());
                assertThat(d.task().getDueAtMs()).isEqualTo(first.task().getDueAtMs() + SECOND);
            });
        }
    }

    @Test
    void shouldCancelTheQueuedOccurrenceWithTheTask() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            Dispatched first = firstInFlight(ax, ",\"overlap\":\"QUEUE_ONE\"");
            ax.advanceMs(SECOND);
            ax.discardEvents();
            ax.request("p", "{\"cancel\":true}");
            List<JsonNode> cancelled = withTo(ax.events(), "CANCELLED");
            assertThat(cancelled).anySatisfy(e -> assertThat(e.get("reason").asText()).contains("queued behind the execution in flight"));
            report(ax, "p", first, "SUCCEEDED");
            ax.advanceMs(5 * SECOND);
            assertThat(ax.dispatches()).allSatisfy(d -> assertThat(d.header(AxHeaders.KIND)).isEqualTo("CANCEL"));
            assertThat(ax.storedTask("p").getQueuedDueAtMs()).isNull();
        }
    }

    @Test
    void shouldStillSkipAnOverlappingOccurrenceByDefault() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            Dispatched first = firstInFlight(ax, "");
            ax.advanceMs(SECOND);
            assertThat(withTo(ax.events(), "SKIPPED")).singleElement()
                    .satisfies(e -> assertThat(e.get("reason").asText()).startsWith("overlap: previous execution " + first.executionId()));
            report(ax, "p", first, "SUCCEEDED");
            assertThat(ax.dispatches()).isEmpty();
        }
    }

    // ---- pause and resume ----

    @Test
    void shouldFireNothingWhilePausedAndSkipWhatCameDueAsOneEventOnResume() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("p", "{\"jobType\":\"sync\",\"everyMs\":1000}");
            long firstDue = ax.storedTask("p").getNextDueAtMs();
            ax.discardEvents();
            ax.request("p", "{\"pause\":true,\"reason\":\"maintenance\"}");
            JsonNode paused = ax.events().get(0);
            assertThat(paused.get("to").asText()).isEqualTo("PENDING");
            assertThat(paused.get("from").asText()).isEqualTo("PENDING");
            assertThat(paused.get("reason").asText()).startsWith("paused by request: maintenance");
            assertThat(ax.storedTask("p").getPausedAtMs()).isEqualTo(ax.nowMs());

            ax.advanceMs(5 * SECOND + 500);
            assertThat(ax.dispatches()).isEmpty();
            assertThat(ax.events()).isEmpty();

            ax.request("p", "{\"resume\":true}");
            List<JsonNode> events = ax.events();
            JsonNode skipped = withTo(events, "SKIPPED").get(0);
            assertThat(skipped.get("skipped").asLong()).isEqualTo(5);
            assertThat(skipped.get("dueAt").asText()).isEqualTo(at(firstDue));
            assertThat(skipped.get("lastDueAt").asText()).isEqualTo(at(firstDue + 4 * SECOND));
            assertThat(skipped.get("reason").asText()).startsWith("paused: 5 occurrence(s) came due while the task was paused");
            JsonNode pending = withTo(events, "PENDING").get(0);
            assertThat(pending.get("dueAt").asText()).as("the first after now, on the grid").isEqualTo(at(firstDue + 5 * SECOND));
            assertThat(pending.get("reason").asText()).startsWith("resumed by request");
            assertThat(ax.storedTask("p").getOccurrences()).isEqualTo(5);

            ax.advanceMs(SECOND);
            assertThat(ax.dispatches()).singleElement()
                    .satisfies(d -> assertThat(d.task().getDueAtMs()).isEqualTo(firstDue + 5 * SECOND));
        }
    }

    @Test
    void shouldLeaveTheExecutionInFlightAloneWhilePaused() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            Dispatched first = firstInFlight(ax, ",\"overlap\":\"QUEUE_ONE\"");
            ax.request("p", "{\"pause\":true}");
            assertThat(ax.events().get(0).get("reason").asText()).contains("execution " + first.executionId() + " keeps running");
            ax.advanceMs(3 * SECOND);
            report(ax, "p", first, "SUCCEEDED");
            assertThat(withTo(ax.events(), "SUCCESS")).singleElement()
                    .satisfies(e -> assertThat(e.get("executionId").asText()).isEqualTo(first.executionId()));
            assertThat(ax.dispatches()).as("no occurrence queued or fired while paused").isEmpty();
            ax.request("p", "{\"resume\":true}");
            ax.advanceMs(SECOND);
            assertThat(ax.dispatches()).hasSize(1);
        }
    }

    @Test
    void shouldResumeAtTheHeldOccurrenceWhenItIsNotDueYet() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("p", "{\"jobType\":\"sync\",\"everyMs\":60000}");
            long due = ax.storedTask("p").getNextDueAtMs();
            ax.request("p", "{\"pause\":true}");
            ax.advanceMs(SECOND);
            ax.request("p", "{\"resume\":true}");
            assertThat(withTo(ax.events(), "SKIPPED")).isEmpty();
            ax.advanceMs(due - 1 - ax.nowMs()); // loads the timer from the index; the next tick fires it
            ax.advanceMs(TICK_MS + 1);
            assertThat(ax.dispatches()).singleElement().satisfies(d -> assertThat(d.task().getDueAtMs()).isEqualTo(due));
        }
    }

    @Test
    void shouldFinishATaskWhoseLastOccurrencesCameDueWhilePaused() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("p", "{\"jobType\":\"sync\",\"everyMs\":1000,\"maxOccurrences\":3}");
            ax.request("p", "{\"pause\":true}");
            ax.advanceMs(10 * SECOND);
            ax.discardEvents();
            ax.request("p", "{\"resume\":true}");
            JsonNode skipped = withTo(ax.events(), "SKIPPED").get(0);
            assertThat(skipped.get("skipped").asLong()).as("only the three the task had left").isEqualTo(3);
            assertThat(ax.storedTask("p").getNextDueAtMs()).isNull();
            assertThat(ax.storedTask("p").getFinishedAtMs()).isNotNull();
            ax.request("p", "{\"pause\":true}");
            assertThat(withTo(ax.events(), "IGNORED")).singleElement()
                    .satisfies(e -> assertThat(e.get("reason").asText()).startsWith("pause: task already ended"));
        }
    }

    @Test
    void shouldIgnoreAPauseOrResumeThatDoesNotApplyWithTheReason() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("nobody", "{\"pause\":true}");
            ax.request("once", "{\"jobType\":\"a\",\"delayMs\":60000}");
            ax.request("once", "{\"pause\":true}");
            ax.request("p", "{\"jobType\":\"sync\",\"everyMs\":1000}");
            ax.request("p", "{\"resume\":true}");
            ax.request("p", "{\"pause\":true}");
            ax.request("p", "{\"pause\":true}");
            ax.request("p", "{\"trigger\":true}");
            ax.request("nobody", "{\"resume\":true}");
            List<String> ignored = withTo(ax.events(), "IGNORED").stream().map(e -> e.get("reason").asText()).toList();
            assertThat(ignored).hasSize(6);
            assertThat(ignored.get(0)).isEqualTo("pause: no such task");
            assertThat(ignored.get(1)).startsWith("pause: a one-shot task has no occurrences to pause");
            assertThat(ignored.get(2)).isEqualTo("resume: the task is not paused");
            assertThat(ignored.get(3)).startsWith("pause: already paused since");
            assertThat(ignored.get(4)).contains("the task is paused since").contains("resume it first");
            assertThat(ignored.get(5)).isEqualTo("resume: no such task");
        }
    }

    // ---- update ----

    @Test
    void shouldUpdateTheScheduleAndKeepTheExecutionInFlight() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            Dispatched first = firstInFlight(ax, ",\"maxRetries\":2");
            report(ax, "p", first, "STARTED");
            long oldNext = ax.storedTask("p").getNextDueAtMs();
            ax.discardEvents();

            ax.request("p", "{\"jobType\":\"sync\",\"everyMs\":10000,\"ifExists\":\"UPDATE\"}");
            StoredTask updated = ax.storedTask("p");
            assertThat(updated.getExecution().getExecutionId()).isEqualTo(first.executionId());
            assertThat(updated.getExecution().getAttempt()).isEqualTo(1);
            assertThat(updated.getExecution().getState().name()).isEqualTo("RUNNING");
            long newNext = updated.getNextDueAtMs();
            assertThat(newNext).isEqualTo(ax.nowMs() + 10_000);
            List<JsonNode> events = ax.events();
            assertThat(withTo(events, "CANCELLED")).singleElement().satisfies(e -> {
                assertThat(e.get("dueAt").asText()).isEqualTo(at(oldNext));
                assertThat(e.get("reason").asText()).contains("schedule updated").contains("not on the new schedule");
            });
            assertThat(withTo(events, "PENDING")).singleElement().satisfies(e -> {
                assertThat(e.get("dueAt").asText()).isEqualTo(at(newNext));
                assertThat(e.get("reason").asText()).contains("(ifExists=UPDATE)")
                        .contains("execution " + first.executionId() + " keeps running (attempt 1)");
            });
            assertThat(ax.dispatches()).as("no CANCEL for the execution in flight").isEmpty();

            ax.advanceMs(oldNext - ax.nowMs() + TICK_MS);
            assertThat(ax.dispatches()).as("the old schedule's occurrence does not fire").isEmpty();
            assertThat(withTo(ax.events(), "SKIPPED")).isEmpty();
            report(ax, "p", first, "SUCCEEDED");
            assertThat(withTo(ax.events(), "SUCCESS")).hasSize(1);
            ax.advanceMs(newNext - 1 - ax.nowMs()); // loads the timer from the index; the next tick fires it
            ax.advanceMs(TICK_MS + 1);
            assertThat(ax.dispatches()).singleElement().satisfies(d -> assertThat(d.task().getDueAtMs()).isEqualTo(newNext));
        }
    }

    @Test
    void shouldApplyAFailureOfTheExecutionInFlightWithTheUpdatedRetries() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            Dispatched first = firstInFlight(ax, ",\"maxRetries\":3");
            ax.request("p", "{\"jobType\":\"sync\",\"cron\":\"0 3 * * *\",\"maxRetries\":0,\"ifExists\":\"UPDATE\"}");
            ax.discardEvents();
            report(ax, "p", first, "FAILED");
            assertThat(withTo(ax.events(), "FAILED")).as("no retry left under the new options").hasSize(1);
            assertThat(ax.storedTask("p").getRequest().getTrigger()).isInstanceOf(io.ax.schema.CronTrigger.class);
            assertThat(ax.storedTask("p").getFinishedAtMs()).as("the cron task lives on").isNull();
        }
    }

    @Test
    void shouldIgnoreAnUpdateOfAOneShotAndScheduleANewTaskWhenNoneIsLive() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("once", "{\"jobType\":\"a\",\"delayMs\":60000}");
            ax.request("once", "{\"jobType\":\"a\",\"everyMs\":1000,\"ifExists\":\"UPDATE\"}");
            ax.request("p", "{\"jobType\":\"a\",\"everyMs\":1000}");
            ax.request("p", "{\"jobType\":\"a\",\"delayMs\":5,\"ifExists\":\"UPDATE\"}");
            ax.request("fresh", "{\"jobType\":\"a\",\"everyMs\":1000,\"ifExists\":\"UPDATE\"}");
            List<JsonNode> events = ax.events();
            assertThat(withTo(events, "IGNORED")).extracting(e -> e.get("reason").asText())
                    .satisfiesExactly(r -> assertThat(r).contains("this task is a one-shot").contains("use ifExists=REPLACE"),
                            r -> assertThat(r).contains("the request is a one-shot"));
            assertThat(ax.storedTask("fresh").getNextDueAtMs()).isNotNull();
            assertThat(ax.storedTask("once").getRequest().getTrigger()).isInstanceOf(io.ax.schema.AtTrigger.class);
        }
    }

    @Test
    void shouldTimeTheNextOccurrenceOnTheNewGridWhenItsStartIsPast() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("p", "{\"jobType\":\"a\",\"everyMs\":60000}");
            ax.advanceMs(2500);
            String start = at(ax.nowMs() - 2000);
            ax.request("p", "{\"jobType\":\"a\",\"everyMs\":3000,\"startAt\":\"" + start + "\",\"ifExists\":\"UPDATE\"}");
            assertThat(ax.storedTask("p").getNextDueAtMs()).as("the first after now on start + n x 3 s")
                    .isEqualTo(Instant.parse(start).toEpochMilli() + 3000);
        }
    }

    @Test
    void shouldKeepAnUpdatedTaskPaused() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("p", "{\"jobType\":\"a\",\"everyMs\":1000}");
            ax.request("p", "{\"pause\":true}");
            ax.request("p", "{\"jobType\":\"a\",\"everyMs\":2000,\"ifExists\":\"UPDATE\"}");
            assertThat(withTo(ax.events(), "PENDING")).last()
                    .satisfies(e -> assertThat(e.get("reason").asText()).contains("the task stays paused"));
            ax.advanceMs(10 * SECOND);
            assertThat(ax.dispatches()).isEmpty();
        }
    }
}
