package io.ax.app.internal.store;

import io.ax.app.internal.schedule.Timers;
import io.ax.app.internal.wheel.TimerKind;
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

    public StoredTask get(String taskId) {
        return store.get(taskId);
    }

    public void save(StoredTask task, long nowMs) {
        if (task.getFinishedAtMs() == null && !Liveness.isLive(task)) {
            long purgeAtMs = nowMs + retentionMs;
            task = StoredTask.newBuilder(task).setFinishedAtMs(nowMs).setPurgeAtMs(purgeAtMs).build();
            timers.set(purgeAtMs, 0, task.getTaskId(), TimerKind.PURGE);
        }
        store.put(task.getTaskId(), task);
    }

    /** Removes a finished task for good, if {@code purgeAtMs} is still its purge time. */
    public boolean maybePurge(String taskId, long purgeAtMs) {
        StoredTask task = store.get(taskId);
        if (task == null || task.getPurgeAtMs() == null || task.getPurgeAtMs() != purgeAtMs || Liveness.isLive(task)) {
            return false;
        }
        store.delete(taskId);
        return true;
    }
}
