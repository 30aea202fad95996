package io.ax.validation;

import io.ax.InvalidRequestException;
import io.ax.calendar.ExclusionCalendar;
import io.ax.schema.CalendarRequest;
import java.time.Instant;

/**
 * The rules every {@link CalendarRequest} must meet, checked by the client before sending and by the scheduler on
 * receipt: a name like a taskId, bounded lists of well-formed dates, ranges, weekdays and windows in a known zone
 * ({@link ExclusionCalendar#of}), and at least one instant left unexcluded in the next {@value #LOOK_AHEAD_DAYS} days.
 */
public final class CalendarValidator {
    /** How far ahead a calendar (and a task's occurrences under it) must have something not excluded. */
    public static final int LOOK_AHEAD_DAYS = 366;
    public static final long LOOK_AHEAD_MS = LOOK_AHEAD_DAYS * 24L * 3600 * 1000;

    private CalendarValidator() {
    }

    /** @throws InvalidRequestException naming the first rule the name breaks */
    public static void validateName(String name) {
        if (name == null || name.isEmpty()) {
            throw new InvalidRequestException("calendar", "missing calendar name (the record key)");
        }
        if (name.length() > ScheduleValidator.MAX_TASK_ID_CHARS) {
            throw new InvalidRequestException("calendar", "calendar name is longer than " + ScheduleValidator.MAX_TASK_ID_CHARS
                    + " chars: " + name.length());
        }
        if (name.chars().anyMatch(Character::isISOControl)) {
            throw new InvalidRequestException("calendar", "calendar name contains control characters");
        }
    }

    /**
     * The rules that do not depend on the time, for a calendar read back from the calendars topic (where it was
     * checked whole when it was set): a name, bounded lists of well-formed entries in a known zone, not every weekday
     * excluded. A delete is not a calendar (the topic holds a delete as a tombstone).
     *
     * @throws InvalidRequestException naming the first rule it breaks
     */
    public static ExclusionCalendar compile(String name, CalendarRequest request) {
        validateName(name);
        if (request.getDelete()) {
            throw new InvalidRequestException("delete", "a delete is not a calendar (a tombstone deletes one)");
        }
        ExclusionCalendar calendar = ExclusionCalendar.of(name, request);
        if (calendar.excludesEveryWeekday()) {
            throw new InvalidRequestException("excludeWeekdays", "calendar " + Quote.of(name)
                    + " excludes all seven weekdays: it excludes every occurrence of any task");
        }
        return calendar;
    }

    /**
     * Checks a calendar to be set at {@code nowMs} and compiles it.
     *
     * @throws InvalidRequestException naming the first rule it breaks
     */
    public static ExclusionCalendar validate(String name, CalendarRequest request, long nowMs) {
        validateName(name);
        if (request.getDelete()) {
            return null;
        }
        ExclusionCalendar calendar = compile(name, request);
        if (calendar.nextAllowed(nowMs, nowMs + LOOK_AHEAD_MS).isEmpty()) {
            throw new InvalidRequestException(null, "calendar " + Quote.of(name) + " excludes every instant from "
                    + Instant.ofEpochMilli(nowMs) + " for the next " + LOOK_AHEAD_DAYS + " days: it would exclude every occurrence");
        }
        return calendar;
    }
}
