package io.ax.app.internal.core;

import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;
import java.util.ArrayList;
import java.util.List;

/**
 * The first attempt of a new occurrence goes out: a sharded task's occurrence as N slices, each dispatched (or held at
 * its gates) on its own, in shard order ({@link Shards}); any other as it is. Every attempt goes through
 * {@link Attempts#dispatch}; this class sits above both it and {@link Shards}, so neither calls the other back.
 */
final class DispatchOccurrence {
    private DispatchOccurrence() {
    }

    /**
     * {@code from} → TRIGGERED (or held) for {@code execution}, a new occurrence's first attempt, or for each of its slices.
     * Returns the task's execution (slice 0 of a sharded occurrence, whose other slices are then {@code task}'s).
     */
    static StoredExecution dispatch(Step step, StoredTask task, StoredExecution execution, TaskState from, String reason) {
        if (!Shards.isSharded(task) || execution.getShard() != null || execution.getAttempt() != 1) {
            return Attempts.dispatch(step, task, execution, from, reason);
        }
        task.setShardsOutcome(null);
        List<StoredExecution> slices = Shards.slicesOf(task, execution);
        List<StoredExecution> dispatched = new ArrayList<>(slices.size());
        for (StoredExecution slice : slices) {
            dispatched.add(Attempts.dispatch(step, task, slice, from, Shards.sliceReason(slice, slices.size(), reason)));
        }
        return Shards.fannedOut(task, dispatched);
    }
}
