package io.ax.app.internal.wheel;

/**
 * A timer held by the {@link TimingWheel}: the task it concerns, what for, when, and its priority (0-9;
 * higher fires first within one tick).
 */
public record WheelTimer(long dueAtMs, int priority, String taskId, TimerKind kind) {
}
