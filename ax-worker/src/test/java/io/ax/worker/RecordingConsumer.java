package io.ax.worker;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/** A MockConsumer that remembers every commit, since MockConsumer forgets its commits when closed. */
final class RecordingConsumer extends MockConsumer<String, byte[]> {
    final List<Map<TopicPartition, OffsetAndMetadata>> commits = new CopyOnWriteArrayList<>();

    RecordingConsumer() {
        super("earliest");
    }

    @Override
    public synchronized void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
        super.commitSync(offsets);
        commits.add(Map.copyOf(offsets));
    }

    /** The last committed offset of {@code partition}, or -1. */
    long lastCommitted(TopicPartition partition) {
        long last = -1;
        for (Map<TopicPartition, OffsetAndMetadata> commit : commits) {
            OffsetAndMetadata offset = commit.get(partition);
            if (offset != null) {
                last = offset.offset();
            }
        }
        return last;
    }
}
