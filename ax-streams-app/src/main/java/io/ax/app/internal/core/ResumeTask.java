package io.ax.app.internal.core;

import io.ax.schema.AtTrigger;
import io.ax.schema.MisfirePolicy;
import io.ax.schema.StoredTask;
import java.time.Instant;

/**
 * A paused periodic task is resumed by request ({@code {"resume":true}}). The occurrences that came due while it was
 * paused do not run: they are SKIPPED as one event (how many, from when to when, reason "paused"); the misfire policy
 * does not apply to them, since they were not missed but held back on purpose. They count towards
 * {@code maxOccurrences}. The first occurrence after now is timed (PENDING, with the reason); when the schedule ended
 * meanwhile ({@code endAt}, {@code maxOccurrences}), the task ends once its execution in flight, if any, has.
 *
 * <p>IGNORED with the reason: an unknown task, a finished one, a one-shot, one that is not paused.
 */
final class ResumeTask {
    private ResumeTask() {
    }

    static Decision decide(Step step, StoredTask task, Input.Resume input) {
        EventCode refusal = refusal(task);
        if (refusal != null) {
            step.ignored(refusal, task, null, null, "resume: " + switch (refusal) {
                case UNKNOWN_TASK -> "no such task";
                case FINISHED -> "task already ended (" + Liveness.endState(task) + ")";
                case NOT_PERIODIC -> "a one-shot task is never paused (only interval and cron tasks are)";
                default -> "the task is not paused";
            }, input.source());
            return step.unchanged();
        }
        long nowMs = step.nowMs();
        String since = "paused since " + Instant.ofEpochMilli(task.getPausedAtMs());
        String reason = "resumed by request" + (input.request().getReason() == null ? "" : ": " + input.request().getReason())
                + " (" + since + ")";
        task.setPausedAtMs(null);
        long firstMs = task.getNextDueAtMs();
        if (firstMs > nowMs) {
            step.setTimer(firstMs, task.getRequest().getPriority(), TimerKind.OCCURRENCE);
            step.pending(task, ExecutionIds.of(task.getTaskId(), task.getIncarnation(), firstMs), firstMs, reason);
            return step.save(task);
        }
        // The held occurrence and those after it due by now: skipped, whatever the misfire policy (SKIP counts them).
        Occurrences.Plan plan = Occurrences.afterFire(task.getTaskId(),
                io.ax.schema.ScheduleRequest.newBuilder(task.getRequest()).setMisfire(MisfirePolicy.SKIP).build(),
                task.getOccurrences() + 1, firstMs, nowMs);
        long count = 1 + plan.skipped();
        step.skipped(task, ExecutionIds.of(task.getTaskId(), task.getIncarnation(), firstMs), firstMs, count,
                plan.skipped() > 0 ? plan.lastSkippedMs() : null, "paused: " + count + (plan.countCapped() ? " or more" : "")
                        + " occurrence(s) came due while the task was paused (" + since + "); not run");
        task.setOccurrences(task.getOccurrences() + count);
        task.setNextDueAtMs(null);
        if (OccurrenceDependencies.appliesTo(task)) { // the next occurrence's dependency period starts after the last skipped
            task.setPreviousDueAtMs(plan.skipped() > 0 ? plan.lastSkippedMs() : firstMs);
        }
        if (plan.next().isPresent()) {
            long nextMs = plan.next().getAsLong();
            task.setNextDueAtMs(nextMs);
            step.setTimer(nextMs, task.getRequest().getPriority(), TimerKind.OCCURRENCE);
            step.pending(task, ExecutionIds.of(task.getTaskId(), task.getIncarnation(), nextMs), nextMs, reason);
        }
        // The task is this decision's own decoded copy: changed in place, saved once.
        return step.save(task);
    }

    private static EventCode refusal(StoredTask task) {
        if (task == null) {
            return EventCode.UNKNOWN_TASK;
        }
        if (!Liveness.isLive(task)) {
            return EventCode.FINISHED;
        }
        if (task.getRequest().getTrigger() instanceof AtTrigger) {
            return EventCode.NOT_PERIODIC;
        }
        return task.getPausedAtMs() == null ? EventCode.REFUSED : null;
    }
}
