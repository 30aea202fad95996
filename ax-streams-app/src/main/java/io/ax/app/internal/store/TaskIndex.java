package io.ax.app.internal.store;

import io.ax.schema.StoredTask;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The secondary indexes of one partition's tasks, in one RocksDB store ({@link AxStores#INDEX}), kept exact by
 * {@link #save} and {@link #remove} whenever the task store is written. Key spaces, each led by one byte:
 *
 * <pre>
 * 'e' taskId                     → the task's {@link IndexEntry} (what the other keys were made from)
 * 's' [state]   taskId           → (empty)     tasks by state, in taskId order
 * 'j' [jobType] taskId           → (empty)     tasks by jobType
 * 'o' [owner]   taskId           → (empty)     tasks by owner (tasks that have one)
 * 'x' executionId                → taskId      the latest execution of each task
 * 'c' ('s'|'j') [value]          → 8-byte count of tasks by state, by jobType
 * 'v'                            → backfill progress (see {@link #backfill})
 * 'r', 'h', 'y'                  → each task's history of state changes (see {@link TaskHistory})
 * </pre>
 *
 * {@code [value]} is a 2-byte big-endian length and the UTF-8 bytes, so one value's keys form one contiguous range
 * whatever characters it holds; taskIds are UTF-8, so a range yields them in the byte order of their UTF-8 form.
 *
 * <p>One store rather than one per index: each persistent store costs every partition (and its standby) its own
 * RocksDB instance with its own memtables and block cache, and a changelog topic; these small keys need none of that
 * apart. A save whose entry did not change (a heartbeat, a progress checkpoint) costs one small read.
 */
public final class TaskIndex {
    static final byte ENTRY = 'e';
    public static final byte BY_STATE = 's';
    public static final byte BY_JOB_TYPE = 'j';
    public static final byte BY_OWNER = 'o';
    static final byte EXECUTION = 'x';
    static final byte COUNT = 'c';
    private static final Bytes BACKFILL = Bytes.wrap(new byte[] {'v'});
    private static final byte[] DONE = new byte[0];
    private static final byte[] EMPTY = new byte[0];

    private final KeyValueStore<Bytes, byte[]> store;

    public TaskIndex(KeyValueStore<Bytes, byte[]> store) {
        this.store = store;
    }

    /** Indexes the task as it is now saved, replacing whatever the indexes said of it before. */
    public void save(StoredTask task) {
        String taskId = task.getTaskId();
        IndexEntry now = IndexEntry.of(task);
        byte[] stored = store.get(entryKey(taskId));
        IndexEntry before = stored == null ? null : IndexEntry.decode(stored);
        if (now.equals(before)) {
            return;
        }
        if (before != null) {
            unindex(taskId, before, now);
        }
        index(taskId, now, before);
        store.put(entryKey(taskId), now.encode());
    }

    /** Removes the task from every index (it was deleted from the task store). */
    public void remove(String taskId) {
        byte[] stored = store.get(entryKey(taskId));
        if (stored == null) {
            return;
        }
        unindex(taskId, IndexEntry.decode(stored), null);
        store.delete(entryKey(taskId));
    }

    /**
     * Indexes up to {@code batch} tasks of a task store written before the indexes existed (or by a scheduler without
     * them), in taskId order from where the last call stopped; true once every task is indexed. Saving an indexed task
     * again changes nothing, so a task saved meanwhile is no harm.
     */
    public boolean backfill(KeyValueStore<String, StoredTask> tasks, int batch) {
        byte[] progress = store.get(BACKFILL);
        if (progress != null && progress.length == 0) {
            return true;
        }
        String from = progress == null ? null : new String(progress, StandardCharsets.UTF_8);
        String last = null;
        int seen = 0;
        try (KeyValueIterator<String, StoredTask> it = tasks.range(from, null)) {
            while (it.hasNext() && seen < batch) {
                var next = it.next();
                if (next.key.equals(from)) {
                    continue; // indexed by the previous call
                }
                if (next.value != null) {
                    save(next.value);
                }
                last = next.key;
                seen++;
            }
            store.put(BACKFILL, it.hasNext() ? last.getBytes(StandardCharsets.UTF_8) : DONE);
            return !it.hasNext();
        }
    }

    private void index(String taskId, IndexEntry now, IndexEntry before) {
        if (before == null || before.state() != now.state()) {
            store.put(valueKey(BY_STATE, now.state().name(), taskId), EMPTY);
            count(BY_STATE, now.state().name(), +1);
        }
        if (before == null || !before.jobType().equals(now.jobType())) {
            store.put(valueKey(BY_JOB_TYPE, now.jobType(), taskId), EMPTY);
            count(BY_JOB_TYPE, now.jobType(), +1);
        }
        if (now.owner() != null && (before == null || !now.owner().equals(before.owner()))) {
            store.put(valueKey(BY_OWNER, now.owner(), taskId), EMPTY);
        }
        if (now.executionId() != null && (before == null || !now.executionId().equals(before.executionId()))) {
            store.put(executionKey(now.executionId()), taskId.getBytes(StandardCharsets.UTF_8));
        }
    }

    /** Removes the keys of {@code before} that {@code now} (null: nothing) no longer has. */
    private void unindex(String taskId, IndexEntry before, IndexEntry now) {
        if (now == null || before.state() != now.state()) {
            store.delete(valueKey(BY_STATE, before.state().name(), taskId));
            count(BY_STATE, before.state().name(), -1);
        }
        if (now == null || !before.jobType().equals(now.jobType())) {
            store.delete(valueKey(BY_JOB_TYPE, before.jobType(), taskId));
            count(BY_JOB_TYPE, before.jobType(), -1);
        }
        if (before.owner() != null && (now == null || !before.owner().equals(now.owner()))) {
            store.delete(valueKey(BY_OWNER, before.owner(), taskId));
        }
        if (before.executionId() != null && (now == null || !before.executionId().equals(now.executionId()))) {
            store.delete(executionKey(before.executionId()));
        }
    }

    private void count(byte dimension, String value, long delta) {
        Bytes key = countKey(dimension, value);
        byte[] stored = store.get(key);
        long count = (stored == null ? 0 : ByteBuffer.wrap(stored).getLong()) + delta;
        if (count <= 0) {
            store.delete(key);
        } else {
            store.put(key, ByteBuffer.allocate(Long.BYTES).putLong(count).array());
        }
    }

    // ---- keys, shared with the readers (internal/query) ----

    public static Bytes entryKey(String taskId) {
        byte[] id = taskId.getBytes(StandardCharsets.UTF_8);
        return Bytes.wrap(ByteBuffer.allocate(1 + id.length).put(ENTRY).put(id).array());
    }

    /** The first key of {@code value}'s range in the index {@code dimension} ({@link #BY_STATE}, ...). */
    public static byte[] valuePrefix(byte dimension, String value) {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(3 + bytes.length).put(dimension).putShort((short) bytes.length).put(bytes).array();
    }

    public static Bytes valueKey(byte dimension, String value, String taskId) {
        byte[] prefix = valuePrefix(dimension, value);
        byte[] id = taskId.getBytes(StandardCharsets.UTF_8);
        return Bytes.wrap(ByteBuffer.allocate(prefix.length + id.length).put(prefix).put(id).array());
    }

    /** The taskId of an index key whose value part is {@code prefixLength} bytes long. */
    public static String taskIdOf(Bytes key, int prefixLength) {
        byte[] bytes = key.get();
        return new String(bytes, prefixLength, bytes.length - prefixLength, StandardCharsets.UTF_8);
    }

    public static Bytes executionKey(String executionId) {
        byte[] id = executionId.getBytes(StandardCharsets.UTF_8);
        return Bytes.wrap(ByteBuffer.allocate(1 + id.length).put(EXECUTION).put(id).array());
    }

    public static Bytes countKey(byte dimension, String value) {
        byte[] prefix = valuePrefix(dimension, value);
        return Bytes.wrap(ByteBuffer.allocate(1 + prefix.length).put(COUNT).put(prefix).array());
    }

    /** The first key of the counters of {@code dimension}. */
    public static Bytes countPrefix(byte dimension) {
        return Bytes.wrap(new byte[] {COUNT, dimension});
    }

    /** Decodes a counter key of {@link #countPrefix}: its value. */
    public static String countedValue(Bytes key) {
        byte[] bytes = key.get();
        int length = ((bytes[2] & 0xff) << 8) | (bytes[3] & 0xff);
        return new String(bytes, 4, length, StandardCharsets.UTF_8);
    }

    public static long countOf(byte[] value) {
        return ByteBuffer.wrap(value).getLong();
    }

    /** Whether {@code key} starts with {@code prefix}. */
    public static boolean hasPrefix(Bytes key, byte[] prefix) {
        byte[] bytes = key.get();
        return bytes.length >= prefix.length && Arrays.equals(bytes, 0, prefix.length, prefix, 0, prefix.length);
    }

    /** The entry of {@code taskId} in {@code store} (a read-only view is fine), or null. */
    public static IndexEntry entryOf(org.apache.kafka.streams.state.ReadOnlyKeyValueStore<Bytes, byte[]> store, String taskId) {
        byte[] stored = store.get(entryKey(Objects.requireNonNull(taskId)));
        return stored == null ? null : IndexEntry.decode(stored);
    }

}
