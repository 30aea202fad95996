package io.ax.app.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.ax.schema.AtTrigger;
import io.ax.schema.ScheduleRequest;
import io.ax.schema.StoredTask;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;

/** A task store written before the indexes existed is indexed in batches, to the same content as saves would give. */
class TaskIndexBackfillTest {
    private final MockProcessorContext<Object, Object> context = new MockProcessorContext<>();

    private <K, V> KeyValueStore<K, V> store(String name, org.apache.kafka.common.serialization.Serde<K> keys,
                                             org.apache.kafka.common.serialization.Serde<V> values) {
        KeyValueStore<K, V> store = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(name), keys, values)
                .withLoggingDisabled().build();
        store.init(context.getStateStoreContext(), store);
        return store;
    }

    private static StoredTask task(String taskId, String jobType, String owner) {
        ScheduleRequest request = ScheduleRequest.newBuilder().setJobType(jobType).setOwner(owner)
                .setTrigger(new AtTrigger(2_000_000_000_000L)).build();
        return StoredTask.newBuilder().setTaskId(taskId).setIncarnation(1).setRequest(request).setAcceptedAtMs(1)
                .setNextDueAtMs(2_000_000_000_000L).build();
    }

    private static List<String> contents(KeyValueStore<Bytes, byte[]> store) {
        List<String> out = new ArrayList<>();
        try (KeyValueIterator<Bytes, byte[]> all = store.all()) {
            all.forEachRemaining(kv -> {
                if (kv.key.get()[0] != 'v') {
                    out.add(kv.key + "=" + Arrays.toString(kv.value));
                }
            });
        }
        return out;
    }

    @Test
    void shouldIndexAnUnindexedTaskStoreInBatchesAsSavesWould() {
        KeyValueStore<String, StoredTask> tasks = store("tasks", Serdes.String(), AxStores.STORED_TASK_SERDE);
        KeyValueStore<Bytes, byte[]> backfilled = store("backfilled", Serdes.Bytes(), Serdes.ByteArray());
        KeyValueStore<Bytes, byte[]> saved = store("saved", Serdes.Bytes(), Serdes.ByteArray());
        TaskIndex bySaves = new TaskIndex(saved);
        for (int i = 0; i < 5; i++) {
            StoredTask task = task("t" + i, "j" + (i % 2), i % 2 == 0 ? "o" : null);
            tasks.put(task.getTaskId(), task);
            bySaves.save(task);
        }
        TaskIndex index = new TaskIndex(backfilled);
        assertThat(index.backfill(tasks, 2)).isFalse();
        assertThat(index.backfill(tasks, 2)).isFalse();
        assertThat(index.backfill(tasks, 2)).isTrue();
        assertThat(index.backfill(tasks, 2)).as("done: one read").isTrue();
        assertThat(contents(backfilled)).isEqualTo(contents(saved)).isNotEmpty();
    }

    @Test
    void shouldFinishAtOnceOnAnEmptyTaskStore() {
        KeyValueStore<String, StoredTask> tasks = store("tasks", Serdes.String(), AxStores.STORED_TASK_SERDE);
        TaskIndex index = new TaskIndex(store("index", Serdes.Bytes(), Serdes.ByteArray()));
        assertThat(index.backfill(tasks, 10)).isTrue();
    }
}
