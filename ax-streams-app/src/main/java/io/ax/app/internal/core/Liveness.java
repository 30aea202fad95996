package io.ax.app.internal.core;

import io.ax.schema.StoredTask;

/** Whether a task still has something ahead of it: a timer set, or an execution in flight. */
public final class Liveness {
    private Liveness() {
    }

    public static boolean isLive(StoredTask task) {
        if (task.getCancelled()) {
            return false;
        }
        return task.getNextDueAtMs() != null
                || (task.getExecution() != null && StateMachine.isInFlight(task.getExecution().getState()));
    }

    /** A short description of where a finished task ended, for IGNORED reasons. */
    public static String endState(StoredTask task) {
        if (task.getCancelled()) {
            return "CANCELLED";
        }
        return task.getExecution() == null ? "finished" : task.getExecution().getState().name();
    }
}
