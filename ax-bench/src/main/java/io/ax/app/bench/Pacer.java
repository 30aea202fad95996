package io.ax.app.bench;

import java.time.Clock;

/**
 * Paces an open-loop load at a fixed rate on a {@link Clock}: {@link #awaitPermits()} sleeps until at least one
 * send is due and returns how many are due now (more than one when the caller fell behind, so the average
 * rate holds). Sleeps, never spins: at 1,000/s it wakes about once a millisecond.
 *
 * <p>Not thread-safe: one submitting thread.
 */
public final class Pacer {
    private final Clock clock;
    private final double perMs;
    private final long startMs;
    private long granted;

    public Pacer(Clock clock, int ratePerS) {
        if (ratePerS < 1) {
            throw new IllegalArgumentException("ratePerS must be >= 1: " + ratePerS);
        }
        this.clock = clock;
        this.perMs = ratePerS / 1000.0;
        this.startMs = clock.millis();
    }

    /** Blocks until the schedule allows a send; returns the number of sends due now (>= 1). */
    public int awaitPermits() throws InterruptedException {
        while (true) {
            long elapsedMs = clock.millis() - startMs;
            long due = (long) Math.floor(elapsedMs * perMs) + 1; // the first send is due at once
            if (due > granted) {
                int permits = (int) Math.min(due - granted, Integer.MAX_VALUE);
                granted = due;
                return permits;
            }
            long nextMs = startMs + (long) Math.ceil(granted / perMs);
            Thread.sleep(Math.max(1, nextMs - clock.millis()));
        }
    }
}
