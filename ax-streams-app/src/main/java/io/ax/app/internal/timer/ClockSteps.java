package io.ax.app.internal.timer;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Notices a step of the wall clock: between two checks, the wall clock ({@link Time#milliseconds()}) moved by more than
 * {@code thresholdMs} more, or less, than the monotonic clock ({@link Time#nanoseconds()}) did. Each step is logged
 * once at ERROR with both clocks and counted by direction ({@code ax_clock_steps_total{direction}}); the next check
 * compares with the readings after the step, so a step is reported once, not at every check after it.
 *
 * <p>Comparing progress, not readings, is what makes it cheap and quiet: a stream thread that stalls for a minute (a GC
 * pause, a long poll) sees both clocks advance by a minute and reports nothing; NTP's slewing changes the wall clock's
 * rate by at most 0.05%, far below the threshold between checks a tick apart. One instance shares one detector
 * between its stream threads: each partition's punctuation checks it (one comparison per punctuation, nothing per
 * task), and so does each poll of a stream thread's consumer ({@link TimedPolls}), which goes on while Kafka Streams
 * punctuates nothing (after a backward step it punctuates only once its clock has passed the last punctuation again;
 * topology-docs/TIMEOUTS.md, "Clock steps"). Thread-safe: a check is a few reads and writes under the lock.
 *
 * <p>It reports and counts; it changes no timer. What the scheduler does after a step is written in
 * topology-docs/TIMEOUTS.md ("Clock steps"): the wall clock decides every due time, the monotonic clock only witnesses.
 */
public final class ClockSteps {
    private static final Logger log = LoggerFactory.getLogger(ClockSteps.class);

    /** Which way the wall clock stepped, as the {@code direction} label says it. */
    public enum Direction {
        BACKWARD, FORWARD;

        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * One step.
     *
     * @param wallBeforeMs       the wall clock at the previous check
     * @param wallAfterMs        the wall clock at this check
     * @param monotonicElapsedMs the monotonic time elapsed between the two checks
     * @param stepMs             the wall clock's progress minus the monotonic progress: negative backward
     */
    public record Step(Direction direction, long wallBeforeMs, long wallAfterMs, long monotonicElapsedMs, long stepMs) {
    }

    private final Time time;
    private final long thresholdMs;
    private final AtomicLong backward = new AtomicLong();
    private final AtomicLong forward = new AtomicLong();
    private boolean started;
    private long lastWallMs;
    private long lastNanos;

    /**
     * @param time        the clocks compared (Kafka's {@code Time.SYSTEM} in a running scheduler)
     * @param thresholdMs a difference of progress larger than this is a step ({@code ax.clock.step.threshold.ms})
     */
    public ClockSteps(Time time, long thresholdMs) {
        if (thresholdMs < 1) {
            throw new IllegalArgumentException("thresholdMs must be >= 1: " + thresholdMs);
        }
        this.time = time;
        this.thresholdMs = thresholdMs;
    }

    public long thresholdMs() {
        return thresholdMs;
    }

    /** Reads both clocks and compares their progress since the previous check; the step, or null when there was none. */
    public synchronized Step check() {
        return observe(time.milliseconds(), time.nanoseconds());
    }

    /** The comparison itself, on readings given. The first one only sets the baseline. */
    synchronized Step observe(long wallMs, long monotonicNanos) {
        if (!started) {
            started = true;
            lastWallMs = wallMs;
            lastNanos = monotonicNanos;
            return null;
        }
        long monotonicElapsedMs = (monotonicNanos - lastNanos) / 1_000_000;
        long stepMs = (wallMs - lastWallMs) - monotonicElapsedMs;
        long wallBeforeMs = lastWallMs;
        lastWallMs = wallMs;
        lastNanos = monotonicNanos;
        if (Math.abs(stepMs) <= thresholdMs) {
            return null;
        }
        Step step = new Step(stepMs < 0 ? Direction.BACKWARD : Direction.FORWARD, wallBeforeMs, wallMs, monotonicElapsedMs, stepMs);
        (step.direction() == Direction.BACKWARD ? backward : forward).incrementAndGet();
        log.error("Wall clock stepped {} by {} ms: it went from {} to {} ({} ms) while the monotonic clock advanced {} ms"
                        + " (threshold ax.clock.step.threshold.ms={}). Due times are wall-clock instants: after a backward step"
                        + " firing waits until the wall clock is back where it was; after a forward step what became due fires"
                        + " now. Check the host's time synchronisation (NTP, chrony)",
                step.direction().label(), Math.abs(stepMs), Instant.ofEpochMilli(wallBeforeMs), Instant.ofEpochMilli(wallMs),
                wallMs - wallBeforeMs, monotonicElapsedMs, thresholdMs);
        return step;
    }

    /** Steps seen since start in {@code direction}. */
    public long count(Direction direction) {
        return (direction == Direction.BACKWARD ? backward : forward).get();
    }
}
