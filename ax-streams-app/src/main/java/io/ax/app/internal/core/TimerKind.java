package io.ax.app.internal.core;

/**
 * What a timer is for. A task can hold one timer of each kind at a time; the kind is part of the timer's
 * key, so two timers of one task due at the same millisecond never collide.
 */
public enum TimerKind {
    /** The next occurrence of the task is due: fire it. */
    OCCURRENCE,
    /** A failed execution's backoff has elapsed: dispatch its next attempt. */
    RETRY,
    /** A fired execution may have gone silent: check its last sign of life. */
    TIMEOUT,
    /** A finished task's retention has ended: remove it from the stores. */
    PURGE,
    /** A WAITING task's wait for the tasks it names ({@code after}) has timed out. */
    DEPENDENCY_WAIT;

    private static final TimerKind[] BY_CODE = values();

    public byte code() {
        return (byte) ordinal();
    }

    public static TimerKind of(byte code) {
        return BY_CODE[code];
    }
}
