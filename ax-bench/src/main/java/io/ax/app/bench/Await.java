package io.ax.app.bench;

import java.time.Clock;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * Bounded waiting for the benchmark's conditions: gives up at a deadline, or earlier when a progress counter
 * has not moved for a while (a stalled scheduler should end the run, not hang it). Polls every 20 ms, sleeping
 * in between; never spins.
 */
public final class Await {
    private static final long POLL_MS = 20;

    private Await() {
    }

    /**
     * Waits until {@code done} holds. Returns {@code true} if it did, {@code false} when {@code timeout} passed or
     * {@code progress} stayed unchanged for {@code stall}.
     */
    public static boolean until(Clock clock, Duration timeout, Duration stall, LongSupplier progress, BooleanSupplier done)
            throws InterruptedException {
        long deadlineMs = clock.millis() + timeout.toMillis();
        long last = progress.getAsLong();
        long lastChangeMs = clock.millis();
        while (!done.getAsBoolean()) {
            long nowMs = clock.millis();
            long current = progress.getAsLong();
            if (current != last) {
                last = current;
                lastChangeMs = nowMs;
            }
            if (nowMs >= deadlineMs || nowMs - lastChangeMs >= stall.toMillis()) {
                return done.getAsBoolean();
            }
            Thread.sleep(POLL_MS);
        }
        return true;
    }

    /** Same as {@link #until(Clock, Duration, Duration, LongSupplier, BooleanSupplier)}, without stall detection. */
    public static boolean until(Clock clock, Duration timeout, BooleanSupplier done) throws InterruptedException {
        return until(clock, timeout, timeout, () -> 0, done);
    }

    /** Sleeps until the clock reads {@code targetMs} (returns at once if it is past). */
    public static void untilTime(Clock clock, long targetMs) throws InterruptedException {
        long remainingMs;
        while ((remainingMs = targetMs - clock.millis()) > 0) {
            Thread.sleep(Math.min(remainingMs, 200));
        }
    }
}
