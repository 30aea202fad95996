package io.ax.app.internal.query;

import io.ax.app.internal.store.AxStores;
import io.ax.schema.StoredTask;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * This instance's stores through Kafka Streams' interactive queries, one partition at a time (a store over all local
 * partitions would iterate them one after the other, not in key order). Only active partitions answer: a standby's
 * copy may be behind. Safe from any thread; a store that cannot be read now (rebalancing, restoring) is a 503.
 */
final class LocalStores {
    private final KafkaStreams streams;
    private final String requestsTopic;

    /** @param requestsTopic the requests topic: the stream tasks that read it are the ones that hold the task stores */
    LocalStores(KafkaStreams streams, String requestsTopic) {
        this.streams = streams;
        this.requestsTopic = requestsTopic;
    }

    /**
     * The input partitions this instance processes now: its active stream tasks of the scheduler's sub-topology, one per
     * partition (the flow gates' and the worker registry's tasks, numbered alike, hold no task store).
     */
    Set<Integer> activePartitions() {
        requireRunning();
        Set<Integer> partitions = new TreeSet<>();
        streams.metadataForLocalThreads().forEach(thread -> thread.activeTasks().forEach(task -> {
            if (readsRequests(task)) {
                partitions.add(task.taskId().partition());
            }
        }));
        return partitions;
    }

    /** Whether {@code task} is one of the scheduler's own (it reads the requests topic). */
    boolean readsRequests(org.apache.kafka.streams.TaskMetadata task) {
        return task.topicPartitions().stream().anyMatch(partition -> partition.topic().equals(requestsTopic));
    }

    ReadOnlyKeyValueStore<String, StoredTask> tasks(int partition) {
        return store(AxStores.TASKS, partition);
    }

    ReadOnlyKeyValueStore<Bytes, byte[]> index(int partition) {
        return store(AxStores.INDEX, partition);
    }

    void requireRunning() {
        if (streams.state() != KafkaStreams.State.RUNNING) {
            throw HttpError.unavailable("the scheduler is " + streams.state() + ", not RUNNING; ask again shortly");
        }
    }

    private <K, V> ReadOnlyKeyValueStore<K, V> store(String name, int partition) {
        try {
            return streams.store(StoreQueryParameters.fromNameAndType(name, QueryableStoreTypes.<K, V>keyValueStore())
                    .withPartition(partition));
        } catch (InvalidStateStoreException e) {
            throw HttpError.unavailable("partition " + partition + " cannot be read here now (" + e.getMessage() + ")");
        }
    }
}
