package io.ax.app.internal.store;

import io.ax.app.internal.core.Decision;
import io.ax.app.internal.core.Effect;
import io.ax.schema.StateChange;
import io.ax.schema.StoredExecution;
import io.ax.schema.TaskState;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Per task, a ring of its last {@code maxEvents} state changes ({@code ax.history.max.events}), kept in the index store
 * ({@link AxStores#INDEX}, beside {@link TaskIndex}'s key spaces and for the same reason: no RocksDB instance and
 * changelog of its own). Key spaces:
 *
 * <pre>
 * 'r' taskId                     → ring bounds: 8-byte first sequence held, 8-byte next sequence
 * 'h' [taskId] sequence          → (8-byte big-endian sequence) a {@link HistoryEntry}, oldest first in key order
 * 'y' executionId                → 8-byte last sequence of the execution's entries, then the taskId: every execution
 *                                  with an entry in its task's ring (found by id while the ring holds it)
 * </pre>
 *
 * {@code [taskId]} is a 2-byte length and the UTF-8 bytes (as in {@link TaskIndex}), so one task's entries form one
 * contiguous range. Readers range from the first sequence held, never over the ring's deleted past (RocksDB range scans
 * over tombstones slow down).
 *
 * <p>Which events: the transitions of a task that exists after the decision (the decision saves it), including PENDING
 * and SKIPPED occurrences; not REJECTED or IGNORED input, which changes nothing and may name no stored task. The ring,
 * its entries and their execution keys are deleted with the task (its purge).
 *
 * <p>Cost per state change, once a ring is full: three point reads (the bounds, the entry leaving the ring, its
 * execution key) and four or five small writes (the new entry and its execution key, the old entry's delete and, when it
 * was that execution's last, its execution key's, the bounds), each one changelog record; a decision with several
 * events reads and writes the bounds once. Work and memory per record are bounded by {@code maxEvents} (a lowered
 * setting shrinks a ring at its next change).
 */
public final class TaskHistory {
    static final byte RING = 'r';
    static final byte EVENT = 'h';
    static final byte EXECUTION = 'y';

    private final KeyValueStore<Bytes, byte[]> store;
    private final int maxEvents;

    public TaskHistory(KeyValueStore<Bytes, byte[]> store, int maxEvents) {
        if (maxEvents < 1) {
            throw new IllegalArgumentException("maxEvents must be >= 1: " + maxEvents);
        }
        this.store = store;
        this.maxEvents = maxEvents;
    }

    /** Adds the decision's state changes to its task's ring, or deletes the ring with the task. */
    public void record(Decision decision) {
        switch (decision.store()) {
            case SAVE -> append(decision);
            case DELETE, DISCARD -> remove(decision.taskId());
            case UNCHANGED -> { }
        }
    }

    private void append(Decision decision) {
        String taskId = decision.taskId();
        long[] bounds = null;
        for (Effect effect : decision.effects()) {
            if (effect instanceof Effect.Event event && isStateChange(event.change())) {
                if (bounds == null) {
                    bounds = bounds(store, taskId);
                }
                StateChange change = event.change();
                long sequence = bounds[1]++;
                store.put(eventKey(taskId, sequence), HistoryEntry.of(change, workerOf(decision, change)).encode());
                if (change.getExecutionId() != null) {
                    store.put(executionKey(change.getExecutionId()), executionValue(sequence, taskId));
                }
            }
        }
        if (bounds != null) {
            while (bounds[1] - bounds[0] > maxEvents) {
                evict(taskId, bounds[0]++);
            }
            store.put(ringKey(taskId), ByteBuffer.allocate(16).putLong(bounds[0]).putLong(bounds[1]).array());
        }
    }

    /** Deletes the task's ring: each entry (at most {@code maxEvents}, or what a larger earlier setting left) and its keys. */
    public void remove(String taskId) {
        byte[] stored = store.get(ringKey(taskId));
        if (stored == null) {
            return;
        }
        ByteBuffer bounds = ByteBuffer.wrap(stored);
        long first = bounds.getLong();
        long next = bounds.getLong();
        for (long sequence = first; sequence < next; sequence++) {
            evict(taskId, sequence);
        }
        store.delete(ringKey(taskId));
    }

    /** Removes one entry, and its execution's key when no later entry of that execution is left in the ring. */
    private void evict(String taskId, long sequence) {
        Bytes key = eventKey(taskId, sequence);
        byte[] stored = store.get(key);
        if (stored == null) {
            return;
        }
        store.delete(key);
        String executionId = HistoryEntry.decode(stored).executionId();
        if (executionId != null) {
            Bytes executionKey = executionKey(executionId);
            byte[] execution = store.get(executionKey);
            if (execution != null && ByteBuffer.wrap(execution).getLong() == sequence
                    && taskId.equals(taskOf(execution))) {
                store.delete(executionKey);
            }
        }
    }

    /** Transitions, PENDING and SKIPPED; not input that was refused or changed nothing. */
    static boolean isStateChange(StateChange change) {
        return change.getTo() != TaskState.REJECTED && change.getTo() != TaskState.IGNORED;
    }

    /** The task store's worker of the event's attempt: the saved task's execution, when the event is about that attempt. */
    private static String workerOf(Decision decision, StateChange change) {
        StoredExecution execution = decision.task() == null ? null : decision.task().getExecution();
        if (execution == null || !execution.getExecutionId().equals(change.getExecutionId())
                || !Objects.equals(execution.getAttempt(), change.getAttempt())) {
            return null;
        }
        return execution.getWorkerId();
    }

    // ---- readers (internal/query; a read-only view is fine) ----

    /** The task's entries, oldest first; empty when it has none. At most the ring's size. */
    public static List<HistoryEntry> of(ReadOnlyKeyValueStore<Bytes, byte[]> store, String taskId) {
        List<HistoryEntry> entries = new ArrayList<>();
        long[] bounds = bounds(store, taskId);
        if (bounds[1] == bounds[0]) {
            return entries;
        }
        try (KeyValueIterator<Bytes, byte[]> it = store.range(eventKey(taskId, bounds[0]), eventKey(taskId, bounds[1] - 1))) {
            it.forEachRemaining(kv -> entries.add(HistoryEntry.decode(kv.value)));
        }
        return entries;
    }

    /** The task with {@code executionId} in its ring, or null. */
    public static String taskOfExecution(ReadOnlyKeyValueStore<Bytes, byte[]> store, String executionId) {
        byte[] stored = store.get(executionKey(Objects.requireNonNull(executionId)));
        return stored == null ? null : taskOf(stored);
    }

    // ---- keys ----

    private static long[] bounds(ReadOnlyKeyValueStore<Bytes, byte[]> store, String taskId) {
        byte[] stored = store.get(ringKey(taskId));
        if (stored == null) {
            return new long[] {0, 0};
        }
        ByteBuffer bounds = ByteBuffer.wrap(stored);
        return new long[] {bounds.getLong(), bounds.getLong()};
    }

    static Bytes ringKey(String taskId) {
        byte[] id = taskId.getBytes(StandardCharsets.UTF_8);
        return Bytes.wrap(ByteBuffer.allocate(1 + id.length).put(RING).put(id).array());
    }

    static Bytes eventKey(String taskId, long sequence) {
        byte[] prefix = TaskIndex.valuePrefix(EVENT, taskId);
        return Bytes.wrap(ByteBuffer.allocate(prefix.length + Long.BYTES).put(prefix).putLong(sequence).array());
    }

    static Bytes executionKey(String executionId) {
        byte[] id = executionId.getBytes(StandardCharsets.UTF_8);
        return Bytes.wrap(ByteBuffer.allocate(1 + id.length).put(EXECUTION).put(id).array());
    }

    private static byte[] executionValue(long sequence, String taskId) {
        byte[] id = taskId.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(Long.BYTES + id.length).putLong(sequence).put(id).array();
    }

    private static String taskOf(byte[] executionValue) {
        return new String(executionValue, Long.BYTES, executionValue.length - Long.BYTES, StandardCharsets.UTF_8);
    }
}
