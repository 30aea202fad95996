package io.ax.app.internal.topology;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.ax.app.config.AxConfig;
import io.ax.app.internal.topology.SchedulerHarness.Dispatched;
import io.ax.codec.WireCodec;
import io.ax.schema.AdoptRequest;
import io.ax.schema.StoredTask;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Periodic tasks that wait for other tasks' occurrences (topology-docs/WORKFLOWS.md, "Periodic tasks that wait"),
 * through the whole topology, ax.deps piped back by the driver: A every minute, B every minute 30 s after it, B after A.
 */
class PeriodicDependenciesTest {
    private static final String A = "{\"jobType\":\"export\",\"everyMs\":60000,\"maxRetries\":0}";

    private static String b(String extra) {
        return "{\"jobType\":\"report\",\"everyMs\":60000,\"maxRetries\":0,\"after\":[{\"taskId\":\"a\",\"on\":\"SUCCESS\"}]" + extra + "}";
    }

    /** The clock moves by {@code ms}: a jump (one punctuation, loading the timers it made due), then a tick that fires them. */
    private static Map<String, Dispatched> advance(SchedulerHarness ax, long ms) {
        ax.advanceMs(ms - 10);
        ax.advanceMs(10);
        return ax.dispatches().stream().collect(Collectors.toMap(Dispatched::key, d -> d));
    }

    /** A at T+60 s, T+120 s, ...; B at T+90 s, T+150 s, ... */
    private static SchedulerHarness started(String bExtra) {
        SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir());
        ax.request("a", A);
        ax.advanceMs(30_000);
        ax.request("b", b(bExtra));
        assertThat(SchedulerHarness.eventsOf(ax.events(), "b")).extracting(SchedulerHarness::fromTo).containsExactly("->PENDING");
        return ax;
    }

    @Test
    void shouldRunEachOccurrenceAfterItsUpstreamsAndSkipThePeriodItFailed() {
        try (SchedulerHarness ax = started("")) {
            for (int period = 0; period < 4; period++) {
                Map<String, Dispatched> fired = advance(ax, 30_010);
                assertThat(fired).as("period %d: A fires", period).containsOnlyKeys("a");
                ax.discardEvents();
                ax.report(fired.get("a"), period == 1 ? "FAILED" : "SUCCEEDED");
                fired = advance(ax, 29_990);
                List<JsonNode> b = SchedulerHarness.eventsOf(ax.events(), "b");
                if (period == 1) {
                    assertThat(fired).as("period %d: B skipped", period).isEmpty();
                    JsonNode skipped = b.stream().filter(e -> "SKIPPED".equals(e.get("to").asText())).findFirst().orElseThrow();
                    assertThat(skipped.get("reason").asText()).startsWith("dependency not met in its period (")
                            .contains("a FAILED (due ", "not SUCCESS");
                } else {
                    assertThat(fired).as("period %d: B runs", period).containsOnlyKeys("b");
                    assertThat(b).extracting(SchedulerHarness::fromTo).contains("PENDING->TRIGGERED");
                    ax.report(fired.get("b"), "SUCCEEDED");
                }
            }
        }
    }

    /**
     * The seed's case on the calendar: the 01:30 export before the 02:00 report, every day in Europe/Berlin, across the
     * spring change (2027-03-28: 02:00 does not exist, the report's occurrence is at 03:00 CEST, `./ax cron-next`); the
     * export fails on the 27th, whose report is SKIPPED naming it, and every other day's report runs after that day's
     * export. Through the topology, the clock driven from one due time to the next.
     */
    @Test
    void shouldRunTheReportEachDayAfterThatDaysExportAndSkipTheDayItFailedAcrossTheSpringChange() {
        ZoneId berlin = ZoneId.of("Europe/Berlin");
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.advanceMs(Instant.parse("2027-03-25T12:00:00Z").toEpochMilli() - ax.nowMs());
            ax.request("a", "{\"jobType\":\"export\",\"cron\":\"30 1 * * *\",\"zone\":\"Europe/Berlin\",\"maxRetries\":0}");
            ax.request("b", "{\"jobType\":\"report\",\"cron\":\"0 2 * * *\",\"zone\":\"Europe/Berlin\",\"maxRetries\":0,"
                    + "\"after\":[{\"taskId\":\"a\",\"on\":\"SUCCESS\"}]}");
            for (int day = 26; day <= 29; day++) {
                LocalDate date = LocalDate.of(2027, 3, day);
                long exportDueMs = ZonedDateTime.of(date, LocalTime.of(1, 30), berlin).toInstant().toEpochMilli();
                long reportDueMs = ZonedDateTime.of(date, LocalTime.of(2, 0), berlin).toInstant().toEpochMilli(); // 03:00 CEST on the 28th
                Map<String, Dispatched> fired = advance(ax, exportDueMs + 10 - ax.nowMs());
                assertThat(fired).as("the %s: the export fires at 01:30", date).containsOnlyKeys("a");
                assertThat(fired.get("a").task().getDueAtMs()).isEqualTo(exportDueMs);
                ax.discardEvents();
                boolean fails = day == 27;
                ax.report(fired.get("a"), fails ? "FAILED" : "SUCCEEDED");
                fired = advance(ax, reportDueMs + 10 - ax.nowMs());
                List<JsonNode> b = SchedulerHarness.eventsOf(ax.events(), "b");
                if (fails) {
                    assertThat(fired).as("the %s: no report", date).isEmpty();
                    assertThat(b).as("the %s", date).anySatisfy(e -> {
                        assertThat(e.get("to").asText()).isEqualTo("SKIPPED");
                        assertThat(e.get("reason").asText()).contains("a FAILED (due ", "not SUCCESS");
                    });
                } else {
                    assertThat(fired).as("the %s: the report runs after that day's export", date).containsOnlyKeys("b");
                    assertThat(fired.get("b").task().getDueAtMs()).isEqualTo(reportDueMs);
                    assertThat(b).extracting(SchedulerHarness::fromTo).contains("PENDING->TRIGGERED");
                    ax.report(fired.get("b"), "SUCCEEDED");
                }
            }
        }
    }

    @Test
    void shouldHoldAnOccurrenceUntilItsUpstreamsOutcomeArrives() {
        try (SchedulerHarness ax = started("")) {
            Map<String, Dispatched> fired = advance(ax, 30_010);
            assertThat(fired).containsOnlyKeys("a");
            ax.discardEvents();
            assertThat(advance(ax, 30_000)).as("B due, A still running: held").isEmpty();
            List<JsonNode> held = SchedulerHarness.eventsOf(ax.events(), "b");
            assertThat(held).extracting(SchedulerHarness::fromTo).containsExactly("PENDING->PENDING");
            assertThat(held.get(0).get("reason").asText()).startsWith("held: waits for a (SUCCESS) in its period (start, ");
            long dueAtMs = java.time.Instant.parse(held.get(0).get("dueAt").asText()).toEpochMilli();
            assertThat(ax.storedTask("b").getWaitTimeoutAtMs()).as("1 ms before the next occurrence").isEqualTo(dueAtMs + 59_999);

            ax.advanceMs(5_000);
            ax.report(fired.get("a"), "SUCCEEDED");
            List<JsonNode> released = SchedulerHarness.eventsOf(ax.events(), "b");
            assertThat(released).extracting(SchedulerHarness::fromTo).contains("PENDING->TRIGGERED");
            assertThat(released).filteredOn(e -> "TRIGGERED".equals(e.get("to").asText())).singleElement()
                    .satisfies(e -> assertThat(e.get("reason").asText()).startsWith("every condition met in its period (start, ")
                            .endsWith("] (1)"));
            assertThat(ax.dispatches()).extracting(Dispatched::key).containsExactly("b");
            assertThat(ax.storedTask("b").getWaitTimeoutAtMs()).isNull();
            assertThat(ax.storedTask("b").getNextDueAtMs()).as("the next occurrence is timed").isNotNull();
        }
    }

    @Test
    void shouldSkipAnOccurrenceWhoseWaitEndsWithoutAnOutcome() {
        try (SchedulerHarness ax = started(",\"afterTimeoutMs\":5000")) {
            assertThat(advance(ax, 30_010)).containsOnlyKeys("a");
            assertThat(advance(ax, 30_000)).isEmpty();
            ax.discardEvents();
            assertThat(advance(ax, 5_000)).isEmpty();
            List<JsonNode> b = SchedulerHarness.eventsOf(ax.events(), "b");
            assertThat(b).extracting(SchedulerHarness::fromTo).containsExactly("->SKIPPED", "->PENDING");
            assertThat(b.get(0).get("reason").asText()).startsWith("dependency wait ended at ").contains("a (SUCCESS)");
        }
    }

    @Test
    void shouldWithdrawItsSubscriptionsWhenCancelledWhileAnOccurrenceWaits() {
        try (SchedulerHarness ax = started("")) {
            assertThat(advance(ax, 30_010)).containsOnlyKeys("a");
            assertThat(advance(ax, 30_000)).isEmpty();
            assertThat(ax.dependencyContents().keySet()).anyMatch(k -> k.get()[0] == 'q');
            ax.discardEvents();
            ax.request("b", "{\"cancel\":true}");
            assertThat(SchedulerHarness.eventsOf(ax.events(), "b")).extracting(SchedulerHarness::fromTo).containsExactly("PENDING->CANCELLED");
            assertThat(ax.dependencyContents().keySet()).noneMatch(k -> k.get()[0] == 'q');
            assertThat(ax.storedTask("b").getWaitTimeoutAtMs()).isNull();
        }
    }

    @Test
    void shouldSubscribeAfreshAndJudgeAHeldOccurrenceAgainWhenAdopted() {
        try (SchedulerHarness old = started("");
             SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir(), Map.of(AxConfig.ADOPT_ENABLED_CONFIG, true))) {
            assertThat(advance(old, 30_010)).containsOnlyKeys("a");
            assertThat(advance(old, 30_000)).as("held on the old deployment").isEmpty();
            StoredTask held = old.storedTask("b");
            assertThat(held.getWaitTimeoutAtMs()).isNotNull();
            ax.advanceMs(old.nowMs() - ax.nowMs());
            ax.requestBytes("b", WireCodec.encode(AdoptRequest.newBuilder().setTask(held).setFromApplicationId("ax-old")
                    .setFromTopic("old.requests").setFromPartition(0).setMigratedAtMs(old.nowMs()).build()));
            assertThat(ax.events()).as("adopted").extracting(e -> e.get("to").asText() + " " + e.get("reason")).noneMatch(e -> e.startsWith("REJECTED"));
            assertThat(ax.dependencyContents().keySet()).as("subscribed afresh here").anyMatch(k -> k.get()[0] == 'q');
            ax.discardEvents();
            assertThat(advance(ax, 20)).as("judged again: a has no outcome here yet").isEmpty();
            assertThat(SchedulerHarness.eventsOf(ax.events(), "b")).extracting(SchedulerHarness::fromTo).containsExactly("PENDING->PENDING");
            assertThat(ax.storedTask("b").getWaitTimeoutAtMs()).isEqualTo(held.getWaitTimeoutAtMs());
        }
    }

    @Test
    void shouldEndTheWaitAndMoveTheSubscriptionsWhenUpdated() {
        try (SchedulerHarness ax = started("")) {
            assertThat(advance(ax, 30_010)).containsOnlyKeys("a");
            assertThat(advance(ax, 30_000)).as("held").isEmpty();
            ax.discardEvents();
            ax.request("b", "{\"jobType\":\"report\",\"everyMs\":60000,\"ifExists\":\"UPDATE\",\"after\":[{\"taskId\":\"c\"}]}");
            List<JsonNode> b = SchedulerHarness.eventsOf(ax.events(), "b");
            assertThat(b).extracting(SchedulerHarness::fromTo).containsExactly("PENDING->CANCELLED", "->PENDING");
            assertThat(ax.storedTask("b").getWaitTimeoutAtMs()).isNull();
            assertThat(ax.dependencyContents().keySet()).filteredOn(k -> k.get()[0] == 'q')
                    .extracting(k -> new String(k.get(), 3, 1, java.nio.charset.StandardCharsets.UTF_8)).containsExactly("c");
        }
    }

    @Test
    void shouldTellAFanOutBeyondOneBatchEveryOccurrenceABatchAtATime() {
        int dependents = TaskProcessor.NOTIFY_BATCH + 5;
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("a", A);
            for (int i = 0; i < dependents; i++) {
                ax.request("d-" + i, b(",\"afterTimeoutMs\":1000"));
            }
            ax.discardEvents();
            Map<String, Dispatched> fired = advance(ax, 60_010);
            assertThat(fired).containsKey("a");
            ax.report(fired.get("a"), "SUCCEEDED"); // one batch after this record, the rest after the next punctuation
            ax.advanceMs(10);
            long told = ax.allStoredTasks().stream().filter(t -> t.getTaskId().startsWith("d-"))
                    .filter(t -> "SUCCESS".equals(t.getDependencyOutcomes().get("a"))).count();
            assertThat(told).isEqualTo(dependents);
            assertThat(ax.dependencyContents().keySet()).noneMatch(k -> k.get()[0] == 'N');
        }
    }

    @Test
    void shouldGiveUpTheWaitWhenPausedAndSkipTheHeldOccurrenceAtTheResume() {
        try (SchedulerHarness ax = started("")) {
            Map<String, Dispatched> fired = advance(ax, 30_010);
            assertThat(advance(ax, 30_000)).as("held").isEmpty();
            long heldDueAtMs = ax.storedTask("b").getNextDueAtMs();
            ax.request("b", "{\"pause\":true}");
            assertThat(ax.storedTask("b").getWaitTimeoutAtMs()).as("the wait is given up").isNull();
            ax.report(fired.get("a"), "SUCCEEDED");
            assertThat(ax.dispatches()).as("a paused task's held occurrence is not released").isEmpty();
            ax.discardEvents();
            ax.request("b", "{\"resume\":true}");
            List<JsonNode> b = SchedulerHarness.eventsOf(ax.events(), "b");
            assertThat(b).extracting(SchedulerHarness::fromTo).containsExactly("->SKIPPED", "->PENDING");
            assertThat(b.get(0).get("dueAt").asText()).isEqualTo(java.time.Instant.ofEpochMilli(heldDueAtMs).toString());
            assertThat(ax.storedTask("b").getPreviousDueAtMs()).as("the next period starts at the skipped one").isEqualTo(heldDueAtMs);
            assertThat(ax.storedTask("b").getDependencyOutcomes()).containsEntry("a", "SUCCESS");
        }
    }

    @Test
    void shouldCostATaskNobodyWaitsForNoDependencyRecord() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("a", A);
            Map<String, Dispatched> fired = advance(ax, 60_010);
            ax.report(fired.get("a"), "SUCCEEDED");
            assertThat(ax.drainRaw(ax.topics.deps())).isEmpty();
            assertThat(ax.dependencyContents()).isEmpty();
        }
    }
}
