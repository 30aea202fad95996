package io.ax.app.internal.store;

import io.ax.schema.StoredTask;
import org.apache.kafka.streams.state.KeyValueStore;

/** The task store of one partition: taskId → {@link StoredTask}. */
public final class TaskStore {
    private final KeyValueStore<String, StoredTask> store;

    public TaskStore(KeyValueStore<String, StoredTask> store) {
        this.store = store;
    }

    /**
     * The task, decoded afresh on every call: the caller owns the returned object and may change it in place
     * and {@link #put} it, which spares a deep copy of its request (payload included) on every step.
     */
    public StoredTask get(String taskId) {
        return store.get(taskId);
    }

    public void put(StoredTask task) {
        store.put(task.getTaskId(), task);
    }

    /** Removes a task for good: a tombstone put (delete() would read the task back once more to return it). */
    public void remove(String taskId) {
        store.put(taskId, null);
    }
}
