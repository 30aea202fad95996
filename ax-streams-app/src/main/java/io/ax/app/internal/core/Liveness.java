package io.ax.app.internal.core;

import io.ax.schema.StoredTask;

/**
 * Whether a task still has something ahead of it: a next occurrence (its timer set, or held: paused, waiting for a
 * catch-up), an occurrence queued behind the execution in flight (overlap QUEUE_ONE), or an execution in flight (the
 * current one, or one beside it: overlap ALLOW).
 */
public final class Liveness {
    private Liveness() {
    }

    public static boolean isLive(StoredTask task) {
        if (task.getCancelled()) {
            return false;
        }
        return task.getNextDueAtMs() != null || task.getQueuedDueAtMs() != null
                || FlowControl.isBusy(task.getExecution())
                || Alongside.anyInFlight(task);
    }

    /** A short description of where a finished task ended, for IGNORED reasons. */
    public static String endState(StoredTask task) {
        if (task.getCancelled()) {
            return "CANCELLED";
        }
        return task.getExecution() == null ? "finished" : task.getExecution().getState().name();
    }
}
