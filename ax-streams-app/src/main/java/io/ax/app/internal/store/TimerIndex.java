package io.ax.app.internal.store;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The durable truth of every pending timer of one partition: a RocksDB store keyed by 8-byte big-endian
 * due time followed by the taskId's UTF-8 bytes, so a range scan yields timers in due order. The value is
 * one byte, the task's priority. Changelogged like every store.
 *
 * <p>Due times are non-negative (validated on accept), so big-endian byte order is numeric order.
 */
public final class TimerIndex {
    private final KeyValueStore<Bytes, byte[]> store;

    public TimerIndex(KeyValueStore<Bytes, byte[]> store) {
        this.store = store;
    }

    public static Bytes key(long dueAtMs, String taskId) {
        byte[] id = taskId.getBytes(StandardCharsets.UTF_8);
        return Bytes.wrap(ByteBuffer.allocate(Long.BYTES + id.length).putLong(dueAtMs).put(id).array());
    }

    public static long dueAtMs(Bytes key) {
        return ByteBuffer.wrap(key.get()).getLong();
    }

    public static String taskId(Bytes key) {
        byte[] bytes = key.get();
        return new String(bytes, Long.BYTES, bytes.length - Long.BYTES, StandardCharsets.UTF_8);
    }

    public void put(long dueAtMs, String taskId, int priority) {
        store.put(key(dueAtMs, taskId), new byte[] {(byte) priority});
    }

    public void delete(long dueAtMs, String taskId) {
        store.delete(key(dueAtMs, taskId));
    }

    /** Timers from {@code fromInclusive} (null = the first) onwards, in due order. Close the iterator. */
    public KeyValueIterator<Bytes, byte[]> from(Bytes fromInclusive) {
        return fromInclusive == null ? store.all() : store.range(fromInclusive, null);
    }

    public static int priority(byte[] value) {
        return value == null || value.length == 0 ? 4 : value[0];
    }
}
