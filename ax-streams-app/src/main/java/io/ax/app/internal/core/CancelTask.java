package io.ax.app.internal.core;

import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;

/**
 * WAITING / PENDING / TRIGGERED / RUNNING / RETRY_WAITING → CANCELLED. A fired execution also gets a CANCEL signal on
 * {@code ax.dispatch}, so a worker running it can stop; its later reports are recorded as ignored.
 * Cancelling an unknown or finished task is answered with IGNORED on {@code ax.state}.
 */
final class CancelTask {
    private CancelTask() {
    }

    static Decision decide(Step step, StoredTask task, Input.Cancel input) {
        if (task == null) {
            step.ignored(EventCode.UNKNOWN_TASK, null, null, null, "cancel: no such task", input.source());
            return step.unchanged();
        }
        if (!Liveness.isLive(task)) {
            step.ignored(EventCode.FINISHED, task, null, null, "cancel: task already ended (" + Liveness.endState(task) + ")", input.source());
            return step.unchanged();
        }
        String reason = input.request().getReason();
        return step.save(endLive(step, task, TaskState.CANCELLED, "cancelled" + (reason == null ? "" : ": " + reason)));
    }

    /**
     * Ends everything {@code task} has ahead of it: the pending timer and the executions in flight (its timers
     * too), the current one and those beside it (overlap ALLOW). Returns the task marked cancelled; the caller stores it (or overwrites it, for a replace).
     */
    static StoredTask endLive(Step step, StoredTask task, TaskState to, String reason) {
        if (Admission.isAwaiting(task)) {
            return Admission.endAwaiting(step, task, to, reason);
        }
        StoredTask.Builder ended = StoredTask.newBuilder(task).setCancelled(true);
        if (OccurrenceDependencies.appliesTo(task)) {
            OccurrenceDependencies.maybeEndHold(step, task, ended); // its occurrence ends below, as any pending one
            OccurrenceDependencies.maybeUnsubscribe(step, task);
        } else if (task.getWaitTimeoutAtMs() != null) {
            AwaitDependencies.endWait(step, task, ended, to, reason);
        }
        Long nextDueAtMs = task.getNextDueAtMs();
        if (nextDueAtMs != null) {
            step.unsetTimer(nextDueAtMs, TimerKind.OCCURRENCE);
            step.pendingEnded(task, ExecutionIds.of(task.getTaskId(), task.getIncarnation(), nextDueAtMs), nextDueAtMs, to, reason);
            ended.setNextDueAtMs(null);
        }
        Long queuedDueAtMs = task.getQueuedDueAtMs();
        if (queuedDueAtMs != null) {
            step.pendingEnded(task, ExecutionIds.of(task.getTaskId(), task.getIncarnation(), queuedDueAtMs), queuedDueAtMs, to,
                    reason + " (it was queued behind the execution in flight, overlap QUEUE_ONE)");
            ended.setQueuedDueAtMs(null);
        }
        StoredExecution cancelled = end(step, task, task.getExecution(), to, reason);
        if (cancelled != null) {
            ended.setExecution(cancelled);
        }
        for (StoredExecution beside : task.getAlongside()) {
            // Overlap ALLOW: the earlier executions still in flight end with the task, each with its own event and signal.
            end(step, task, beside, to, reason);
        }
        ended.setAlongside(java.util.List.of());
        if (!task.getSlices().isEmpty()) {
            // A sharded task: every slice still pending, in flight or held ends too, each with its own event and signal.
            java.util.List<StoredExecution> slices = new java.util.ArrayList<>(task.getSlices().size());
            for (StoredExecution slice : task.getSlices()) {
                StoredExecution ended1 = end(step, task, slice, to, reason);
                slices.add(ended1 != null ? ended1 : slice);
            }
            ended.setSlices(slices);
        }
        return ended.build();
    }

    /**
     * Ends one execution in flight (its timers and gate slots given up; a CANCEL signal unless it waits for a retry) or
     * held by flow control before its dispatch (its place at the gates given up, no signal: no worker has it). Returns
     * it ended, or null when it has nothing ahead.
     */
    static StoredExecution end(Step step, StoredTask task, StoredExecution execution, TaskState to, String reason) {
        if (execution == null) {
            return null;
        }
        boolean inFlight = StateMachine.isInFlight(execution.getState());
        if (!inFlight && !FlowControl.isHeld(execution)) {
            return null;
        }
        StoredExecution ended = Executions.copyOf(Attempts.disarm(step, execution)).setState(to).build();
        step.transition(task, ended, execution.getState(), inFlight ? reason : reason + " (it was held by flow control)");
        if (inFlight && execution.getState() != TaskState.RETRY_WAITING) {
            step.dispatch(Dispatches.cancel(task, execution, step.settings().defaultTimeoutMs(), step.nowMs()));
        }
        return ended;
    }
}
