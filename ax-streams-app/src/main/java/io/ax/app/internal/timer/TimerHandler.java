package io.ax.app.internal.timer;

/**
 * What a due timer is handed to by {@link FireDueTimers}: the adapter's decision for the timer's task (in the scheduler,
 * the rules' {@code TimerFired} input applied in the stream task's transaction). Called on the stream thread, once per
 * timer the pump fires, after the timer has left the wheel ({@link Timers#fired}); it may set and unset timers.
 */
@FunctionalInterface
public interface TimerHandler {
    /** Decides {@code timer}, due by {@code nowMs} (wall clock of the punctuation). */
    void fire(WheelTimer timer, long nowMs);
}
