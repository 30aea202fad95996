package io.ax.app.internal.store;

import io.ax.app.internal.schedule.Timers;
import io.ax.app.internal.wheel.TimerKind;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The task store of one partition. {@link #save} is the one way tasks are written, and where a task that has
 * nothing left ahead of it is marked finished and given its purge timer ({@code ax.retention.ms} later):
 * until then it stays readable and keeps deduplicating its taskId.
 */
public final class TaskStore {
    private final KeyValueStore<String, StoredTask> store;
    private final Timers timers;
    private final long retentionMs;

    public TaskStore(KeyValueStore<String, StoredTask> store, Timers timers, long retentionMs) {
        this.store = store;
        this.timers = timers;
        this.retentionMs = retentionMs;
    }

    /**
     * The task, decoded afresh on every call: the caller owns the returned object and may change it in place
     * and {@link #save} it, which spares a deep copy of its request (payload included) on every step.
     */
    public StoredTask get(String taskId) {
        return store.get(taskId);
    }

    /** Stores {@code task}; one that has nothing left ahead of it is marked finished here (in place). */
    public void save(StoredTask task, long nowMs) {
        if (task.getFinishedAtMs() == null && !Liveness.isLive(task)) {
            long purgeAtMs = nowMs + retentionMs;
            task.setFinishedAtMs(nowMs);
            task.setPurgeAtMs(purgeAtMs);
            timers.set(purgeAtMs, 0, task.getTaskId(), TimerKind.PURGE);
        }
        store.put(task.getTaskId(), task);
    }

    /** Sets the task's execution (in place: the task is the caller's copy from {@link #get}) and saves it. */
    public void saveExecution(StoredTask task, StoredExecution execution, long nowMs) {
        task.setExecution(execution);
        save(task, nowMs);
    }

    /** Removes a finished task for good, if {@code purgeAtMs} is still its purge time. */
    public boolean maybePurge(String taskId, long purgeAtMs) {
        StoredTask task = store.get(taskId);
        if (task == null || task.getPurgeAtMs() == null || task.getPurgeAtMs() != purgeAtMs || Liveness.isLive(task)) {
            return false;
        }
        store.put(taskId, null); // a tombstone; delete() would read the task back once more to return it
        return true;
    }
}
