package io.ax.app.internal.core;

import io.ax.schema.CronTrigger;
import io.ax.schema.IntervalTrigger;
import io.ax.schema.ScheduleRequest;
import io.ax.trigger.CronSchedule;
import io.ax.trigger.CronSchedules;
import io.ax.validation.ScheduleValidator;
import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;
import java.util.zip.CRC32;

/**
 * The due times of a periodic task (interval or cron), jitter and end included. Times here are the ones timers are set
 * at: the nominal time of the trigger plus the task's jitter offset.
 *
 * <p>Jitter: a task with {@code occurrenceJitterMs = J} fires every occurrence {@code offset} ms after its nominal
 * time, where {@code offset} is in [0, J], fixed for the task: the CRC-32 of its taskId modulo J + 1. So a fleet of
 * tasks on the same schedule spreads over J ms, each task keeps its rhythm (the gap between two of its occurrences is
 * the nominal one), the offset is the same on every instance and after every restart, and nothing fires before its
 * nominal time plus its offset (the timer is set there). {@code endAtMs} is compared with the nominal time.
 *
 * <p>An interval's occurrences are {@code anchor + n * everyMs}, counted from the occurrence that fired (the anchor);
 * a cron's come from its {@link CronSchedule} (see there for daylight saving), parsed once and cached
 * ({@link CronSchedules}).
 */
final class Periodic {
    private final long everyMs;          // interval; 0 for cron
    private final CronSchedule cron;     // cron; null for interval
    private final long offsetMs;
    private final long endAtMs;

    private Periodic(long everyMs, CronSchedule cron, long offsetMs, long endAtMs) {
        this.everyMs = everyMs;
        this.cron = cron;
        this.offsetMs = offsetMs;
        this.endAtMs = endAtMs;
    }

    /** The task's periodic schedule, or null for a one-shot. */
    static Periodic of(String taskId, ScheduleRequest request) {
        long offsetMs = offsetMs(taskId, request.getOccurrenceJitterMs());
        long endAtMs = request.getEndAtMs() != null ? request.getEndAtMs() : ScheduleValidator.MAX_INSTANT_MS;
        Object trigger = request.getTrigger();
        if (trigger instanceof IntervalTrigger interval) {
            return new Periodic(interval.getEveryMs(), null, offsetMs, endAtMs);
        }
        if (trigger instanceof CronTrigger c) {
            return new Periodic(0, CronSchedules.get(c.getExpression(), c.getZone()), offsetMs, endAtMs);
        }
        return null;
    }

    /** The task's jitter offset: in [0, jitterMs], from its taskId alone. */
    static long offsetMs(String taskId, long jitterMs) {
        if (jitterMs <= 0) {
            return 0;
        }
        CRC32 crc = new CRC32();
        crc.update(taskId.getBytes(StandardCharsets.UTF_8));
        return crc.getValue() % (jitterMs + 1);
    }

    boolean isCron() {
        return cron != null;
    }

    /** A nominal time moved by the offset, or empty when it is past the end. */
    OptionalLong shifted(long nominalMs) {
        return nominalMs > endAtMs ? OptionalLong.empty() : OptionalLong.of(nominalMs + offsetMs);
    }

    /**
     * The first occurrence strictly after {@code afterMs} on the grid through {@code anchorMs} (an occurrence), or
     * empty when the schedule has ended.
     */
    OptionalLong nextAfter(long anchorMs, long afterMs) {
        if (cron == null) {
            long steps = afterMs < anchorMs ? 0 : (afterMs - anchorMs) / everyMs + 1;
            if (steps > (ScheduleValidator.MAX_INSTANT_MS - anchorMs) / everyMs) {
                return OptionalLong.empty();
            }
            return shifted(anchorMs - offsetMs + steps * everyMs);
        }
        OptionalLong nominal = cron.nextAfter(afterMs - offsetMs);
        return nominal.isPresent() ? shifted(nominal.getAsLong()) : OptionalLong.empty();
    }

    /**
     * How many occurrences after {@code anchorMs} are due by {@code nowMs} (at most {@code limit}); for an interval
     * by arithmetic, for a cron by stepping through them.
     */
    long countDue(long anchorMs, long nowMs, long limit) {
        if (limit <= 0 || nowMs <= anchorMs) {
            return 0;
        }
        if (cron == null) {
            long byNow = (nowMs - anchorMs) / everyMs;
            long byEnd = Math.max(0, (endAtMs - (anchorMs - offsetMs)) / everyMs);
            return Math.min(limit, Math.min(byNow, byEnd));
        }
        long count = 0;
        long t = anchorMs;
        while (count < limit) {
            OptionalLong next = nextAfter(anchorMs, t);
            if (next.isEmpty() || next.getAsLong() > nowMs) {
                break;
            }
            t = next.getAsLong();
            count++;
        }
        return count;
    }

    /** The {@code n}-th occurrence after {@code anchorMs} (n >= 1), which {@link #countDue} said exists. */
    long nth(long anchorMs, long n) {
        if (cron == null) {
            return anchorMs + n * everyMs;
        }
        long t = anchorMs;
        for (long i = 0; i < n; i++) {
            t = nextAfter(anchorMs, t).orElseThrow();
        }
        return t;
    }
}
