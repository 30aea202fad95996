package io.ax.worker;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * A MockConsumer that remembers every commit (MockConsumer forgets its commits when closed), counts polls and
 * commit attempts (so a test can wait for the loop to have gone round), and can fail commits like a broker would.
 */
final class RecordingConsumer extends MockConsumer<String, byte[]> {
    final List<Map<TopicPartition, OffsetAndMetadata>> commits = new CopyOnWriteArrayList<>();
    private final AtomicInteger polls = new AtomicInteger();
    private final AtomicInteger commitAttempts = new AtomicInteger();
    private volatile RuntimeException commitFailure;

    RecordingConsumer() {
        super("earliest");
    }

    @Override
    public synchronized ConsumerRecords<String, byte[]> poll(Duration timeout) {
        polls.incrementAndGet();
        return super.poll(timeout);
    }

    @Override
    public synchronized void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
        commitAttempts.incrementAndGet();
        RuntimeException failure = commitFailure;
        if (failure != null) {
            throw failure;
        }
        super.commitSync(offsets);
        commits.add(Map.copyOf(offsets));
    }

    /** Every later commit throws {@code failure}, until called with null. */
    void failCommitsWith(RuntimeException failure) {
        commitFailure = failure;
    }

    int polls() {
        return polls.get();
    }

    int commitAttempts() {
        return commitAttempts.get();
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
