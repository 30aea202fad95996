package io.ax.worker.internal;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Tells a run that took much longer than its job type usually does: longer than {@code factor} × the 95th percentile of
 * that job type's last {@value #WINDOW} runs, once there are at least {@value #MIN_RUNS} of them. Each job type keeps a
 * ring of its last {@value #WINDOW} durations (800 bytes), and the job types are the worker's handlers', so memory is
 * bounded by the worker's code. A run is compared with the runs before it, then joins them: a job type that slows down
 * for good is reported until its slow runs are most of its window, then no more. A run shorter than {@code minNanos}
 * is never slow, whatever its job type's p95: a job type whose runs take microseconds would otherwise report every
 * run that waited for a CPU (a benchmark's no-op handler logged a line every few runs). Thread-safe.
 */
public final class SlowRuns {
    static final int WINDOW = 100;
    static final int MIN_RUNS = 20;

    /** The default floor: runs under a second are not slow for whoever reads the log. */
    public static final long DEFAULT_MIN_NANOS = 1_000_000_000L;

    private final double factor;
    private final long minNanos;
    private final Map<String, Ring> rings = new HashMap<>();

    /**
     * @param factor   how many times its job type's recent p95 a run may take; 0 tells no run slow
     * @param minNanos the least time a slow run takes (shorter ones are never slow)
     */
    public SlowRuns(double factor, long minNanos) {
        this.factor = requireValidFactor(factor);
        if (minNanos < 0) {
            throw new IllegalArgumentException("slowRunMin must not be negative: " + minNanos + " ns");
        }
        this.minNanos = minNanos;
    }

    /** @throws IllegalArgumentException unless {@code factor} is 0 (off) or a finite number from 1 */
    public static double requireValidFactor(double factor) {
        if (!(factor == 0 || factor >= 1) || Double.isInfinite(factor)) {
            throw new IllegalArgumentException("slowRunFactor must be 0 (off) or a finite number >= 1: " + factor);
        }
        return factor;
    }

    /** Tells no run slow. */
    public static SlowRuns off() {
        return new SlowRuns(0, 0);
    }

    public double factor() {
        return factor;
    }

    /**
     * Records a run of {@code jobType} that took {@code nanos}.
     *
     * @return the p95 of the job type's runs before it, in nanoseconds, when this one took more than {@code factor}
     * times that and at least the floor; -1 when it did not, when fewer than {@value #MIN_RUNS} runs came before, or
     * when off
     */
    public synchronized long record(String jobType, long nanos) {
        Ring ring = rings.computeIfAbsent(jobType, type -> new Ring());
        long p95 = ring.size < MIN_RUNS || factor == 0 ? -1 : ring.p95();
        ring.add(nanos);
        return p95 >= 0 && nanos > factor * p95 && nanos >= minNanos ? p95 : -1;
    }

    private static final class Ring {
        private final long[] nanos = new long[WINDOW];
        private int size;
        private int next;

        void add(long value) {
            nanos[next] = value;
            next = (next + 1) % WINDOW;
            size = Math.min(size + 1, WINDOW);
        }

        /** The nearest-rank 95th percentile: the smallest value at least 95 % of the runs did not exceed. */
        long p95() {
            long[] sorted = Arrays.copyOf(nanos, size);
            Arrays.sort(sorted);
            return sorted[(int) Math.ceil(0.95 * size) - 1];
        }
    }
}
