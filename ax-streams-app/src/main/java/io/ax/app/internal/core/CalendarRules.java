package io.ax.app.internal.core;

import io.ax.InvalidRequestException;
import io.ax.calendar.ExclusionCalendar;
import io.ax.schema.CalendarRequest;
import io.ax.validation.CalendarValidator;
import io.ax.validation.Quote;

/**
 * A calendar request (PERIODIC.md, "Calendars"), read on the requests topic by whichever partition its name hashes to,
 * decided as a pure function of the calendars as they stand ({@link CalendarLookup}), the request and the time. A valid
 * one ({@link CalendarValidator}) is published to the compacted calendars topic ({@link Effect.PublishCalendar}: the
 * accepted request, or a tombstone for a delete) with an {@code ACCEPTED} line on the state topic
 * ({@link Effect.CalendarAccepted}); every instance reads that topic into its global calendar store, so a task on any
 * partition sees every calendar. A bad one is REJECTED on the state topic with the reason (and {@code calendar} naming
 * it); a delete of a calendar that does not exist is IGNORED. Bounded: the validator bounds the request's lists before
 * anything is compiled. The calendar concerns no task: the decision leaves the task store as it is.
 */
final class CalendarRules {
    private CalendarRules() {
    }

    static Decision decide(Step step, Input.Calendar input, CalendarLookup calendars) {
        String name = input.taskId();
        CalendarRequest request = input.request();
        ExclusionCalendar calendar;
        try {
            calendar = CalendarValidator.validate(name, request, step.nowMs());
        } catch (InvalidRequestException e) {
            step.rejectedCalendar(EventCode.of(e), "calendar " + Quote.of(name) + " rejected: " + e.getMessage(), input.source());
            return step.unchanged();
        }
        if (request.getDelete()) {
            if (!calendars.exists(name)) {
                step.ignoredCalendar(EventCode.UNKNOWN_TASK, "delete of calendar " + Quote.of(name) + ", which does not exist",
                        input.source());
                return step.unchanged();
            }
            step.publishCalendar(null, "calendar deleted: tasks naming it run unexcluded from their next occurrence on",
                    input.source());
            return step.unchanged();
        }
        step.publishCalendar(request, "calendar set: excludes " + calendar.summary() + (request.getDescription() == null ? ""
                : " (" + Quote.truncate(request.getDescription(), 200) + ")") + "; applies to the next occurrences of every task"
                + " naming it", input.source());
        return step.unchanged();
    }
}
