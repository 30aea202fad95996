package io.ax.app.internal.core;

import io.ax.schema.StoredTask;

/**
 * Whether a task still has something ahead of it: a wait for other tasks (WAITING), a next occurrence (its timer set,
 * or held: paused, waiting for a catch-up), an occurrence queued behind the execution in flight (overlap QUEUE_ONE), or
 * an execution in flight (the current one, or one beside it: overlap ALLOW), or held for a flow-control grant.
 */
public final class Liveness {
    private Liveness() {
    }

    public static boolean isLive(StoredTask task) {
        if (task.getCancelled()) {
            return false;
        }
        return task.getNextDueAtMs() != null || task.getQueuedDueAtMs() != null || task.getWaitTimeoutAtMs() != null
                || FlowControl.isBusy(task.getExecution()) || Admission.isAwaiting(task)
                || Alongside.anyInFlight(task)
                || Shards.anySliceBusy(task);
    }

    /** A short description of where a finished task ended, for IGNORED reasons. */
    public static String endState(StoredTask task) {
        if (task.getCancelled()) {
            return "CANCELLED";
        }
        return task.getExecution() == null ? "finished" : task.getExecution().getState().name();
    }

    /**
     * The final state a finished task reports to the tasks that wait for it ({@code after}): CANCELLED when it was
     * cancelled or never ran, else its last execution's state (SUCCESS or FAILED).
     */
    public static String finalOutcome(StoredTask task) {
        if (task.getCancelled() || task.getExecution() == null) {
            return "CANCELLED";
        }
        if (task.getShardsOutcome() != null) {
            return task.getShardsOutcome(); // a sharded task: its occurrence's outcome over all slices (Shards)
        }
        return task.getExecution().getState().name();
    }
}
