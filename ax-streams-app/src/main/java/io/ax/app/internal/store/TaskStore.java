package io.ax.app.internal.store;

import io.ax.schema.StoredHistoryEntry;
import io.ax.schema.StoredTask;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The task store of one partition: taskId → {@link StoredTask}.
 *
 * <p><b>Tasks in flight are kept decoded.</b> A task put TRIGGERED or RUNNING is read again soon and almost always by the
 * next record about it: the worker's STARTED, then its SUCCEEDED, tens of milliseconds later. So the object put is kept
 * and handed to the next {@link #get} of its taskId instead of a RocksDB read and a decode: two of a one-shot task's four
 * reads. It is kept in a slot chosen by its taskId's hash among {@link #SLOTS}, replacing whatever task the slot held (a
 * direct-mapped cache: no entry allocated, no order kept, so a fire that no report follows, as in a burst without
 * workers, costs an array store), and only while the kept tasks weigh at most {@link #KEPT_BYTES} by {@link #weight}.
 * Nothing else changes: every put and remove still goes to the store (and its changelog) at once, and the query API
 * reads the store. The object passes from the store to the caller and back, never shared: {@link #get} takes a kept task
 * out (the caller owns it, may change it in place, and need not put it back: a decision that leaves the task unchanged
 * drops it, and the next read decodes the store's), and {@link #put} keeps the object it is given, which the caller must
 * not change afterwards. The keeping lives with this object, which the processor makes anew at each {@code init} (so a
 * task revived after an error or moved to another instance starts with none kept), and the store is written through this
 * object alone. Not thread-safe: one stream task owns it.
 */
public final class TaskStore {
    /** Slots for tasks kept decoded, per partition (a power of two): a thousand tasks in flight at most. */
    static final int SLOTS = 1_024;
    /** The most bytes the kept tasks may weigh, by {@link #weight}: a few tasks with a large payload do not take the heap. */
    static final long KEPT_BYTES = 4L << 20;

    private final KeyValueStore<String, StoredTask> store;
    private final StoredTask[] kept = new StoredTask[SLOTS];
    /** What the kept tasks weigh by {@link #weight}; 0 exactly when none is kept (each weighs over 0). */
    private long keptBytes;

    public TaskStore(KeyValueStore<String, StoredTask> store) {
        this.store = store;
    }

    /**
     * The task: the object the last {@link #put} kept, taken out, or else decoded afresh from the store. Either way the
     * caller owns the returned object and may change it in place and {@link #put} it, which spares a deep copy of its
     * request (payload included) on every step.
     */
    public StoredTask get(String taskId) {
        int slot = slotHolding(taskId);
        if (slot < 0) {
            return store.get(taskId);
        }
        StoredTask task = kept[slot];
        drop(slot);
        return task;
    }

    /** Writes the task; keeps the object decoded if the task is in flight (the caller must not change it afterwards). */
    public void put(StoredTask task) {
        String taskId = task.getTaskId();
        store.put(taskId, task);
        int slot = slot(taskId);
        if (holds(slot, taskId)) {
            drop(slot); // the version kept before is stale now, whether or not this one is kept
        }
        if (IndexEntry.isInFlight(IndexEntry.stateOf(task))) {
            keep(slot, task);
        }
    }

    /** Removes a task for good: a tombstone put (delete() would read the task back once more to return it). */
    public void remove(String taskId) {
        int slot = slotHolding(taskId);
        if (slot >= 0) {
            drop(slot);
        }
        store.put(taskId, null);
    }

    /** How many tasks are kept decoded (for tests). */
    int keptCount() {
        int count = 0;
        for (StoredTask task : kept) {
            count += task == null ? 0 : 1;
        }
        return count;
    }

    private static int slot(String taskId) {
        int hash = taskId.hashCode();
        return (hash ^ (hash >>> 16)) & (SLOTS - 1);
    }

    /** The slot that holds the task, or -1 (with none kept, not even the taskId's hash is computed). */
    private int slotHolding(String taskId) {
        if (keptBytes == 0) {
            return -1;
        }
        int slot = slot(taskId);
        return holds(slot, taskId) ? slot : -1;
    }

    private boolean holds(int slot, String taskId) {
        return kept[slot] != null && kept[slot].getTaskId().equals(taskId);
    }

    /** Keeps the task in its slot, in place of the task there, unless the kept tasks would then weigh over the bound. */
    private void keep(int slot, StoredTask task) {
        long weight = weight(task);
        long replaced = kept[slot] == null ? 0 : weight(kept[slot]);
        if (keptBytes - replaced + weight > KEPT_BYTES) {
            return; // the slot keeps what it held
        }
        kept[slot] = task;
        keptBytes += weight - replaced;
    }

    private void drop(int slot) {
        keptBytes -= weight(kept[slot]);
        kept[slot] = null;
    }

    /**
     * What a kept task weighs on the heap, roughly: its payload, its history's entries and a fixed part for the rest (the
     * request's strings are bounded by the validator, a few hundred bytes). Computed alike when kept and when dropped.
     */
    static long weight(StoredTask task) {
        ByteBuffer payload = task.getRequest() == null ? null : task.getRequest().getPayload();
        List<StoredHistoryEntry> history = task.getHistory();
        return 1_024L + (payload == null ? 0 : payload.remaining()) + 256L * (history == null ? 0 : history.size());
    }
}
