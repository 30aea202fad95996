package io.ax.app.internal.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.ax.AxHeaders;
import io.ax.app.config.AxConfig;
import io.ax.app.internal.topology.SchedulerHarness.Dispatched;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FireDueTimersTest {

    @Test
    void shouldNotFireBeforeDueTime() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("t1", "{\"jobType\":\"email\",\"delayMs\":1000}");
            assertThat(ax.transitions()).containsExactly("PENDING");

            ax.advanceMs(990);
            assertThat(ax.dispatches()).isEmpty();
            ax.advanceMs(9);
            assertThat(ax.dispatches()).isEmpty();
            ax.advanceMs(1);

            List<Dispatched> fired = ax.dispatches();
            assertThat(fired).hasSize(1);
            assertThat(fired.get(0).task().getDueAtMs()).isEqualTo(ax.nowMs());
            assertThat(fired.get(0).task().getFiredAtMs()).isEqualTo(ax.nowMs());
            assertThat(ax.transitions()).containsExactly("TRIGGERED");
        }
    }

    @Test
    void shouldMeasureFireLatenessInTheSchedulersMetrics() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("on-time", "{\"jobType\":\"j\",\"delayMs\":100}");
            ax.request("late", "{\"jobType\":\"j\",\"delayMs\":0}");
            ax.advanceMs(100); // "late" was due at 0 and fires now, 100 ms late; "on-time" fires at its due time
            assertThat(ax.dispatches()).hasSize(2);
            io.ax.app.internal.metrics.Scrape metrics = new io.ax.app.internal.metrics.Scrape(ax.metrics.scrape());
            assertThat(metrics.value("ax_fired_total")).isEqualTo(2);
            assertThat(metrics.value("ax_fire_lateness_seconds_max")).isEqualTo(0.1);
            assertThat(metrics.value("ax_fire_lateness_seconds_sum") / metrics.value("ax_fire_lateness_seconds_count"))
                    .as("average lateness, s").isEqualTo(0.05);
        }
    }

    @Test
    void shouldDispatchAheadOfTheDueTimeOnlyInTheOptInMode() {
        Map<String, Object> ahead = Map.of(AxConfig.DISPATCH_AHEAD_MS_CONFIG, 200L);
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir(), ahead)) {
            long t0 = SchedulerHarness.T0.toEpochMilli();
            ax.request("t1", "{\"jobType\":\"j\",\"delayMs\":1000,\"timeoutMs\":500}");
            ax.advanceMs(790);
            assertThat(ax.dispatches()).isEmpty();
            ax.advanceMs(10);
            Dispatched d = ax.dispatches().get(0);
            assertThat(d.task().getFiredAtMs()).isEqualTo(t0 + 800);
            assertThat(d.task().getDueAtMs()).isEqualTo(t0 + 1000);
            assertThat(d.header(AxHeaders.DUE_AT)).as("the worker holds it until then").isEqualTo(Long.toString(t0 + 1000));
            ax.discardEvents();
            ax.advanceMs(690); // 1490: the timeout counts from the due time, not from the early dispatch
            assertThat(ax.events()).isEmpty();
            ax.advanceMs(10);
            assertThat(ax.transitions()).startsWith("TIMED_OUT");
        }
    }

    @Test
    void shouldRoundUnalignedDueTimeUpToTheNextTick() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("t1", "{\"jobType\":\"email\",\"delayMs\":1005}");
            ax.advanceMs(1000);
            assertThat(ax.dispatches()).isEmpty();
            ax.advanceMs(9);
            assertThat(ax.dispatches()).isEmpty();
            ax.advanceMs(1);
            assertThat(ax.dispatches()).singleElement()
                    .satisfies(d -> assertThat(d.task().getFiredAtMs()).isEqualTo(SchedulerHarness.T0.toEpochMilli() + 1010));
        }
    }

    @Test
    void shouldFireEveryTaskOnceAndNeverEarlyForRandomDueTimes() {
        Random random = new Random(42);
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            Map<String, Long> dueByTask = new HashMap<>();
            for (int i = 0; i < 300; i++) {
                long delayMs = random.nextInt(3000);
                ax.request("task-" + i, "{\"jobType\":\"j\",\"delayMs\":" + delayMs + "}");
                dueByTask.put("task-" + i, ax.nowMs() + delayMs);
                if (i % 30 == 0) {
                    ax.advanceMs(random.nextInt(7));
                }
            }
            Set<String> fired = new HashSet<>();
            for (int step = 0; step < 3100; step++) {
                ax.advanceMs(1);
                for (Dispatched d : ax.dispatches()) {
                    assertThat(fired.add(d.key())).as("fired once: %s", d.key()).isTrue();
                    long dueAtMs = dueByTask.get(d.key());
                    assertThat(d.task().getDueAtMs()).isEqualTo(dueAtMs);
                    long firedAtMs = d.task().getFiredAtMs();
                    assertThat(d.timestampMs()).isEqualTo(firedAtMs);
                    assertThat(firedAtMs).as("not early: %s", d.key()).isGreaterThanOrEqualTo(dueAtMs);
                    assertThat(firedAtMs - dueAtMs).as("within a tick: %s", d.key()).isLessThan(10);
                }
            }
            assertThat(fired).hasSize(300);
        }
    }

    @Test
    void shouldLoadTimersBeyondTheWheelHorizonWhenTheyComeNear() {
        // 8 slots x 10 ms: the wheel holds 70-80 ms ahead; the rest waits in the RocksDB index.
        Map<String, Object> smallWheel = Map.of(AxConfig.WHEEL_SIZE_CONFIG, 8);
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir(), smallWheel)) {
            long[] delays = {70, 80, 85, 1000, 100_000};
            for (long delay : delays) {
                ax.request("d" + delay, "{\"jobType\":\"j\",\"delayMs\":" + delay + "}");
            }
            Map<String, Long> firedAt = new HashMap<>();
            for (int step = 0; step < 100_010 / 5; step++) {
                ax.advanceMs(5);
                ax.dispatches().forEach(d -> firedAt.put(d.key(), ax.nowMs() - SchedulerHarness.T0.toEpochMilli()));
            }
            assertThat(firedAt).containsOnly(Map.entry("d70", 70L), Map.entry("d80", 80L), Map.entry("d85", 90L),
                    Map.entry("d1000", 1000L), Map.entry("d100000", 100_000L));
        }
    }

    @Test
    void shouldFireHighestPriorityFirstWhenATickHoldsMoreThanABatch() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir(), Map.of(AxConfig.FIRE_BATCH_MAX_CONFIG, 2))) {
            ax.request("low", "{\"jobType\":\"j\",\"delayMs\":100,\"priority\":1}");
            ax.request("high", "{\"jobType\":\"j\",\"delayMs\":100,\"priority\":9}");
            ax.request("mid", "{\"jobType\":\"j\",\"delayMs\":100,\"priority\":5}");
            ax.advanceMs(100);
            assertThat(ax.dispatches()).extracting(Dispatched::key).containsExactly("high", "mid");
            ax.advanceMs(10);
            assertThat(ax.dispatches()).extracting(Dispatched::key).containsExactly("low");
        }
    }

    @Test
    void shouldDeferWhatAPunctuationHasNoTimeLeftForToTheNextInOrderAndFireItThen() {
        // Every read of the fire clock moves it 5 ms: the deadline is read at 0 (25), then the check before each fire reads
        // 5, 10, 15, 20 (fired) and 25 (deferred): four fires a punctuation.
        java.util.concurrent.atomic.AtomicLong fireClockMs = new java.util.concurrent.atomic.AtomicLong();
        Map<String, Object> settings = Map.of(AxConfig.FIRE_BUDGET_MS_CONFIG, 25L);
        try (SchedulerHarness ax = SchedulerHarness.withFireClock(SchedulerHarness.tempDir(), settings, new org.apache.kafka.common.utils.Time() {
            @Override
            public long milliseconds() {
                return fireClockMs.getAndAdd(5);
            }

            @Override
            public long nanoseconds() {
                return fireClockMs.get() * 1_000_000;
            }

            @Override
            public void sleep(long ms) {
                fireClockMs.addAndGet(ms);
            }

            @Override
            public void waitObject(Object obj, java.util.function.Supplier<Boolean> condition, long deadlineMs) {
                throw new UnsupportedOperationException();
            }
        })) {
            for (int i = 0; i < 8; i++) {
                ax.request("t" + i, "{\"jobType\":\"j\",\"delayMs\":100,\"priority\":" + (9 - i) + "}");
            }
            ax.advanceMs(100);
            List<String> first = ax.dispatches().stream().map(Dispatched::key).toList();
            assertThat(first).as("the budget cut the punctuation short, highest priority first").containsExactly("t0", "t1", "t2", "t3");
            ax.advanceMs(10);
            assertThat(ax.dispatches()).extracting(Dispatched::key).as("the deferred ones at the next tick, in their order")
                    .containsExactly("t4", "t5", "t6", "t7");
            ax.advanceMs(100);
            assertThat(ax.dispatches()).as("each fired once").isEmpty();
        }
    }

    @Test
    void shouldFireABacklogByPriorityWithAgingSoThatPriorityZeroIsNeverStarved() {
        Map<String, Object> oneFirePerTick = Map.of(AxConfig.FIRE_BATCH_MAX_CONFIG, 1, AxConfig.PRIORITY_AGING_MS_CONFIG, 1_000L);
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir(), oneFirePerTick)) {
            ax.request("old-p0", "{\"jobType\":\"j\",\"delayMs\":100,\"priority\":0}");      // rank 100
            ax.request("mid-p5", "{\"jobType\":\"j\",\"delayMs\":2000,\"priority\":5}");     // rank 2000 - 5000
            ax.request("high-p9", "{\"jobType\":\"j\",\"delayMs\":5000,\"priority\":9}");    // rank 5000 - 9000
            ax.request("late-p9", "{\"jobType\":\"j\",\"delayMs\":15000,\"priority\":9}");   // rank 15000 - 9000
            ax.advanceMs(20_000); // the scheduler was behind: all four are overdue at once
            List<String> order = new java.util.ArrayList<>();
            for (int i = 0; i < 6 && order.size() < 4; i++) {
                ax.dispatches().forEach(d -> order.add(d.key()));
                ax.advanceMs(10);
            }
            assertThat(order).as("priority 9 goes before priority 0 due up to 9 s before it, and no more")
                    .containsExactly("high-p9", "mid-p5", "old-p0", "late-p9");
        }
    }

    @Test
    void shouldShareABacklogBetweenOwnersSoOneOwnersManyDoNotDelayAnothersFew() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir(), Map.of(AxConfig.FIRE_BATCH_MAX_CONFIG, 3))) {
            for (int i = 0; i < 30; i++) {
                ax.request("big-%02d".formatted(i), "{\"jobType\":\"j\",\"delayMs\":100,\"owner\":\"big\"}");
            }
            ax.request("small-0", "{\"jobType\":\"j\",\"delayMs\":150,\"owner\":\"small\"}");
            ax.request("small-1", "{\"jobType\":\"j\",\"delayMs\":160,\"owner\":\"small\"}");
            ax.advanceMs(1_000); // behind: all 32 are due, 3 fire per punctuation

            assertThat(ax.dispatches()).as("due after 30 of another owner, they fire in its turns, in the first punctuation")
                    .extracting(Dispatched::key).containsExactly("big-00", "small-0", "big-01");
            ax.advanceMs(10);
            assertThat(ax.dispatches()).as("each punctuation shares its fires again").extracting(Dispatched::key)
                    .containsExactly("big-02", "small-1", "big-03");
        }
    }

    @Test
    void shouldCarryRoutingHeadersOnEveryDispatch() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("t1", "{\"jobType\":\"email\",\"delayMs\":0,\"payload\":{\"to\":\"a@b.c\"},\"owner\":\"billing\"}");
            ax.advanceMs(10);
            Dispatched d = ax.dispatches().get(0);
            assertThat(d.header(AxHeaders.KIND)).isEqualTo("RUN");
            assertThat(d.header(AxHeaders.EXECUTION_ID)).isEqualTo(d.task().getExecutionId());
            assertThat(d.header(AxHeaders.ATTEMPT)).isEqualTo("1");
            assertThat(d.header(AxHeaders.JOB_TYPE)).isEqualTo("email");
            assertThat(d.header(AxHeaders.DUE_AT)).isEqualTo(Long.toString(d.task().getDueAtMs()));
            assertThat(new String(d.task().getPayload().array(), java.nio.charset.StandardCharsets.UTF_8))
                    .isEqualTo("{\"to\":\"a@b.c\"}");
            assertThat(d.task().getOwner()).isEqualTo("billing");
            assertThat(d.task().getTimeoutMs()).isEqualTo(300_000L);
        }
    }

    @Test
    void shouldFireFixedIntervalOccurrencesEachWithItsOwnExecutionId() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("sync", "{\"jobType\":\"sync\",\"everyMs\":1000}");
            Set<String> executionIds = new HashSet<>();
            for (int occurrence = 1; occurrence <= 3; occurrence++) {
                ax.advanceMs(1000);
                Dispatched d = ax.dispatches().get(0);
                assertThat(d.task().getDueAtMs()).isEqualTo(SchedulerHarness.T0.toEpochMilli() + 1000L * occurrence);
                executionIds.add(d.executionId());
                ax.report("sync", "{\"executionId\":\"" + d.executionId() + "\",\"attempt\":1,\"status\":\"SUCCEEDED\"}");
            }
            assertThat(executionIds).hasSize(3);
        }
    }

    @Test
    void shouldSkipAnOccurrenceWhileThePreviousExecutionIsStillRunning() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("sync", "{\"jobType\":\"sync\",\"everyMs\":1000}");
            ax.advanceMs(1000);
            assertThat(ax.dispatches()).hasSize(1);
            ax.discardEvents();
            ax.advanceMs(1000);
            assertThat(ax.dispatches()).isEmpty();
            assertThat(ax.transitions()).containsExactly("SKIPPED", "PENDING");
        }
    }

    @Test
    void shouldFireAMissedIntervalOnceThenResumeOnTheRegularGrid() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("sync", "{\"jobType\":\"sync\",\"everyMs\":1000}");
            ax.discardEvents();
            ax.advanceMs(3500); // as if the scheduler had been stalled past three occurrences
            List<Dispatched> fired = ax.dispatches();
            assertThat(fired).hasSize(1);
            assertThat(fired.get(0).task().getDueAtMs()).isEqualTo(SchedulerHarness.T0.toEpochMilli() + 1000);
            assertThat(ax.events()).last().satisfies(e -> {
                assertThat(e.get("to").asText()).isEqualTo("PENDING");
                assertThat(e.get("dueAt").asText()).isEqualTo("2026-12-01T00:00:04Z");
            });
        }
    }
}
