package io.ax.worker.internal;

import java.time.Duration;

/** Waits, so that tests can drive waiting together with a settable clock instead of sleeping. */
@FunctionalInterface
public interface Sleeper {
    /** Sleeps the calling thread. */
    Sleeper THREAD = duration -> Thread.sleep(duration.toMillis());

    /** Returns after about {@code duration}, or throws when the thread is interrupted. */
    void sleep(Duration duration) throws InterruptedException;
}
