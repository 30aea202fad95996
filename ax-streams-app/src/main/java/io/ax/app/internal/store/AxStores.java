package io.ax.app.internal.store;

import io.ax.codec.WireCodec;
import io.ax.schema.StoredTask;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * The scheduler's state stores: one registry of names and serdes. Both are persistent (RocksDB) and
 * changelogged, so state moves with its partition.
 */
public final class AxStores {
    /** taskId → {@link StoredTask}. */
    public static final String TASKS = "ax-tasks";
    /** due time + taskId → priority; see {@link TimerIndex}. */
    public static final String TIMERS = "ax-timers";

    public static final Serde<StoredTask> STORED_TASK_SERDE = Serdes.serdeFrom(
            (topic, task) -> task == null ? null : WireCodec.encode(task),
            (topic, bytes) -> bytes == null ? null : WireCodec.decodeBinary(bytes, StoredTask.class));

    private AxStores() {
    }

    public static StoreBuilder<KeyValueStore<String, StoredTask>> tasks() {
        return Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(TASKS), Serdes.String(), STORED_TASK_SERDE);
    }

    public static StoreBuilder<KeyValueStore<Bytes, byte[]>> timers() {
        return Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(TIMERS), Serdes.Bytes(), Serdes.ByteArray());
    }
}
