package io.ax.app.internal.topology;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.ax.AxHeaders;
import io.ax.app.internal.topology.SchedulerHarness.Dispatched;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Periodic tasks under TopologyTestDriver with the wall clock driven across real daylight-saving transitions and
 * across downtimes (the clock jumps past occurrences while nothing runs, as a scheduler that was stopped sees it on
 * restart): the DST rules of {@code CronSchedule}, the misfire policies for interval and cron, end, maximum count and
 * jitter.
 */
class PeriodicTasksTest {
    private static final long MINUTE = 60_000;
    private static final long TICK_MS = 10;

    /**
     * The clock jumps to {@code atMs} (nothing ran in between: a scheduler stopped, or stalled), then runs one tick:
     * under the test driver a jump is one punctuation, which loads the timers the jump made due from the index; the
     * tick after it fires them, as a restarted scheduler's next punctuation does.
     */
    private static void jumpTo(SchedulerHarness ax, long atMs) {
        ax.advanceMs(atMs - ax.nowMs());
        ax.advanceMs(TICK_MS);
    }

    /** Moves the clock to {@code instant} (ISO-8601). */
    private static void advanceTo(SchedulerHarness ax, String instant) {
        ax.advance(Duration.between(ax.now(), Instant.parse(instant)));
    }

    /** The due time of the latest PENDING event among {@code events}. */
    private static long pendingDue(List<JsonNode> events) {
        JsonNode pending = null;
        for (JsonNode e : events) {
            if (e.get("to").asText().equals("PENDING")) {
                pending = e;
            }
        }
        assertThat(pending).as("a PENDING event in %s", events).isNotNull();
        return Instant.parse(pending.get("dueAt").asText()).toEpochMilli();
    }

    private static void succeed(SchedulerHarness ax, String taskId, Dispatched d) {
        ax.report(taskId, "{\"executionId\":\"" + d.executionId() + "\",\"attempt\":1,\"status\":\"SUCCEEDED\"}");
    }

    /**
     * Lets the task fire {@code n} times, each run succeeding: for each, the clock moves to 1 ms before the announced
     * due time (nothing may fire), then past it by a tick (exactly one dispatch, due then). Returns the due times as
     * offset date-times in {@code zone}.
     */
    private static List<String> fire(SchedulerHarness ax, String taskId, int n, ZoneId zone) {
        List<String> fired = new ArrayList<>();
        long dueMs = pendingDue(ax.events());
        for (int i = 0; i < n; i++) {
            ax.advanceMs(dueMs - 1 - ax.nowMs());
            assertThat(ax.dispatches()).as("nothing before %s", Instant.ofEpochMilli(dueMs)).isEmpty();
            ax.advanceMs(TICK_MS + 1);
            List<Dispatched> dispatched = ax.dispatches();
            assertThat(dispatched).hasSize(1);
            assertThat(dispatched.get(0).task().getDueAtMs()).isEqualTo(dueMs);
            fired.add(OffsetDateTime.ofInstant(Instant.ofEpochMilli(dueMs), zone).toString());
            succeed(ax, taskId, dispatched.get(0));
            List<JsonNode> events = ax.events();
            assertThat(events).noneMatch(e -> e.get("to").asText().equals("SKIPPED"));
            if (i + 1 < n) {
                dueMs = pendingDue(events);
            }
        }
        return fired;
    }

    @ParameterizedTest(name = "{0} {1} from {2}")
    @CsvSource(delimiter = '|', value = {
            // spring forward: 02:00 EST -> 03:00 EDT; 02:30 does not exist that day and fires at 03:00
            "America/New_York    | 30 2 * * *    | 2027-03-13T00:00:00Z | 2027-03-13T02:30-05:00 2027-03-14T03:00-04:00 2027-03-15T02:30-04:00",
            // fall back: 01:00-02:00 happens twice; 01:30 fires at the first
            "America/New_York    | 30 1 * * *    | 2027-11-06T00:00:00Z | 2027-11-06T01:30-04:00 2027-11-07T01:30-04:00 2027-11-08T01:30-05:00",
            // every 30 minutes through the repeated hour: nothing fires in its second pass
            "America/New_York    | */30 * * * *  | 2027-11-07T04:40:00Z | 2027-11-07T01:00-04:00 2027-11-07T01:30-04:00 2027-11-07T02:00-05:00 2027-11-07T02:30-05:00",
            "Europe/Berlin       | 30 2 * * *    | 2027-03-27T00:00:00Z | 2027-03-27T02:30+01:00 2027-03-28T03:00+02:00 2027-03-29T02:30+02:00",
            "Europe/Berlin       | 30 2 * * *    | 2027-10-30T00:00:00Z | 2027-10-30T02:30+02:00 2027-10-31T02:30+02:00 2027-11-01T02:30+01:00",
            // Lord Howe moves its clocks by 30 minutes: 02:00 -> 02:30 in October, 02:00 -> 01:30 in April
            "Australia/Lord_Howe | 15 2 * * *    | 2027-10-01T12:00:00Z | 2027-10-02T02:15+10:30 2027-10-03T02:30+11:00 2027-10-04T02:15+11:00",
            "Australia/Lord_Howe | 45 1 * * *    | 2027-04-02T12:00:00Z | 2027-04-03T01:45+11:00 2027-04-04T01:45+11:00 2027-04-05T01:45+10:30",
            "Australia/Lord_Howe | 0 */15 1 * * ? | 2027-04-03T14:20:00Z | 2027-04-04T01:30+11:00 2027-04-04T01:45+11:00 2027-04-05T01:00+10:30",
    })
    void shouldKeepFiringACronTaskOnceForEachLocalTimeAcrossADaylightSavingChange(String zone, String cron, String from,
                                                                                   String expected) {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            advanceTo(ax, from);
            ax.request("c", "{\"jobType\":\"report\",\"cron\":\"" + cron + "\",\"zone\":\"" + zone + "\"}");
            List<String> want = List.of(expected.split(" "));
            assertThat(fire(ax, "c", want.size(), ZoneId.of(zone))).containsExactlyElementsOf(want);
        }
    }

    // ---- misfire policies across a downtime: the same grid as an interval and as a cron ----

    /** Every minute from T0: first due T0 + 1 min, either way. */
    private static String everyMinute(String trigger) {
        return trigger.equals("interval") ? "\"everyMs\":60000" : "\"cron\":\"* * * * *\"";
    }

    private static long t(long minutes) {
        return SchedulerHarness.T0.toEpochMilli() + minutes * MINUTE;
    }

    /** Requests the task, lets the first occurrence (T0 + 1 min) run and succeed, then the scheduler is down until T0 + 11.5 min. */
    private static void runOnceThenGoDown(SchedulerHarness ax, String trigger, String options) {
        ax.request("p", "{\"jobType\":\"sync\"," + everyMinute(trigger) + options + "}");
        jumpTo(ax, t(1));
        Dispatched first = ax.dispatches().get(0);
        assertThat(first.task().getDueAtMs()).isEqualTo(t(1));
        succeed(ax, "p", first);
        ax.discardEvents();
        jumpTo(ax, t(11) + 30_000); // down from before T0 + 2 min until T0 + 11.5 min: ten occurrences missed
    }

    private static JsonNode only(List<JsonNode> events, String to) {
        List<JsonNode> matching = events.stream().filter(e -> e.get("to").asText().equals(to)).toList();
        assertThat(matching).as("one %s in %s", to, events).hasSize(1);
        return matching.get(0);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"interval", "cron"})
    void shouldRunTheFirstMissedOccurrenceOnceAndCoalesceTheRestUnderFireOnce(String trigger) {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            runOnceThenGoDown(ax, trigger, "");
            List<Dispatched> fired = ax.dispatches();
            assertThat(fired).hasSize(1);
            assertThat(fired.get(0).task().getDueAtMs()).isEqualTo(t(2));
            List<JsonNode> events = ax.events();
            JsonNode skipped = only(events, "SKIPPED");
            assertThat(skipped.get("skipped").asLong()).isEqualTo(9);
            assertThat(skipped.get("dueAt").asText()).isEqualTo("2026-12-01T00:03:00Z");
            assertThat(skipped.get("lastDueAt").asText()).isEqualTo("2026-12-01T00:11:00Z");
            assertThat(skipped.get("reason").asText()).contains("coalesced", "FIRE_ONCE");
            assertThat(pendingDue(events)).isEqualTo(t(12));
            assertThat(ax.storedTask("p").getOccurrences()).isEqualTo(11);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"interval", "cron"})
    void shouldRunNoneOfTheMissedOccurrencesUnderSkip(String trigger) {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            runOnceThenGoDown(ax, trigger, ",\"misfire\":\"SKIP\"");
            assertThat(ax.dispatches()).isEmpty();
            List<JsonNode> events = ax.events();
            assertThat(events).extracting(e -> e.get("to").asText()).containsExactly("SKIPPED", "SKIPPED", "PENDING");
            assertThat(events.get(0).get("dueAt").asText()).isEqualTo("2026-12-01T00:02:00Z");
            assertThat(events.get(0).get("reason").asText()).contains("ms after its due time", "misfire SKIP");
            assertThat(events.get(1).get("skipped").asLong()).isEqualTo(9);
            assertThat(events.get(1).get("dueAt").asText()).isEqualTo("2026-12-01T00:03:00Z");
            assertThat(pendingDue(events)).isEqualTo(t(12));

            ax.advanceMs(t(12) - 1 - ax.nowMs());
            assertThat(ax.dispatches()).isEmpty();
            ax.advanceMs(TICK_MS + 1);
            assertThat(ax.dispatches()).as("the next future occurrence runs").singleElement()
                    .satisfies(d -> assertThat(d.task().getDueAtMs()).isEqualTo(t(12)));
        }
    }

    @Test
    void shouldRunAnOccurrenceFiredWithinTheMisfireThresholdUnderSkip() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("p", "{\"jobType\":\"sync\",\"everyMs\":60000,\"misfire\":\"SKIP\"}");
            jumpTo(ax, t(1) + 59_000); // 59 s late: within the default 60 s threshold
            assertThat(ax.dispatches()).singleElement().satisfies(d -> assertThat(d.task().getDueAtMs()).isEqualTo(t(1)));
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"interval", "cron"})
    void shouldRunEveryMissedOccurrenceInOrderOneAtATimeUnderFireAllBoundedByMaxCatchUp(String trigger) {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            runOnceThenGoDown(ax, trigger, ",\"misfire\":\"FIRE_ALL\",\"maxCatchUp\":3");
            List<Long> ran = new ArrayList<>();
            Dispatched current = ax.dispatches().get(0);
            ran.add(current.task().getDueAtMs());
            JsonNode skipped = only(ax.events(), "SKIPPED");
            assertThat(skipped.get("skipped").asLong()).as("ten missed, the three latest wait").isEqualTo(6);
            assertThat(skipped.get("dueAt").asText()).isEqualTo("2026-12-01T00:03:00Z");
            assertThat(skipped.get("lastDueAt").asText()).isEqualTo("2026-12-01T00:08:00Z");
            for (int i = 0; i < 3; i++) {
                ax.advanceMs(5 * TICK_MS);
                assertThat(ax.dispatches()).as("one at a time: not while %s runs", current.executionId()).isEmpty();
                succeed(ax, "p", current);
                ax.advanceMs(TICK_MS);
                List<Dispatched> next = ax.dispatches();
                assertThat(next).hasSize(1);
                current = next.get(0);
                ran.add(current.task().getDueAtMs());
            }
            assertThat(ran).containsExactly(t(2), t(9), t(10), t(11));
            succeed(ax, "p", current);
            assertThat(pendingDue(ax.events())).as("caught up: the next one is in the future").isEqualTo(t(12));
            ax.advanceMs(t(12) - 1 - ax.nowMs());
            assertThat(ax.dispatches()).isEmpty();
        }
    }

    @Test
    void shouldRunNoHeldCatchUpOccurrenceOnceTheTaskIsCancelled() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            runOnceThenGoDown(ax, "interval", ",\"misfire\":\"FIRE_ALL\"");
            Dispatched current = ax.dispatches().get(0);
            ax.advanceMs(5 * TICK_MS); // the next missed occurrence came due and waits for this execution
            assertThat(ax.storedTask("p").getCatchUpHeld()).isTrue();
            ax.request("p", "{\"cancel\":true}");
            succeed(ax, "p", current);
            ax.advanceMs(MINUTE);
            assertThat(ax.dispatches()).as("only the cancel signal of the running execution").allSatisfy(d ->
                    assertThat(d.header(AxHeaders.KIND)).isEqualTo("CANCEL"));
            assertThat(ax.storedTask("p").getCancelled()).isTrue();
        }
    }

    @Test
    void shouldCountMissedCronOccurrencesByLocalTimeAcrossTheRepeatedHour() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            advanceTo(ax, "2027-11-07T04:10:00Z"); // 00:10 EDT
            ax.request("c", "{\"jobType\":\"r\",\"cron\":\"*/30 * * * *\",\"zone\":\"America/New_York\"}");
            assertThat(fire(ax, "c", 1, ZoneId.of("America/New_York"))).containsExactly("2027-11-07T00:30-04:00");
            jumpTo(ax, Instant.parse("2027-11-07T07:10:00Z").toEpochMilli()); // down until 02:10 EST
            assertThat(ax.dispatches()).singleElement()
                    .satisfies(d -> assertThat(d.task().getDueAtMs()).isEqualTo(Instant.parse("2027-11-07T05:00:00Z").toEpochMilli()));
            List<JsonNode> events = ax.events();
            JsonNode skipped = only(events, "SKIPPED");
            assertThat(skipped.get("skipped").asLong()).as("01:30 EDT and 02:00 EST; not 01:00 and 01:30 EST").isEqualTo(2);
            assertThat(skipped.get("dueAt").asText()).isEqualTo("2027-11-07T05:30:00Z");
            assertThat(skipped.get("lastDueAt").asText()).isEqualTo("2027-11-07T07:00:00Z");
            assertThat(pendingDue(events)).isEqualTo(Instant.parse("2027-11-07T07:30:00Z").toEpochMilli());
        }
    }

    // ---- end, maximum count, jitter ----

    @Test
    void shouldStopAfterTheMaximumCountAndFinish() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("p", "{\"jobType\":\"sync\",\"everyMs\":1000,\"maxOccurrences\":3}");
            assertThat(fire(ax, "p", 3, ZoneId.of("UTC"))).hasSize(3);
            ax.advanceMs(10_000);
            assertThat(ax.dispatches()).isEmpty();
            assertThat(ax.storedTask("p").getNextDueAtMs()).isNull();
            assertThat(ax.storedTask("p").getFinishedAtMs()).as("finished once its last run ended").isNotNull();
        }
    }

    @Test
    void shouldFireNoOccurrenceAfterTheEnd() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("c", "{\"jobType\":\"r\",\"cron\":\"0 0 12 * * ?\",\"endAt\":\"2026-12-03T12:00:00Z\"}");
            assertThat(fire(ax, "c", 3, ZoneId.of("UTC")))
                    .containsExactly("2026-12-01T12:00Z", "2026-12-02T12:00Z", "2026-12-03T12:00Z");
            ax.advance(Duration.ofDays(3));
            assertThat(ax.dispatches()).isEmpty();
            assertThat(ax.storedTask("c").getFinishedAtMs()).isNotNull();
        }
    }

    @Test
    void shouldSpreadAFleetOfEveryMinuteTasksOverTheJitterWindowNeverBeforeEachTasksDueTime() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            for (int i = 0; i < 200; i++) {
                ax.request("fleet-" + i, "{\"jobType\":\"sync\",\"cron\":\"* * * * *\",\"occurrenceJitterMs\":30000}");
            }
            ax.advanceMs(MINUTE - 1);
            assertThat(ax.dispatches()).as("nothing before the nominal time").isEmpty();
            Set<Long> ticksWithAFire = new HashSet<>();
            int fired = 0;
            while (ax.nowMs() <= t(1) + 30_000 + TICK_MS) {
                ax.advanceMs(250);
                for (Dispatched d : ax.dispatches()) {
                    long dueMs = Long.parseLong(d.header(AxHeaders.DUE_AT));
                    assertThat(dueMs).isBetween(t(1), t(1) + 30_000);
                    assertThat(ax.nowMs()).as("never early").isGreaterThanOrEqualTo(dueMs);
                    ticksWithAFire.add(ax.nowMs());
                    fired++;
                }
            }
            assertThat(fired).isEqualTo(200);
            assertThat(ticksWithAFire).as("spread over the window, not one tick").hasSizeGreaterThan(60);

            // Each task keeps its offset: its next occurrence is one minute after this one.
            long firstDue = ax.storedTask("fleet-7").getExecution().getDueAtMs();
            assertThat(ax.storedTask("fleet-7").getNextDueAtMs()).isEqualTo(firstDue + MINUTE);
        }
    }
}
