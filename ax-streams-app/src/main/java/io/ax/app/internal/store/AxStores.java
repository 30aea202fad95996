package io.ax.app.internal.store;

import io.ax.app.internal.setup.TopicSetup;
import io.ax.codec.WireCodec;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.TopicConfig;
import io.ax.schema.StoredTask;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * The scheduler's state stores: one registry of names and serdes. All are persistent (RocksDB) and
 * changelogged, so state moves with its partition.
 */
public final class AxStores {
    /** taskId → {@link StoredTask}. */
    public static final String TASKS = "ax-tasks";
    /** due time + taskId → priority; see {@link TimerIndex}. */
    public static final String TIMERS = "ax-timers";
    /** Secondary indexes of the tasks (by state, jobType, owner; executionId → taskId; counts); see {@link TaskIndex}. */
    public static final String INDEX = "ax-task-index";

    /**
     * Global store: calendar name → its accepted CalendarRequest (single-object bytes), read from the compacted
     * calendars topic by every instance; see {@code CalendarStore}.
     */
    public static final String CALENDARS = "ax-calendars";

    public static final Serde<StoredTask> STORED_TASK_SERDE = Serdes.serdeFrom(
            (topic, task) -> task == null ? null : WireCodec.encode(task),
            (topic, bytes) -> bytes == null ? null : WireCodec.decodeBinary(bytes, StoredTask.class));

    private AxStores() {
    }

    /** @param maxRecordBytes the largest stored task: its changelog topic is created to take it */
    public static StoreBuilder<KeyValueStore<String, StoredTask>> tasks(int maxRecordBytes) {
        return Stores.keyValueStoreBuilder(CountingStoreSupplier.counted(Stores.persistentKeyValueStore(TASKS)), Serdes.String(), STORED_TASK_SERDE)
                .withLoggingEnabled(Map.of(TopicConfig.MAX_MESSAGE_BYTES_CONFIG,
                        Integer.toString(Math.max(maxRecordBytes, TopicSetup.DEFAULT_MAX_MESSAGE_BYTES))));
    }

    public static StoreBuilder<KeyValueStore<Bytes, byte[]>> timers() {
        return Stores.keyValueStoreBuilder(CountingStoreSupplier.counted(Stores.persistentKeyValueStore(TIMERS)), Serdes.Bytes(), Serdes.ByteArray());
    }

    public static StoreBuilder<KeyValueStore<Bytes, byte[]>> index() {
        return Stores.keyValueStoreBuilder(CountingStoreSupplier.counted(Stores.persistentKeyValueStore(INDEX)), Serdes.Bytes(), Serdes.ByteArray());
    }

    /** A global store: its topic is its log, so Kafka Streams keeps no changelog for it. */
    public static StoreBuilder<KeyValueStore<String, byte[]>> calendars() {
        return Stores.keyValueStoreBuilder(CountingStoreSupplier.counted(Stores.persistentKeyValueStore(CALENDARS)), Serdes.String(), Serdes.ByteArray())
                .withLoggingDisabled();
    }

    /** The changelog topics of the stores, as Kafka Streams names them for {@code applicationId}. */
    public static List<String> changelogTopics(String applicationId) {
        return List.of(applicationId + "-" + TASKS + "-changelog", applicationId + "-" + TIMERS + "-changelog",
                applicationId + "-" + INDEX + "-changelog");
    }
}
