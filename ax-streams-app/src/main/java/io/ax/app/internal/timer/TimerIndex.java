package io.ax.app.internal.timer;

import io.ax.app.internal.core.TimerKind;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The durable truth of every pending timer of one partition: a RocksDB store keyed by
 * {@code 8-byte big-endian due time | taskId UTF-8 | 0x00 | kind}, so a range scan yields timers in due
 * order. The value is the task's priority (one byte), then its owner (UTF-8, absent when it has none; a value
 * written before owners were kept is the priority alone). Derived from the task store: not changelogged, wiped at each
 * assignment ({@link #wipe}) and rebuilt from the tasks.
 *
 * <p>The due time is stored with its sign bit flipped, so unsigned big-endian byte order (RocksDB's) is signed
 * numeric order for every long: a due time before 1970 (which input validation refuses anyway) would still sort
 * first instead of after all others. TaskIds contain no control characters (validated), so the 0x00 separator
 * is unambiguous.
 */
public final class TimerIndex {
    private final KeyValueStore<Bytes, byte[]> store;

    public TimerIndex(KeyValueStore<Bytes, byte[]> store) {
        this.store = store;
    }

    public static Bytes key(long dueAtMs, String taskId, TimerKind kind) {
        byte[] id = taskId.getBytes(StandardCharsets.UTF_8);
        return Bytes.wrap(ByteBuffer.allocate(Long.BYTES + id.length + 2).putLong(dueAtMs ^ Long.MIN_VALUE).put(id).put((byte) 0)
                .put(kind.code()).array());
    }

    public static long dueAtMs(Bytes key) {
        return ByteBuffer.wrap(key.get()).getLong() ^ Long.MIN_VALUE;
    }

    public static String taskId(Bytes key) {
        byte[] bytes = key.get();
        return new String(bytes, Long.BYTES, bytes.length - Long.BYTES - 2, StandardCharsets.UTF_8);
    }

    public static TimerKind kind(Bytes key) {
        byte[] bytes = key.get();
        return TimerKind.of(bytes[bytes.length - 1]);
    }

    /** Stores the timer with this {@link #key}, of a task without an owner. */
    public void put(Bytes key, int priority) {
        put(key, priority, null);
    }

    /** Stores the timer with this {@link #key}; {@code owner} may be null. */
    public void put(Bytes key, int priority, String owner) {
        if (owner == null || owner.isEmpty()) {
            store.put(key, new byte[] {(byte) priority});
            return;
        }
        byte[] name = owner.getBytes(StandardCharsets.UTF_8);
        store.put(key, ByteBuffer.allocate(1 + name.length).put((byte) priority).put(name).array());
    }

    /**
     * Removes the timer with this {@link #key}. Written as a put of {@code null} (a tombstone, in the store and
     * its changelog alike): {@code KeyValueStore.delete} would first read the old value back from RocksDB to
     * return it.
     */
    public void delete(Bytes key) {
        store.put(key, null);
    }

    /**
     * Deletes every timer: the store is unlogged, so what an earlier assignment left here may lag behind the task store
     * (another instance held the partition since) or run ahead of it (an aborted transaction's writes).
     */
    public void wipe() {
        try (KeyValueIterator<Bytes, byte[]> it = store.all()) {
            while (it.hasNext()) {
                delete(it.next().key);
            }
        }
    }

    /** Timers from {@code fromInclusive} (null = the first) onwards, in due order. Close the iterator. */
    public KeyValueIterator<Bytes, byte[]> from(Bytes fromInclusive) {
        return fromInclusive == null ? store.all() : store.range(fromInclusive, null);
    }

    public static int priority(byte[] value) {
        return value == null || value.length == 0 ? 4 : value[0];
    }

    /** The owner stored with the timer, or null. */
    public static String owner(byte[] value) {
        return value == null || value.length <= 1 ? null : new String(value, 1, value.length - 1, StandardCharsets.UTF_8);
    }
}
