package io.ax.app.internal.timer;

import io.ax.app.internal.core.TimerKind;

/**
 * A timer held by the {@link TimingWheel}: the task it concerns, what for, when it is due, when it may fire, its
 * priority (0-9; higher fires first within one tick) and its task's owner (null: none; owners share a backlog in
 * turns). {@code fireAtMs} is {@code dueAtMs} unless the opt-in dispatch-ahead mode lets a dispatch go out earlier
 * (the worker then holds it until {@code dueAtMs}).
 */
public record WheelTimer(long fireAtMs, long dueAtMs, int priority, String taskId, TimerKind kind, String owner, boolean indexed) {

    /**
     * A timer kept in the timer index as well as in the wheel ({@code indexed}: false for a timer {@link Timers} keeps in
     * the wheel alone, so firing or giving it up deletes no index key).
     */
    public WheelTimer(long fireAtMs, long dueAtMs, int priority, String taskId, TimerKind kind, String owner) {
        this(fireAtMs, dueAtMs, priority, taskId, kind, owner, true);
    }

    /** A timer of a task without an owner. */
    public WheelTimer(long fireAtMs, long dueAtMs, int priority, String taskId, TimerKind kind) {
        this(fireAtMs, dueAtMs, priority, taskId, kind, null);
    }

    /** A timer that fires at its due time, of a task without an owner. */
    public WheelTimer(long dueAtMs, int priority, String taskId, TimerKind kind) {
        this(dueAtMs, dueAtMs, priority, taskId, kind, null);
    }
}
