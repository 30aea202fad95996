package io.ax.app.internal.core;

import io.ax.schema.AtTrigger;
import io.ax.schema.DelayTrigger;
import io.ax.schema.ScheduleRequest;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;
import java.time.Instant;
import java.util.OptionalLong;

/**
 * A schedule request with {@code ifExists=UPDATE} for a live periodic task: the trigger and every option are replaced
 * by the request's, the execution in flight is not disturbed (same executionId, attempt, timers; from its next
 * timeout re-arm or retry on, the new timeoutMs, maxRetries and backoff apply), and the next occurrence is timed from
 * the new schedule: its first due time, or when that is not after now, the first occurrence after now on its grid.
 * The task keeps its incarnation (so its executionIds), its occurrence count (it counts towards a new
 * {@code maxOccurrences}), its pause and an occurrence queued behind the execution in flight. A missed occurrence held
 * for a FIRE_ALL catch-up belongs to the old schedule and is dropped.
 *
 * <p>On {@code ax.state}: the old pending occurrence, when the new schedule does not have it, PENDING → CANCELLED
 * ("schedule updated ..."), and the new one PENDING with the reason. A one-shot task, or a one-shot trigger in the
 * request, is IGNORED (NOT_PERIODIC): {@code ifExists=REPLACE} replaces those. Without a live task, UPDATE schedules
 * a new one, as KEEP and REPLACE do.
 */
final class UpdateSchedule {
    private UpdateSchedule() {
    }

    static Decision decide(Step step, StoredTask task, Input.Schedule input, long firstDueMs) {
        ScheduleRequest request = input.request();
        if (task.getRequest().getTrigger() instanceof AtTrigger || request.getTrigger() instanceof AtTrigger
                || request.getTrigger() instanceof DelayTrigger) {
            step.ignored(EventCode.NOT_PERIODIC, task, null, null, "update: ifExists=UPDATE changes the schedule of a periodic"
                    + " task to another periodic trigger (everyMs or cron); " + (task.getRequest().getTrigger() instanceof AtTrigger
                    ? "this task is a one-shot" : "the request is a one-shot") + ": use ifExists=REPLACE", input.source());
            return step.unchanged();
        }
        long nowMs = step.nowMs();
        String origin = "schedule updated by the request at offset " + input.source().getOffset() + " (ifExists=UPDATE)";
        Long nextMs = firstDueMs;
        if (firstDueMs <= nowMs) {
            OptionalLong next = Periodic.of(task.getTaskId(), request).nextAfter(firstDueMs, nowMs);
            nextMs = next.isPresent() ? next.getAsLong() : null;
        }
        Long oldNextMs = task.getNextDueAtMs();
        boolean paused = task.getPausedAtMs() != null;
        OccurrenceDependencies.onUpdate(step, task, request); // periodic tasks that wait: the wait, the subscriptions
        if (oldNextMs != null) {
            if (!paused && !task.getCatchUpHeld()) {
                step.unsetTimer(oldNextMs, TimerKind.OCCURRENCE);
            }
            if (!oldNextMs.equals(nextMs)) {
                step.pendingEnded(task, ExecutionIds.of(task.getTaskId(), task.getIncarnation(), oldNextMs), oldNextMs,
                        TaskState.CANCELLED, origin + ": this occurrence is not on the new schedule");
            }
        }
        // The task is this decision's own decoded copy: changed in place, saved once.
        task.setRequest(request);
        task.setCatchUpHeld(false);
        task.setNextDueAtMs(nextMs);
        StoredExecution execution = task.getExecution();
        boolean inFlight = execution != null && StateMachine.isInFlight(execution.getState());
        if (nextMs != null) {
            if (!paused) {
                step.setTimer(nextMs, request.getPriority(), TimerKind.OCCURRENCE);
            }
            step.pending(task, ExecutionIds.of(task.getTaskId(), task.getIncarnation(), nextMs), nextMs, origin
                    + (inFlight ? "; execution " + execution.getExecutionId() + " keeps running (attempt " + execution.getAttempt() + ")" : "")
                    + (paused ? "; the task stays paused since " + Instant.ofEpochMilli(task.getPausedAtMs()) : ""));
        }
        step.scheduled();
        return step.save(task);
    }
}
