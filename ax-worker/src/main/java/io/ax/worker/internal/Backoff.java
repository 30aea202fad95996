package io.ax.worker.internal;

import java.time.Duration;

/**
 * How long to wait after the n-th failure in a row of something worth retrying: {@code first}, then twice as long
 * after each further failure, never longer than {@code max} (100 ms, 200 ms, 400 ms, … with first = 100 ms).
 *
 * <p>No jitter: the worker retries its own commits and its own re-runs, one client each, so there is no crowd of
 * callers to spread out; and a deterministic delay lets tests drive it with a settable clock. Immutable.
 */
record Backoff(Duration first, Duration max) {
    Backoff {
        if (first.isNegative() || first.isZero() || max.compareTo(first) < 0) {
            throw new IllegalArgumentException("backoff needs 0 < first <= max: " + first + ", " + max);
        }
    }

    /** @param failures how many attempts failed in a row, at least 1 */
    long delayMs(int failures) {
        if (failures < 1) {
            throw new IllegalArgumentException("failures must be >= 1: " + failures);
        }
        long maxMs = max.toMillis();
        long delayMs = first.toMillis();
        for (int i = 1; i < failures && delayMs < maxMs; i++) {
            delayMs *= 2; // stops at the cap, so it cannot overflow
        }
        return Math.min(delayMs, maxMs);
    }
}
