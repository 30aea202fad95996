package io.ax.app.internal.core;

import io.ax.InvalidRequestException;
import io.ax.schema.AtTrigger;
import io.ax.schema.CronTrigger;
import io.ax.schema.DelayTrigger;
import io.ax.schema.IntervalTrigger;
import io.ax.schema.MisfirePolicy;
import io.ax.schema.ScheduleRequest;
import io.ax.trigger.CronSchedules;
import io.ax.validation.ScheduleValidator;
import java.time.Instant;
import java.util.OptionalLong;

/**
 * When a task's occurrences are due, and what becomes of the ones missed while the scheduler was down or behind.
 *
 * <p>When an occurrence fires at {@code now}, the occurrences after it that are already due by {@code now} were
 * missed. The task's misfire policy decides ({@link #afterFire}):
 * <ul>
 *   <li>{@code FIRE_ONCE} (default): the late occurrence ran; the missed ones are coalesced into it (one SKIPPED event
 *       with how many and from when); the next is the first occurrence after now.</li>
 *   <li>{@code FIRE_ALL}: the missed ones run, oldest first, one after the other ({@code FireTimer} holds a missed
 *       occurrence until the execution before it ends); at most {@code maxCatchUp} wait, older ones are SKIPPED.</li>
 *   <li>{@code SKIP}: the missed ones are SKIPPED, and so is the occurrence firing when it fires more than
 *       {@code ax.misfire.threshold.ms} late ({@code FireTimer}); the next is the first occurrence after now.</li>
 * </ul>
 * The same rules hold for interval and cron. Skipped occurrences count towards {@code maxOccurrences}. For a cron,
 * finding the missed occurrences steps through them: at most {@value #MAX_COUNTED} are counted after one fire (an
 * every-second cron down for a day misses 86,400); beyond that the SKIPPED event says so, the next occurrence is
 * the first after now, and FIRE_ALL catches up none of them (keeping the latest would mean stepping through all).
 */
public final class Occurrences {
    /** Most missed cron occurrences stepped through after one fire. */
    static final long MAX_COUNTED = 10_000;

    private Occurrences() {
    }

    /**
     * What follows the fire of the occurrence due at {@code dueAtMs}.
     *
     * @param skipped   how many occurrences after it are SKIPPED now (0: none), the first due at {@code firstSkippedMs},
     *                  the last at {@code lastSkippedMs}
     * @param countCapped the missed cron occurrences were counted up to {@link #MAX_COUNTED} only: more were passed over
     * @param next      the next occurrence to time, or empty when the task has no more
     * @param catchUp   the next occurrence is already due (FIRE_ALL catching up)
     */
    public record Plan(long skipped, long firstSkippedMs, long lastSkippedMs, boolean countCapped, OptionalLong next,
                       boolean catchUp) {
    }

    /**
     * The first due time. A delay counts from the request record's timestamp (when it was sent); an
     * interval without a start begins one interval after it; cron takes its first occurrence after it. A periodic
     * task's jitter offset is added ({@link Periodic}).
     *
     * @throws InvalidRequestException when the trigger has no occurrence (a cron that never matches again, an end
     *                                 before the first occurrence)
     */
    public static long firstDue(String taskId, ScheduleRequest request, long requestTimestampMs) {
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
        Periodic periodic = Periodic.of(taskId, request);
        if (trigger instanceof IntervalTrigger interval) {
            long nominalMs = interval.getStartAtMs() != null ? interval.getStartAtMs() : requestTimestampMs + interval.getEveryMs();
            return periodic.shifted(nominalMs).orElseThrow(() -> endsBeforeFirst(request, nominalMs));
        }
        CronTrigger cron = (CronTrigger) trigger;
        OptionalLong first = CronSchedules.get(cron.getExpression(), cron.getZone()).nextAfter(requestTimestampMs);
        if (first.isEmpty()) {
            throw new InvalidRequestException("cron", "cron expression \"" + cron.getExpression() + "\" has no future occurrence");
        }
        return periodic.shifted(first.getAsLong()).orElseThrow(() -> endsBeforeFirst(request, first.getAsLong()));
    }

    private static InvalidRequestException endsBeforeFirst(ScheduleRequest request, long firstNominalMs) {
        return new InvalidRequestException("endAt", "endAt " + Instant.ofEpochMilli(request.getEndAtMs())
                + " is before the first occurrence, " + Instant.ofEpochMilli(firstNominalMs) + ": the task would never run");
    }

    /**
     * After the occurrence due at {@code dueAtMs} fired (ran or was skipped) at {@code nowMs}, with
     * {@code occurrences} counted so far (that one included): what is skipped and what is timed next. Empty plan,
     * with no next, for a one-shot.
     */
    public static Plan afterFire(String taskId, ScheduleRequest request, long occurrences, long dueAtMs, long nowMs) {
        Periodic periodic = Periodic.of(taskId, request);
        long left = request.getMaxOccurrences() == null ? Long.MAX_VALUE : request.getMaxOccurrences() - occurrences;
        if (periodic == null || left <= 0) {
            return new Plan(0, 0, 0, false, OptionalLong.empty(), false);
        }
        long limit = periodic.isCron() ? Math.min(left, MAX_COUNTED) : left;
        long due = periodic.countDue(dueAtMs, nowMs, limit);
        boolean capped = periodic.isCron() && due == MAX_COUNTED && MAX_COUNTED < left;
        long keep = request.getMisfire() == MisfirePolicy.FIRE_ALL && !capped ? Math.min(due, request.getMaxCatchUp()) : 0;
        long skipped = due - keep;
        long firstSkippedMs = skipped > 0 ? periodic.nextAfter(dueAtMs, dueAtMs).getAsLong() : 0;
        long lastSkippedMs = skipped > 0 ? periodic.nth(dueAtMs, skipped) : 0;
        if (skipped >= left) {
            return new Plan(skipped, firstSkippedMs, lastSkippedMs, false, OptionalLong.empty(), false);
        }
        if (keep > 0) {
            return new Plan(skipped, firstSkippedMs, lastSkippedMs, false, OptionalLong.of(periodic.nth(dueAtMs, skipped + 1)), true);
        }
        return new Plan(skipped, firstSkippedMs, lastSkippedMs, capped, periodic.nextAfter(dueAtMs, Math.max(nowMs, dueAtMs)), false);
    }

    /**
     * The next {@code count} fire times of a cron expression in a zone strictly after {@code afterMs}, by the same
     * path a cron task's occurrences take ({@link Periodic}, no jitter); fewer when the expression runs out. For
     * {@code ./ax cron-next}.
     *
     * @throws InvalidRequestException naming a bad expression or zone
     */
    public static java.util.List<Long> nextCronTimes(String expression, String zoneId, long afterMs, int count) {
        ScheduleRequest request = ScheduleRequest.newBuilder().setJobType("cron-next")
                .setTrigger(new CronTrigger(expression, zoneId)).build();
        Periodic periodic = Periodic.of("cron-next", request);
        java.util.List<Long> times = new java.util.ArrayList<>();
        long t = afterMs;
        while (times.size() < count) {
            OptionalLong next = periodic.nextAfter(t, t);
            if (next.isEmpty()) {
                break;
            }
            t = next.getAsLong();
            times.add(t);
        }
        return times;
    }
}
