package io.ax.app.internal.core;

/** The scheduler's bounds on calendars that the docs quote ({@code LIMITS.md}). */
public final class CalendarLimits {
    /** Most occurrences looked at when checking that a calendar leaves a task something to run. */
    public static final int MAX_CHECKED = CalendarExclusions.MAX_CHECKED;

    private CalendarLimits() {
    }
}
