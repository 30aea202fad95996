package io.ax.app.internal.core;

import io.ax.calendar.ExclusionCalendar;

/**
 * The exclusion calendars as the rules see them: by name, as they stand now (the adapter reads them from the global
 * calendar store every instance keeps). A lookup is a read, never I/O the rules wait on beyond a local store get.
 */
@FunctionalInterface
public interface CalendarLookup {
    /** No calendars at all (tests of other rules, and a scheduler built without the store). */
    CalendarLookup NONE = name -> null;

    /** The calendar named {@code name}, or null when there is none (never set, or deleted). */
    ExclusionCalendar find(String name);

    /**
     * Whether a calendar named {@code name} is stored (set, not deleted), whether or not it compiles: what a delete
     * needs to know.
     */
    default boolean exists(String name) {
        return find(name) != null;
    }
}
