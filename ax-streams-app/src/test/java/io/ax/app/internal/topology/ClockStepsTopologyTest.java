package io.ax.app.internal.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.ax.app.internal.topology.SchedulerHarness.Dispatched;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import io.ax.app.internal.timer.SteppingTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A wall-clock step seen by the scheduler's punctuation (topology-docs/TIMEOUTS.md, "Clock steps"): reported once, with
 * both clocks, and counted; due times stay wall-clock instants, so nothing fires before the wall clock reaches it, and
 * after a step back what comes due is late by at most the step.
 *
 * <p>The driver's clock is the wall clock Kafka Streams punctuates by; the scheduler's {@link Time} ({@link SteppingTime})
 * reads the same wall clock and, besides, a monotonic clock that the test moves apart from it. The driver cannot step
 * back: a step back is played as Kafka Streams lives it, a pause of the punctuations (it punctuates again only once its
 * clock has passed the last punctuation) during which the monotonic clock runs and the wall clock repeats the step.
 */
class ClockStepsTopologyTest {
    private static final long HOUR_MS = 3_600_000;
    private static final long TICK_MS = 10;

    private final SteppingTime clock = new SteppingTime(SchedulerHarness.T0.toEpochMilli(), 1_000_000_000L);
    private final LogCapture log = LogCapture.root();

    @AfterEach
    void stopCapture() {
        log.stop();
    }

    @Test
    void shouldReportAForwardStepAndFireWhatItMadeDueAtOnceButNothingDueLater() {
        try (SchedulerHarness ax = SchedulerHarness.withFireClock(SchedulerHarness.tempDir(), Map.of(), clock)) {
            ax.request("half-hour", "{\"jobType\":\"j\",\"timeoutMs\":86400000,\"delayMs\":1800000}");
            ax.request("after-step", "{\"jobType\":\"j\",\"timeoutMs\":86400000,\"delayMs\":3660000}"); // 61 minutes
            ax.request("two-hours", "{\"jobType\":\"j\",\"timeoutMs\":86400000,\"delayMs\":7200000}");
            tick(ax, 5);
            assertThat(ax.dispatches()).isEmpty();

            // The wall clock jumps an hour ahead within one tick of monotonic time.
            clock.move(HOUR_MS + TICK_MS, TICK_MS);
            ax.advanceMs(HOUR_MS + TICK_MS);
            tick(ax, 1); // the punctuation after a jump loads what it brought within the wheel's horizon; this one fires it

            assertThat(ax.dispatches()).extracting(Dispatched::key).as("due by the wall clock: fired at once")
                    .containsExactly("half-hour");
            assertThat(steps(ax)).containsExactly(0.0, 1.0);
            assertThat(errorLines()).singleElement().asString()
                    .contains("Wall clock stepped forward by 3600000 ms", "from 2026-12-01T00:00:00.050Z to 2026-12-01T01:00:00.060Z",
                            "monotonic clock advanced 10 ms");

            assertThat(firesAround(ax, 3_660_000)).as("the next at its due time by the wall clock, not before").isEqualTo(3_660_000);
            assertThat(firesAround(ax, 7_200_000)).isEqualTo(7_200_000);
            assertThat(steps(ax)).as("reported once").containsExactly(0.0, 1.0);
            assertThat(errorLines()).hasSize(1);
        }
    }

    @Test
    void shouldReportABackwardStepAndFireNothingTwiceNothingEarlyAndLateByAtMostTheStep() {
        try (SchedulerHarness ax = SchedulerHarness.withFireClock(SchedulerHarness.tempDir(), Map.of(), clock)) {
            ax.request("before", "{\"jobType\":\"j\",\"timeoutMs\":86400000,\"delayMs\":1000}");
            ax.request("half-hour", "{\"jobType\":\"j\",\"timeoutMs\":86400000,\"delayMs\":1800000}");
            long acceptedAtNanos = clock.nanoseconds();
            Map<String, Long> firedAtMs = tickUntil(ax, 2_000);
            assertThat(firedAtMs).containsOnlyKeys("before");

            // The wall clock steps an hour back. Kafka Streams punctuates again only when its clock is back at the last
            // punctuation: an hour of monotonic time without a punctuation, then the next tick.
            clock.move(-HOUR_MS, 0);
            clock.move(HOUR_MS, HOUR_MS);
            clock.move(TICK_MS, TICK_MS);
            ax.advanceMs(TICK_MS);

            assertThat(steps(ax)).containsExactly(1.0, 0.0);
            assertThat(errorLines()).singleElement().asString()
                    .contains("Wall clock stepped backward by 3600000 ms", "from 2026-12-01T00:00:02Z to 2026-12-01T00:00:02.010Z (10 ms)",
                            "monotonic clock advanced 3600010 ms");
            assertThat(ax.dispatches()).as("nothing fired again").isEmpty();

            assertThat(firesAround(ax, 1_800_000)).as("at its due time by the wall clock, not before").isEqualTo(1_800_000);
            long monotonicWaitMs = (clock.nanoseconds() - acceptedAtNanos) / 1_000_000;
            assertThat(monotonicWaitMs).as("late by the step, by the monotonic clock, and no more")
                    .isBetween(1_800_000L + HOUR_MS, 1_800_000L + HOUR_MS + TICK_MS);
            assertThat(steps(ax)).as("reported once").containsExactly(1.0, 0.0);
        }
    }

    @Test
    void shouldReportNothingWhileBothClocksAdvanceAlikeHoweverLongThePunctuationsPause() {
        try (SchedulerHarness ax = SchedulerHarness.withFireClock(SchedulerHarness.tempDir(), Map.of(), clock)) {
            ax.request("t", "{\"jobType\":\"j\",\"timeoutMs\":86400000,\"delayMs\":600000}");
            tick(ax, 3);
            clock.move(10 * 60_000, 10 * 60_000); // the stream thread stalled for ten minutes
            ax.advanceMs(10 * 60_000);
            tick(ax, 1);
            assertThat(ax.dispatches()).extracting(Dispatched::key).containsExactly("t");
            assertThat(steps(ax)).containsExactly(0.0, 0.0);
            assertThat(errorLines()).isEmpty();
        }
    }

    /** {@code ax_clock_steps_total} backward, forward, as the scheduler's {@code /metrics} serves it. */
    private static List<Double> steps(SchedulerHarness ax) {
        String scrape = ax.metrics.scrape();
        return List.of(sample(scrape, "backward"), sample(scrape, "forward"));
    }

    private static double sample(String scrape, String direction) {
        String prefix = "ax_clock_steps_total{direction=\"" + direction + "\"} ";
        return scrape.lines().filter(line -> line.startsWith(prefix)).map(line -> Double.parseDouble(line.substring(prefix.length())))
                .findFirst().orElseThrow(() -> new AssertionError("no " + prefix + " in\n" + scrape));
    }

    private List<String> errorLines() {
        return log.lines().stream().filter(line -> line.startsWith("ERROR") && line.contains("ClockSteps")).toList();
    }

    /** Both clocks and the driver advance {@code ticks} ticks alike. */
    private void tick(SchedulerHarness ax, int ticks) {
        for (int i = 0; i < ticks; i++) {
            clock.move(TICK_MS, TICK_MS);
            ax.advanceMs(TICK_MS);
        }
    }

    /** Ticks until the driver's clock is {@code untilMs} after T0; when each task fired, ms after T0. */
    private Map<String, Long> tickUntil(SchedulerHarness ax, long untilMs) {
        Map<String, Long> firedAtMs = new LinkedHashMap<>();
        while (sinceT0(ax) < untilMs) {
            tick(ax, 1);
            ax.dispatches().forEach(d -> firedAtMs.put(d.key(), sinceT0(ax)));
        }
        return firedAtMs;
    }

    /**
     * Moves both clocks alike to five ticks before {@code dueMs} after T0 (nothing fires), then ticks until one task
     * fires: when, ms after T0.
     */
    private long firesAround(SchedulerHarness ax, long dueMs) {
        long jumpMs = dueMs - 5 * TICK_MS - sinceT0(ax);
        clock.move(jumpMs, jumpMs);
        ax.advanceMs(jumpMs);
        assertThat(ax.dispatches()).as("nothing before %d ms", dueMs).isEmpty();
        for (int i = 0; i < 10; i++) {
            tick(ax, 1);
            if (!ax.dispatches().isEmpty()) {
                return sinceT0(ax);
            }
        }
        throw new AssertionError("nothing fired by " + sinceT0(ax) + " ms");
    }

    private static long sinceT0(SchedulerHarness ax) {
        return ax.nowMs() - SchedulerHarness.T0.toEpochMilli();
    }
}
