package io.ax.app.internal.core;

import io.ax.schema.AtTrigger;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;
import java.time.Instant;

/**
 * An operator's "run now" ({@code {"trigger":true}}): PENDING → TRIGGERED at once, for a task waiting for its next
 * occurrence. A run asked for is due when it is asked for: the dispatch is due now, so it is not early.
 * <ul>
 *   <li>One-shot: the pending occurrence fires now instead of at its due time, with the executionId its PENDING event
 *       announced; the timer at the old due time is given up (it fires stale, if ever).</li>
 *   <li>Periodic (interval, cron): one extra occurrence runs now, announced PENDING then TRIGGERED, with its own
 *       executionId (derived from the trigger request's offset, so re-processing the request yields the same id and
 *       no regular occurrence shares it). The next regular occurrence keeps its due time and timer: the grid is
 *       unchanged. If the extra run is still in flight when that occurrence comes due, the occurrence is SKIPPED,
 *       as any overlap is.</li>
 * </ul>
 * Anything else is answered IGNORED with the reason: an unknown task, one with an execution in flight (TRIGGERED,
 * RUNNING, RETRY_WAITING: it is running already), one that ended, one that is paused.
 */
final class TriggerTask {
    private TriggerTask() {
    }

    static Decision decide(Step step, StoredTask task, Input.Trigger input) {
        String refusal = refusal(task);
        if (refusal != null) {
            step.ignored(EventCode.REFUSED, task, null, null, "trigger: " + refusal, input.source());
            return step.unchanged();
        }
        String reason = "run now by request" + (input.request().getReason() == null ? "" : ": " + input.request().getReason());
        if (task.getRequest().getTrigger() instanceof AtTrigger) {
            fireOneShotNow(step, task, reason);
        } else {
            runExtraOccurrenceNow(step, task, input.source().getOffset(), reason);
        }
        // The task is this decision's own decoded copy: changed in place, saved once.
        task.setOccurrences(task.getOccurrences() + 1);
        return step.save(task);
    }

    private static void fireOneShotNow(Step step, StoredTask task, String reason) {
        long dueAtMs = task.getNextDueAtMs();
        step.unsetTimer(dueAtMs, TimerKind.OCCURRENCE);
        String executionId = ExecutionIds.of(task.getTaskId(), task.getIncarnation(), dueAtMs);
        task.setNextDueAtMs(null);
        task.setExecution(DispatchOccurrence.dispatch(step, task, dueNow(executionId, step.nowMs()), TaskState.PENDING,
                reason + " (was due " + Instant.ofEpochMilli(dueAtMs) + ")"));
    }

    private static void runExtraOccurrenceNow(Step step, StoredTask task, long requestOffset, String reason) {
        long nowMs = step.nowMs();
        String executionId = ExecutionIds.of(task.getTaskId(), requestOffset, nowMs);
        step.pending(task, executionId, nowMs, reason + " (an extra occurrence; the next regular one stays due "
                + Instant.ofEpochMilli(task.getNextDueAtMs()) + ")");
        task.setExecution(DispatchOccurrence.dispatch(step, task, dueNow(executionId, nowMs), TaskState.PENDING, reason));
    }

    private static StoredExecution dueNow(String executionId, long nowMs) {
        return StoredExecution.newBuilder()
                .setExecutionId(executionId)
                .setAttempt(1)
                .setState(TaskState.PENDING)
                .setDueAtMs(nowMs)
                .setFiredAtMs(nowMs)
                .setLastSignMs(nowMs)
                .build();
    }

    private static String refusal(StoredTask task) {
        if (task == null) {
            return "no such task";
        }
        if (!Liveness.isLive(task)) {
            return "task already ended (" + Liveness.endState(task) + ")";
        }
        StoredExecution execution = Shards.firstBusy(task); // the execution, or a slice of a sharded task
        if (execution != null) {
            return "execution " + execution.getExecutionId() + " is " + execution.getState()
                    + (FlowControl.isHeld(execution) ? " (held by flow control)" : "")
                    + "; only a PENDING task can be triggered";
        }
        if (task.getNextDueAtMs() == null) {
            return "nothing is pending";
        }
        if (task.getPausedAtMs() != null) {
            return "the task is paused since " + Instant.ofEpochMilli(task.getPausedAtMs()) + "; resume it first";
        }
        return null;
    }
}
