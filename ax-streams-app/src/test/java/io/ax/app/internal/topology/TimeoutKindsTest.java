package io.ax.app.internal.topology;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.ax.app.config.AxConfig;
import io.ax.app.internal.metrics.Scrape;
import io.ax.app.internal.topology.SchedulerHarness.Dispatched;
import io.ax.codec.WireCodec;
import io.ax.schema.AdoptRequest;
import io.ax.schema.StoredExecution;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The timeout kinds (schedule-to-start, start-to-close extended by heartbeats, heartbeat): each fires at its own
 * deadline with its own reason and {@code kind} label, not before; a request that sets none keeps the one silence
 * timeout ({@code LifecycleTest} covers that rule as it always was).
 */
class TimeoutKindsTest {

    private static String report(Dispatched d, String status, String extra) {
        return "{\"executionId\":\"" + d.executionId() + "\",\"attempt\":" + d.task().getAttempt() + ",\"status\":\""
                + status + "\"" + extra + "}";
    }

    private static Dispatched fire(SchedulerHarness ax, String json) {
        ax.request("t1", json);
        ax.advanceMs(10);
        ax.discardEvents();
        return ax.dispatches().get(0);
    }

    private static double timeouts(SchedulerHarness ax, String kind) {
        return new Scrape(ax.metrics.scrape()).value("ax_timeouts_total", "job_type", "j", "kind", kind);
    }

    @Test
    void shouldLeaveAQueuedDispatchAloneBeyondTimeoutMsAndTimeItOutAtScheduleToStart() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            Dispatched d = fire(ax, "{\"jobType\":\"j\",\"delayMs\":0,\"timeoutMs\":1000,\"scheduleToStartTimeoutMs\":5000,"
                    + "\"maxRetries\":0}");
            ax.advanceMs(1500);
            assertThat(ax.events()).as("timeoutMs alone would have timed it out at 1000 ms").isEmpty();
            ax.report("t1", report(d, "HEARTBEAT", ""));
            ax.advanceMs(3480); // 4990 ms after the dispatch: a heartbeat before STARTED does not extend it
            assertThat(ax.events()).isEmpty();
            ax.advanceMs(20);
            List<JsonNode> events = ax.events();
            assertThat(events).extracting(e -> e.get("from").asText() + "->" + e.get("to").asText())
                    .containsExactly("TRIGGERED->TIMED_OUT", "TIMED_OUT->FAILED");
            assertThat(events.get(0).get("reason").asText())
                    .isEqualTo("timed out: not started within scheduleToStartTimeoutMs 5000 ms of the dispatch");
            assertThat(timeouts(ax, "schedule-to-start")).isEqualTo(1);
            assertThat(ax.deadLetters()).singleElement().satisfies(l -> assertThat(l.getErrors().get(0).getTimedOut()).isTrue());
        }
    }

    @Test
    void shouldNotTimeOutADispatchThatStartsWithinScheduleToStartAndThenLimitItsRunningTime() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            Dispatched d = fire(ax, "{\"jobType\":\"j\",\"delayMs\":0,\"timeoutMs\":1000,\"scheduleToStartTimeoutMs\":5000,"
                    + "\"startToCloseTimeoutMs\":2000,\"heartbeatTimeoutMs\":10000,\"maxRetries\":0}");
            ax.advanceMs(4000);
            ax.report("t1", report(d, "STARTED", ""));
            long startedAtMs = ax.nowMs();
            StoredExecution running = ax.storedTask("t1").getExecution();
            assertThat(running.getStartedAtMs()).isEqualTo(startedAtMs);
            assertThat(running.getDeadlineAtMs()).isEqualTo(startedAtMs + 2000);
            ax.advanceMs(1500); // past the schedule-to-start deadline: the armed timer fires and re-arms
            assertThat(ax.transitions()).containsExactly("RUNNING");
            ax.report("t1", report(d, "HEARTBEAT", "")); // a heartbeat does not move the running-time limit
            ax.advanceMs(490);
            assertThat(ax.events()).isEmpty();
            ax.advanceMs(20);
            List<JsonNode> events = ax.events();
            assertThat(events).extracting(e -> e.get("from").asText() + "->" + e.get("to").asText())
                    .containsExactly("RUNNING->TIMED_OUT", "TIMED_OUT->FAILED");
            assertThat(events.get(0).get("reason").asText())
                    .isEqualTo("timed out: still running after startToCloseTimeoutMs 2000 ms since STARTED");
            assertThat(timeouts(ax, "start-to-close")).isEqualTo(1);
            assertThat(timeouts(ax, "schedule-to-start")).isZero();
        }
    }

    @Test
    void shouldMoveTheTimerEarlierWhenStartedBringsTheDeadlineBeforeTheArmedOne() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            Dispatched d = fire(ax, "{\"jobType\":\"j\",\"delayMs\":0,\"scheduleToStartTimeoutMs\":60000,"
                    + "\"startToCloseTimeoutMs\":1000,\"maxRetries\":0}");
            long armedMs = ax.storedTask("t1").getExecution().getTimeoutAtMs();
            ax.report("t1", report(d, "STARTED", ""));
            long startedAtMs = ax.nowMs();
            assertThat(ax.storedTask("t1").getExecution().getTimeoutAtMs()).isEqualTo(startedAtMs + 1000).isLessThan(armedMs);
            ax.discardEvents();
            ax.advanceMs(1010);
            assertThat(ax.transitions()).containsExactly("TIMED_OUT", "FAILED");
            ax.advanceMs(60_000); // the schedule-to-start timer it replaced comes due stale
            assertThat(ax.events()).isEmpty();
        }
    }

    @Test
    void shouldTimeOutARunningAttemptSilentForHeartbeatTimeoutInsteadOfTimeoutMs() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            Dispatched d = fire(ax, "{\"jobType\":\"j\",\"delayMs\":0,\"timeoutMs\":60000,\"heartbeatTimeoutMs\":1000,"
                    + "\"maxRetries\":0}");
            assertThat(d.task().getTimeoutMs()).as("the worker beats within the heartbeat timeout").isEqualTo(1000);
            ax.advanceMs(5000);
            assertThat(ax.events()).as("before STARTED the silence limit is timeoutMs").isEmpty();
            ax.report("t1", report(d, "STARTED", ""));
            for (int i = 0; i < 4; i++) {
                ax.advanceMs(800);
                ax.report("t1", report(d, "HEARTBEAT", ""));
            }
            ax.discardEvents();
            ax.advanceMs(990);
            assertThat(ax.events()).isEmpty();
            ax.advanceMs(20);
            List<JsonNode> events = ax.events();
            assertThat(events.get(0).get("to").asText()).isEqualTo("TIMED_OUT");
            assertThat(events.get(0).get("reason").asText())
                    .isEqualTo("timed out: no heartbeat for heartbeatTimeoutMs 1000 ms while running");
            assertThat(timeouts(ax, "heartbeat")).isEqualTo(1);
        }
    }

    @Test
    void shouldExtendTheStartToCloseDeadlineByHeartbeatsAskingForMoreUpToTenTimesTheLimit() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            Dispatched d = fire(ax, "{\"jobType\":\"j\",\"delayMs\":0,\"startToCloseTimeoutMs\":1000,"
                    + "\"heartbeatTimeoutMs\":60000,\"maxRetries\":0}");
            ax.report("t1", report(d, "STARTED", ",\"workerId\":\"w-1\""));
            long startedAtMs = ax.nowMs();
            ax.discardEvents();

            ax.advanceMs(800);
            ax.report("t1", report(d, "HEARTBEAT", ",\"extendMs\":100")); // now + 100 is before the deadline: nothing
            assertThat(ax.events()).isEmpty();
            ax.report("t1", report(d, "HEARTBEAT", ",\"extendMs\":5000,\"workerId\":\"w-1\"")); // cut to 1000
            assertThat(ax.storedTask("t1").getExecution().getDeadlineAtMs()).isEqualTo(startedAtMs + 1800);
            List<JsonNode> extended = ax.events();
            assertThat(extended).singleElement().satisfies(e -> {
                assertThat(e.get("from").asText()).isEqualTo("RUNNING");
                assertThat(e.get("to").asText()).isEqualTo("RUNNING");
                assertThat(e.get("reason").asText()).isEqualTo("start-to-close deadline extended to "
                        + Instant.ofEpochMilli(startedAtMs + 1800) + ": heartbeat asked extendMs 5000 (worker w-1)");
            });
            ax.advanceMs(990); // past the first deadline (startedAt + 1000): still running
            assertThat(ax.events()).isEmpty();

            for (int i = 0; i < 10; i++) { // keeps asking: the deadline stops at startedAt + 10 x 1000
                ax.report("t1", report(d, "HEARTBEAT", ",\"extendMs\":1000"));
                if (i < 9) {
                    ax.advanceMs(900);
                }
            }
            long capMs = startedAtMs + 10_000;
            assertThat(ax.storedTask("t1").getExecution().getDeadlineAtMs()).isEqualTo(capMs);
            assertThat(ax.events()).last().satisfies(e -> assertThat(e.get("reason").asText())
                    .endsWith("(capped at STARTED + 10 x startToCloseTimeoutMs)"));
            ax.advanceMs(capMs - ax.nowMs() - 10);
            assertThat(ax.transitions()).doesNotContain("TIMED_OUT");
            ax.advanceMs(20);
            List<JsonNode> events = ax.events();
            assertThat(events.get(0).get("to").asText()).isEqualTo("TIMED_OUT");
            assertThat(events.get(0).get("reason").asText()).isEqualTo("timed out: still running after startToCloseTimeoutMs"
                    + " 1000 ms since STARTED (extended by heartbeats to " + Instant.ofEpochMilli(capMs) + ")");
        }
    }

    @Test
    void shouldTimeOutAnExecutionAlongsideAtItsOwnStartToCloseDeadline() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("p", "{\"jobType\":\"j\",\"everyMs\":1000,\"overlap\":\"ALLOW\",\"timeoutMs\":60000,"
                    + "\"startToCloseTimeoutMs\":1500,\"maxRetries\":0}");
            ax.advanceMs(1010);
            Dispatched first = ax.dispatches().get(0);
            ax.advanceMs(1000); // the next occurrence runs beside it: the first is now alongside
            assertThat(ax.storedTask("p").getAlongside()).extracting(StoredExecution::getExecutionId)
                    .containsExactly(first.executionId());
            ax.report("p", "{\"executionId\":\"" + first.executionId() + "\",\"attempt\":1,\"status\":\"STARTED\"}");
            long startedAtMs = ax.nowMs();
            assertThat(ax.storedTask("p").getAlongside().get(0).getTimeoutAtMs()).isEqualTo(startedAtMs + 1500);
            ax.discardEvents();
            ax.advanceMs(1490);
            assertThat(ax.events()).extracting(e -> e.get("to").asText()).doesNotContain("TIMED_OUT");
            ax.advanceMs(20);
            List<JsonNode> timedOut = ax.events().stream().filter(e -> e.get("to").asText().equals("TIMED_OUT")).toList();
            assertThat(timedOut).singleElement().satisfies(e -> {
                assertThat(e.get("executionId").asText()).isEqualTo(first.executionId());
                assertThat(e.get("reason").asText())
                        .isEqualTo("timed out: still running after startToCloseTimeoutMs 1500 ms since STARTED");
            });
        }
    }

    @Test
    void shouldIgnoreAnExtensionForATaskWithoutStartToClose() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            Dispatched d = fire(ax, "{\"jobType\":\"j\",\"delayMs\":0,\"timeoutMs\":1000,\"maxRetries\":0}");
            ax.report("t1", report(d, "STARTED", ""));
            ax.report("t1", report(d, "HEARTBEAT", ",\"extendMs\":60000"));
            assertThat(ax.storedTask("t1").getExecution().getDeadlineAtMs()).isNull();
            ax.discardEvents();
            ax.advanceMs(1010);
            assertThat(ax.events().get(0).get("reason").asText()).isEqualTo("timed out: no report or heartbeat for 1000 ms");
            assertThat(timeouts(ax, "timeout")).isEqualTo(1);
        }
    }

    @Test
    void shouldRejectATimeoutKindOutOfBoundsNamingIt() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("t1", "{\"jobType\":\"j\",\"delayMs\":0,\"startToCloseTimeoutMs\":0}");
            assertThat(ax.events()).singleElement().satisfies(e -> {
                assertThat(e.get("to").asText()).isEqualTo("REJECTED");
                assertThat(e.get("reason").asText()).contains("startToCloseTimeoutMs must be between 1 and");
            });
        }
    }

    @Test
    void shouldCarryTheKindsAndTheRunningDeadlineThroughAnAdopt() {
        try (SchedulerHarness old = new SchedulerHarness(SchedulerHarness.tempDir());
             SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir(), Map.of(AxConfig.ADOPT_ENABLED_CONFIG, true))) {
            Dispatched d = fire(old, "{\"jobType\":\"j\",\"delayMs\":0,\"startToCloseTimeoutMs\":2000,"
                    + "\"heartbeatTimeoutMs\":60000,\"maxRetries\":0}");
            old.report("t1", report(d, "STARTED", ""));
            long startedAtMs = old.nowMs();
            ax.advanceMs(old.nowMs() - ax.nowMs());
            ax.requestBytes("t1", WireCodec.encode(AdoptRequest.newBuilder().setTask(old.storedTask("t1"))
                    .setFromApplicationId("ax-old").setFromTopic("old.requests").setFromPartition(0)
                    .setMigratedAtMs(old.nowMs()).build()));
            assertThat(ax.storedTask("t1").getRequest().getStartToCloseTimeoutMs()).isEqualTo(2000L);
            assertThat(ax.storedTask("t1").getRequest().getHeartbeatTimeoutMs()).isEqualTo(60_000L);
            assertThat(ax.storedTask("t1").getExecution().getDeadlineAtMs()).isEqualTo(startedAtMs + 2000);
            ax.discardEvents();
            ax.advanceMs(2010);
            assertThat(ax.events().get(0).get("reason").asText())
                    .isEqualTo("timed out: still running after startToCloseTimeoutMs 2000 ms since STARTED");
        }
    }
}
