package io.ax.app.internal.timer;

/**
 * A timer held by the {@link TimingWheel}: the task it concerns, what for, when it is due, when it may fire, and
 * its priority (0-9; higher fires first within one tick). {@code fireAtMs} is {@code dueAtMs} unless the opt-in
 * dispatch-ahead mode lets a dispatch go out earlier (the worker then holds it until {@code dueAtMs}).
 */
public record WheelTimer(long fireAtMs, long dueAtMs, int priority, String taskId, TimerKind kind) {

    /** A timer that fires at its due time. */
    public WheelTimer(long dueAtMs, int priority, String taskId, TimerKind kind) {
        this(dueAtMs, dueAtMs, priority, taskId, kind);
    }
}
