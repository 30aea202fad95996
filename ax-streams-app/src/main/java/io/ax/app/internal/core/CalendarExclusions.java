package io.ax.app.internal.core;

import io.ax.InvalidRequestException;
import io.ax.calendar.ExclusionCalendar;
import io.ax.schema.CalendarSkips;
import io.ax.schema.ScheduleRequest;
import io.ax.schema.StoredTask;
import io.ax.validation.CalendarValidator;
import io.ax.validation.Quote;
import java.time.Instant;
import java.util.OptionalLong;

/**
 * Exclusion calendars applied to a periodic task's occurrences.
 *
 * <p><b>At fire time.</b> Every occurrence is timed on the task's grid as if there were no calendar; when its timer
 * fires, the calendar as it stands then is asked about the occurrence's nominal time (before jitter). An excluded one
 * does not run: it is SKIPPED and counts towards {@code maxOccurrences}. Because nothing is skipped ahead when timing, a
 * calendar update applies to the very next occurrence of every task using it, on every partition, with no re-timing:
 * one that newly excludes the timed occurrence skips it, one that removes an exclusion lets the next occurrence run.
 * The cost is one timer fire per excluded occurrence, O(1) work each (a store get, a bounded match).
 *
 * <p><b>Coalescing.</b> The first excluded occurrence of a run is reported at once (SKIPPED, with the calendar's name
 * and what excluded it); the ones after it in the same run are counted in {@code StoredTask.calendarSkips} and reported
 * as one SKIPPED event ({@code skipped}, {@code dueAt} the first, {@code lastDueAt} the last) when the run ends: an
 * occurrence comes due that is not excluded, or the task stops timing occurrences (cancelled, paused, schedule ended).
 * An every-minute task over a weekend exclusion so writes two events, not 2,880.
 *
 * <p><b>At accept.</b> The calendar must exist ({@link #requireAllowsSomeOccurrence}); a task whose calendar
 * excludes every occurrence it would have in the look-ahead ({@value #MAX_CHECKED} occurrences or
 * {@value CalendarValidator#LOOK_AHEAD_DAYS} days, jumping over excluded spans, not stepping through them) is rejected.
 */
final class CalendarExclusions {
    /** Most occurrences looked at when checking that a calendar leaves a task something to run. */
    static final int MAX_CHECKED = 10_000;

    private CalendarExclusions() {
    }

    /**
     * @throws InvalidRequestException when the request names a calendar that does not exist, or one that excludes every
     *                                 occurrence from {@code firstDueMs} within the look-ahead
     */
    static void requireAllowsSomeOccurrence(Step step, String taskId, ScheduleRequest request, long firstDueMs) {
        String name = request.getCalendar();
        if (name == null) {
            return;
        }
        ExclusionCalendar calendar = step.calendars().find(name);
        if (calendar == null) {
            throw new InvalidRequestException("calendar", "unknown calendar " + Quote.of(name) + ": create it first"
                    + " ({\"calendar\":{...}} keyed by its name on the requests topic) and wait for its ACCEPTED event");
        }
        Periodic periodic = Periodic.of(taskId, request);
        long offsetMs = Periodic.offsetMs(taskId, request.getOccurrenceJitterMs());
        long horizonMs = firstDueMs + CalendarValidator.LOOK_AHEAD_MS;
        long t = firstDueMs;
        for (int checked = 0; checked < MAX_CHECKED && t <= horizonMs; checked++) {
            long nominalMs = t - offsetMs;
            if (calendar.exclusion(nominalMs) == null) {
                return;
            }
            OptionalLong allowed = calendar.nextAllowed(nominalMs, horizonMs);
            if (allowed.isEmpty()) {
                break;
            }
            OptionalLong next = periodic.nextAfter(t, allowed.getAsLong() + offsetMs - 1);
            if (next.isEmpty()) {
                break;
            }
            t = next.getAsLong();
        }
        throw new InvalidRequestException("calendar", "calendar " + Quote.of(name) + " excludes every occurrence of the task"
                + " from " + Instant.ofEpochMilli(firstDueMs) + " (looked ahead " + MAX_CHECKED + " occurrences or "
                + CalendarValidator.LOOK_AHEAD_DAYS + " days, or to the schedule's end): it would never run");
    }

    /**
     * What excludes the occurrence due at {@code dueAtMs} (nominal time = due time less the jitter offset), or null when
     * it runs: no calendar, an unknown (deleted) one, or one that does not exclude it.
     */
    static String exclusionOf(Step step, StoredTask task, long dueAtMs) {
        String name = task.getRequest().getCalendar();
        if (name == null) {
            return null;
        }
        ExclusionCalendar calendar = step.calendars().find(name);
        if (calendar == null) {
            return null;
        }
        return calendar.exclusion(dueAtMs - Periodic.offsetMs(task.getTaskId(), task.getRequest().getOccurrenceJitterMs()));
    }

    /** A note for the TRIGGERED event when the task names a calendar that is gone; null otherwise. */
    static String missingCalendarNote(Step step, StoredTask task) {
        String name = task.getRequest().getCalendar();
        if (name == null || step.calendars().find(name) != null) {
            return null;
        }
        return "calendar " + Quote.of(name) + " does not exist (deleted?): no exclusion applied";
    }

    /** The occurrence due at {@code dueAtMs} is excluded: reported now when it begins a run, else counted. */
    static void excluded(Step step, StoredTask task, long dueAtMs, String exclusion) {
        String name = task.getRequest().getCalendar();
        CalendarSkips run = task.getCalendarSkips();
        if (run == null) {
            step.skippedByCalendar(task, ExecutionIds.of(task.getTaskId(), task.getIncarnation(), dueAtMs), dueAtMs, 1, null,
                    "excluded by calendar " + Quote.of(name) + ": " + exclusion + " (further excluded occurrences in a row are"
                            + " reported as one event when the run ends)", name);
            task.setCalendarSkips(CalendarSkips.newBuilder().setCalendar(name).setCount(0).setReason(exclusion).build());
            return;
        }
        run.setCount(run.getCount() + 1);
        if (run.getFirstDueAtMs() == null) {
            run.setFirstDueAtMs(dueAtMs);
        }
        run.setLastDueAtMs(dueAtMs);
    }

    /** The run of excluded occurrences ends: what was counted after its first is reported as one SKIPPED event. */
    static void maybeReportRun(Step step, StoredTask task, String why) {
        CalendarSkips run = task.getCalendarSkips();
        if (run == null) {
            return;
        }
        task.setCalendarSkips(null);
        if (run.getCount() == 0) {
            return;
        }
        long firstMs = run.getFirstDueAtMs();
        step.skippedByCalendar(task, ExecutionIds.of(task.getTaskId(), task.getIncarnation(), firstMs), firstMs, run.getCount(),
                run.getLastDueAtMs(), run.getCount() + " further occurrence(s) in a row excluded by calendar " + Quote.of(run.getCalendar())
                        + " (the run began with " + run.getReason() + "), reported together: " + why, run.getCalendar());
    }
}
