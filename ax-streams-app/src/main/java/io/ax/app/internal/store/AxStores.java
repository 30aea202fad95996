package io.ax.app.internal.store;

import io.ax.app.internal.setup.TopicSetup;
import io.ax.codec.StoredTaskCodec;
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
 * The scheduler's state stores: one registry of names and serdes. All are persistent (RocksDB). The task store and the
 * dependency store are changelogged, so their state moves with its partition; the lookup index ({@link #INDEX}) and the
 * timer index ({@link #TIMERS}) are derived from the task store and rebuilt from it on every assignment, so they write
 * no changelog.
 */
public final class AxStores {
    /** taskId → {@link StoredTask}. */
    public static final String TASKS = "ax-tasks";
    /**
     * due time + taskId → priority; see {@link io.ax.app.internal.timer.TimerIndex}. Derived from the task store, not
     * changelogged (the {@code ax-timers-changelog} topic of a deployment from before is no longer written or read).
     */
    public static final String TIMERS = "ax-timers";
    /**
     * Secondary indexes of the tasks (by state, jobType, owner; executionId → taskId; counts), derived from the task
     * store: not changelogged, rebuilt from the task store whenever the partition is assigned; see {@link TaskIndex}.
     */
    public static final String INDEX = "ax-task-lookup";
    /**
     * The dependency protocol's upstream side (subscribers, owed notifications, tombstones; {@code Dependencies}),
     * changelogged. Its name is the one the task index had when it shared this store, so existing changelogs keep their
     * subscriptions.
     */
    public static final String DEPENDENCIES = "ax-task-index";

    /**
     * Worker registry: workerId → its latest announcement with when it was last heard from and whether it is dead
     * ({@code WorkerEntry}), from the workers topic; changelogged, one record per announcement (per worker per
     * heartbeat, never per task), at most {@code ax.workers.max} keys.
     */
    public static final String WORKERS = "ax-workers";

    /**
     * Global store: calendar name → its accepted CalendarRequest (single-object bytes), read from the compacted
     * calendars topic by every instance; see {@code CalendarStore}.
     */
    public static final String CALENDARS = "ax-calendars";

    /** The task record: written and read by the task store's own codec, Avro's bytes without Avro's generic path. */
    public static final Serde<StoredTask> STORED_TASK_SERDE = Serdes.serdeFrom(
            (topic, task) -> task == null ? null : StoredTaskCodec.encode(task),
            (topic, bytes) -> bytes == null ? null : StoredTaskCodec.decode(bytes));

    private AxStores() {
    }

    /** @param maxRecordBytes the largest stored task: its changelog topic is created to take it */
    public static StoreBuilder<KeyValueStore<String, StoredTask>> tasks(int maxRecordBytes) {
        return Stores.keyValueStoreBuilder(CountingStoreSupplier.counted(Stores.persistentKeyValueStore(TASKS)), Serdes.String(), STORED_TASK_SERDE)
                .withLoggingEnabled(Map.of(TopicConfig.MAX_MESSAGE_BYTES_CONFIG,
                        Integer.toString(Math.max(maxRecordBytes, TopicSetup.DEFAULT_MAX_MESSAGE_BYTES))));
    }

    /**
     * Unlogged: every timer is derived from its task ({@code core.ArmedTimers}), so the store is wiped and rebuilt from the
     * task store on every assignment, alongside the index; a changelog was 4 of a one-shot task's 16 records.
     */
    public static StoreBuilder<KeyValueStore<Bytes, byte[]>> timers() {
        return Stores.keyValueStoreBuilder(CountingStoreSupplier.counted(Stores.persistentKeyValueStore(TIMERS)), Serdes.Bytes(), Serdes.ByteArray())
                .withLoggingDisabled();
    }

    /**
     * Unlogged: every index key is derived from the task store, so a changelog would only be a second copy (it was 33
     * records per task). Not cached: most of its keys are written once per task and transition, so Kafka Streams' record
     * cache (a TreeMap over the bytes of every key, full and evicting under any load) cost more than the RocksDB writes
     * it saved: 13% of the stream thread's samples while ingesting, against RocksDB puts of a few microseconds.
     */
    public static StoreBuilder<KeyValueStore<Bytes, byte[]>> index() {
        return Stores.keyValueStoreBuilder(CountingStoreSupplier.counted(Stores.persistentKeyValueStore(INDEX)), Serdes.Bytes(),
                        Serdes.ByteArray())
                .withLoggingDisabled();
    }

    public static StoreBuilder<KeyValueStore<Bytes, byte[]>> dependencies() {
        return Stores.keyValueStoreBuilder(CountingStoreSupplier.counted(Stores.persistentKeyValueStore(DEPENDENCIES)), Serdes.Bytes(),
                Serdes.ByteArray());
    }

    /** A global store: its topic is its log, so Kafka Streams keeps no changelog for it. */
    public static StoreBuilder<KeyValueStore<String, byte[]>> calendars() {
        return Stores.keyValueStoreBuilder(CountingStoreSupplier.counted(Stores.persistentKeyValueStore(CALENDARS)), Serdes.String(), Serdes.ByteArray())
                .withLoggingDisabled();
    }

    /** The worker registry's store (see {@link #WORKERS}); not counted: no task touches it. */
    public static StoreBuilder<KeyValueStore<String, byte[]>> workers() {
        return Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(WORKERS), Serdes.String(), Serdes.ByteArray());
    }

    /** The changelog topics of the stores, as Kafka Streams names them for {@code applicationId}. */
    public static List<String> changelogTopics(String applicationId) {
        return List.of(applicationId + "-" + TASKS + "-changelog", applicationId + "-" + DEPENDENCIES + "-changelog");
    }
}
