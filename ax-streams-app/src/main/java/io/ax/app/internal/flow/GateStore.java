package io.ax.app.internal.flow;

import io.ax.app.internal.core.FlowMessage;
import io.ax.app.internal.core.GateState;
import io.ax.fair.Rank;
import java.io.IOException;
import java.util.function.BiConsumer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The gates of one partition of the flow topic in one RocksDB store (changelogged, so a gate moves with its partition):
 * <pre>
 * G gate                                   → {@link GateState}: counts, token bucket, the owners that wait
 * S gate \0 executionId                    → {@link GateState.Slot}: an execution holding a slot
 * W gate \0 owner \0 rank(hex) seq(hex)   → the ACQUIRE waiting; rank = due time − priority × ax.priority.aging.ms
 * X gate \0 executionId                    → its W key
 * </pre>
 * So one owner's queue is a key range in grant order (the wheel's rule: by due time minus priority × aging, so a
 * higher priority goes first within that much, and a lower one is delayed, never starved; then arrival), and the
 * next grant reads its first key. Not thread-safe: one per stream task.
 */
final class GateStore {
    private static final StringSerializer KEYS = new StringSerializer();
    private static final char SEP = '\0';
    private final KeyValueStore<String, byte[]> store;
    private final long priorityAgingMs;

    GateStore(KeyValueStore<String, byte[]> store, long priorityAgingMs) {
        this.store = store;
        this.priorityAgingMs = priorityAgingMs;
    }

    GateState state(String gate) {
        byte[] bytes = store.get("G" + gate);
        return bytes == null ? new GateState() : read(bytes, GateState.class);
    }

    void putState(String gate, GateState state) {
        store.put("G" + gate, write(state));
    }

    /** Every gate of this partition with its state. */
    void forEachGate(BiConsumer<String, GateState> action) {
        try (KeyValueIterator<String, byte[]> all = store.prefixScan("G", KEYS)) {
            while (all.hasNext()) {
                KeyValue<String, byte[]> next = all.next();
                action.accept(next.key.substring(1), read(next.value, GateState.class));
            }
        }
    }

    GateState.Slot slot(String gate, String executionId) {
        byte[] bytes = store.get("S" + gate + SEP + executionId);
        return bytes == null ? null : read(bytes, GateState.Slot.class);
    }

    void putSlot(String gate, String executionId, GateState.Slot slot) {
        store.put("S" + gate + SEP + executionId, write(slot));
    }

    void deleteSlot(String gate, String executionId) {
        store.delete("S" + gate + SEP + executionId);
    }

    /** Enqueues {@code message} in the queue of {@code queue} (its owner, or {@link GateState#OVERFLOW}). */
    void enqueue(String gate, String queue, FlowMessage message, long seq) {
        long rankMs = Math.max(0, Rank.of(message.dueAtMs(), message.priority(), priorityAgingMs)); // keys sort as unsigned hex
        String key = "W" + gate + SEP + queue + SEP + String.format("%016x%016x", rankMs, seq);
        store.put(key, FlowCodec.encode(message));
        store.put("X" + gate + SEP + message.executionId(), key.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /** The waiting ACQUIRE of {@code executionId}, or null. */
    GateState.Waiting waiting(String gate, String executionId) {
        byte[] key = store.get("X" + gate + SEP + executionId);
        if (key == null) {
            return null;
        }
        String waitingKey = new String(key, java.nio.charset.StandardCharsets.UTF_8);
        byte[] message = store.get(waitingKey);
        return message == null ? null : new GateState.Waiting(waitingKey, queueOf(gate, waitingKey), FlowCodec.decodeMessage(message));
    }

    /** The first waiting ACQUIRE of {@code owner}'s queue, or null. */
    GateState.Waiting first(String gate, String owner) {
        try (KeyValueIterator<String, byte[]> queue = store.prefixScan("W" + gate + SEP + owner + SEP, KEYS)) {
            if (!queue.hasNext()) {
                return null;
            }
            KeyValue<String, byte[]> head = queue.next();
            return new GateState.Waiting(head.key, owner, FlowCodec.decodeMessage(head.value));
        }
    }

    void remove(String gate, GateState.Waiting waiting) {
        store.delete(waiting.key());
        store.delete("X" + gate + SEP + waiting.message().executionId());
    }

    /** The queue a waiting entry is in, from its W key (its owner, or {@link GateState#OVERFLOW}). */
    private static String queueOf(String gate, String waitingKey) {
        String rest = waitingKey.substring(1 + gate.length() + 1);
        return rest.substring(0, rest.indexOf(SEP));
    }

    private static byte[] write(Object value) {
        try {
            return FlowCodec.MAPPER.writeValueAsBytes(value);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static <T> T read(byte[] bytes, Class<T> type) {
        try {
            return FlowCodec.MAPPER.readValue(bytes, type);
        } catch (IOException e) {
            throw new IllegalStateException("unreadable flow gate record: " + e.getMessage(), e);
        }
    }
}
