package io.ax.app.internal.core;

import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import java.util.ArrayList;
import java.util.List;

/**
 * The timers a stored task has armed, read from the task alone: what the rules' {@code SetTimer} effects left set and
 * not given up, except timers that could only fire stale. The timer store is derived from the task store by this
 * function (rebuilt on every assignment, so it writes no changelog), which is why it must be exact in one direction:
 * every timer whose firing would change the task is here ({@code ArmedTimersTest} and the property tests hold every
 * decision of {@code CoreDriver} to it); a timer here that the rules had given up would fire stale, as any copy does.
 * <ul>
 *   <li>OCCURRENCE at {@code nextDueAtMs}: unless the task is paused, awaits admission, holds a caught-up occurrence
 *       ({@code catchUpHeld}) or waits for other tasks (the occurrence's timer has fired, or is set when the wait ends);</li>
 *   <li>DEPENDENCY_WAIT at {@code waitTimeoutAtMs};</li>
 *   <li>TIMEOUT at {@code timeoutAtMs} and RETRY at {@code retryAtMs} of each execution: the current one, those in flight
 *       beside it (overlap ALLOW) and the slices of a sharded task; no RETRY for an execution held at a flow gate
 *       ({@code heldSinceMs}: its retry fired and it awaits a grant);</li>
 *   <li>PURGE at {@code purgeAtMs}.</li>
 * </ul>
 * Priorities are the ones the rules set: the request's, 0 for PURGE and DEPENDENCY_WAIT.
 */
public final class ArmedTimers {
    private ArmedTimers() {
    }

    public static List<Effect.SetTimer> of(StoredTask task) {
        List<Effect.SetTimer> timers = new ArrayList<>(2);
        String taskId = task.getTaskId();
        int priority = task.getRequest().getPriority();
        if (Admission.isAwaiting(task)) {
            return timers; // stored provisionally, not armed
        }
        Long next = task.getNextDueAtMs();
        if (next != null && task.getPausedAtMs() == null && !task.getCatchUpHeld() && task.getWaitTimeoutAtMs() == null) {
            timers.add(new Effect.SetTimer(taskId, next, priority, TimerKind.OCCURRENCE));
        }
        if (task.getWaitTimeoutAtMs() != null) {
            timers.add(new Effect.SetTimer(taskId, task.getWaitTimeoutAtMs(), 0, TimerKind.DEPENDENCY_WAIT));
        }
        executionTimers(taskId, priority, task.getExecution(), timers);
        for (StoredExecution beside : task.getAlongside()) {
            executionTimers(taskId, priority, beside, timers);
        }
        for (StoredExecution slice : task.getSlices()) {
            executionTimers(taskId, priority, slice, timers);
        }
        if (task.getPurgeAtMs() != null) {
            timers.add(new Effect.SetTimer(taskId, task.getPurgeAtMs(), 0, TimerKind.PURGE));
        }
        return timers;
    }

    private static void executionTimers(String taskId, int priority, StoredExecution execution, List<Effect.SetTimer> timers) {
        if (execution == null) {
            return;
        }
        if (execution.getTimeoutAtMs() != null) {
            timers.add(new Effect.SetTimer(taskId, execution.getTimeoutAtMs(), priority, TimerKind.TIMEOUT));
        }
        if (execution.getRetryAtMs() != null && execution.getHeldSinceMs() == null) { // held: its retry fired, a grant is awaited
            timers.add(new Effect.SetTimer(taskId, execution.getRetryAtMs(), priority, TimerKind.RETRY));
        }
    }
}
