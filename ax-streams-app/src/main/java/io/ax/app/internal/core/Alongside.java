package io.ax.app.internal.core;

import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Overlap ALLOW: executions of one periodic task in flight side by side. The task's current execution is the latest
 * fired; the earlier ones still in flight are {@code StoredTask.alongside}, oldest first, at most {@link #MAX} − 1.
 *
 * <p>Each is followed exactly as the current one is, by the same transition classes: an input that concerns an
 * execution alongside (a report, a retry record or a flow-control grant with its executionId, its TIMEOUT or RETRY
 * timer: {@link SideExecutions#concerns}) is decided on a view of the task in which that execution is the current one
 * and the others, the real current first, are alongside; the outcome is turned back (the real current in its place; the
 * one decided on stays alongside while in flight and leaves the list when it ends). A timer due at the same millisecond
 * for two executions is one timer key: it is decided for each execution it matches, one after the other, in one
 * decision. Cancel and replace end them all ({@link CancelTask#endLive}); the task is live while any is in flight
 * ({@link Liveness}).
 */
final class Alongside {
    /** Most executions of one task in flight at once under overlap ALLOW: a further occurrence is SKIPPED. */
    static final int MAX = io.ax.validation.AdoptValidator.MAX_ALONGSIDE + 1;

    private Alongside() {
    }

    /**
     * The decision for {@code task}, which has executions alongside: {@code route} (a fresh step for each) decides
     * for the current execution unless only executions alongside are concerned, then for each concerned one on its
     * view; their effects in that order, one stored task ({@link SideExecutions}).
     */
    static Decision decide(StoredTask task, Input input, Function<StoredTask, Decision> route) {
        return SideExecutions.decide(task, input, route, ALONGSIDE);
    }

    /** The executions alongside; a decided view turned back by {@link #back}. */
    private static final SideExecutions.Side ALONGSIDE = new SideExecutions.Side(StoredTask::getAlongside, StoredTask::setAlongside,
            (decided, executionId, at) -> back(decided, at));

    /** Whether an execution alongside is in flight or held for a flow-control grant (all are, by construction). */
    static boolean anyInFlight(StoredTask task) {
        for (StoredExecution execution : task.getAlongside()) {
            if (FlowControl.isBusy(execution)) {
                return true;
            }
        }
        return false;
    }

    /** The decided view turned back: the real current in its place, the decided execution alongside while in flight. */
    private static StoredTask back(StoredTask decided, int at) {
        List<StoredExecution> others = new ArrayList<>(decided.getAlongside());
        StoredExecution current = others.remove(0);
        StoredExecution side = decided.getExecution();
        if (FlowControl.isBusy(side)) { // in flight, or held by flow control for a grant
            others.add(Math.min(at, others.size()), side);
        }
        decided.setExecution(current);
        decided.setAlongside(others);
        return decided;
    }
}
