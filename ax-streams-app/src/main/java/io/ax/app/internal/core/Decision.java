package io.ax.app.internal.core;

import io.ax.schema.StoredTask;
import java.util.List;

/**
 * The outcome of one input: what becomes of the stored task, and the effects to apply first, in order.
 *
 * @param task the task to store when {@code store} is SAVE; otherwise unused
 */
public record Decision(String taskId, Store store, StoredTask task, List<Effect> effects) {
    public enum Store {
        /** The stored task stays as it was. */
        UNCHANGED,
        /** Store {@link #task()}. */
        SAVE,
        /** Remove the task from the store (its retention ended). */
        DELETE,
        /**
         * Remove a task that was stored only provisionally and is refused (over its owner's maxLiveTasks): as if its
         * request had been rejected at once, so unlike DELETE no purge tombstone answers the tasks that wait for it.
         */
        DISCARD
    }
}
