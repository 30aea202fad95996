package io.ax.app.internal.core;

import io.ax.InvalidRequestException;
import io.ax.schema.AtTrigger;
import io.ax.schema.CronTrigger;
import io.ax.schema.DelayTrigger;
import io.ax.schema.IntervalTrigger;
import io.ax.schema.ScheduleRequest;
import io.ax.trigger.CronSchedule;
import io.ax.validation.ScheduleValidator;
import java.util.OptionalLong;

/**
 * When a task's occurrences are due.
 *
 * <p>Misfire policy (occurrences missed while the scheduler was down or behind): the late occurrence fires
 * once, as soon as possible, and the next one is the first regular occurrence after now; the ones in
 * between are skipped and counted ({@link Next#skipped}).
 */
public final class Occurrences {
    private Occurrences() {
    }

    /** The next due time, and how many regular occurrences were passed over to reach it. */
    public record Next(long dueAtMs, long skipped) {
    }

    /**
     * The first due time. A delay counts from the request record's timestamp (when it was sent); an
     * interval without a start begins one interval after it; cron takes its first occurrence after it.
     */
    public static long firstDue(ScheduleRequest request, long requestTimestampMs) {
        Object trigger = request.getTrigger();
        if (trigger instanceof AtTrigger at) {
            return at.getAtMs();
        }
        if (!(trigger instanceof IntervalTrigger interval && interval.getStartAtMs() != null)) {
            // The trigger counts from the record's timestamp, which any producer can set (or leave at -1).
            ScheduleValidator.requireInstant("record timestamp", requestTimestampMs);
        }
        if (trigger instanceof DelayTrigger delay) {
            return requestTimestampMs + delay.getDelayMs();
        }
        if (trigger instanceof IntervalTrigger interval) {
            return interval.getStartAtMs() != null ? interval.getStartAtMs() : requestTimestampMs + interval.getEveryMs();
        }
        CronTrigger cron = (CronTrigger) trigger;
        return CronSchedule.parse(cron.getExpression(), cron.getZone()).nextAfter(requestTimestampMs)
                .orElseThrow(() -> new InvalidRequestException("cron", "cron expression \"" + cron.getExpression()
                        + "\" has no future occurrence"));
    }

    /** The occurrence after the one due at {@code dueAtMs} that fired at {@code nowMs}; empty for one-shots. */
    public static java.util.Optional<Next> next(ScheduleRequest request, long dueAtMs, long nowMs) {
        Object trigger = request.getTrigger();
        if (trigger instanceof IntervalTrigger interval) {
            long everyMs = interval.getEveryMs();
            long next = dueAtMs + everyMs;
            long skipped = 0;
            if (next <= nowMs) {
                skipped = (nowMs - dueAtMs) / everyMs;
                next = dueAtMs + everyMs * (skipped + 1);
            }
            return java.util.Optional.of(new Next(next, skipped));
        }
        if (trigger instanceof CronTrigger cron) {
            OptionalLong next = CronSchedule.parse(cron.getExpression(), cron.getZone()).nextAfter(Math.max(dueAtMs, nowMs));
            return next.isPresent() ? java.util.Optional.of(new Next(next.getAsLong(), 0)) : java.util.Optional.empty();
        }
        return java.util.Optional.empty();
    }
}
