package io.ax.worker;

import io.ax.worker.internal.SettableClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;

/**
 * A MockConsumer that remembers every commit (MockConsumer forgets its commits when closed) and how long each
 * attempt was allowed to wait, counts polls and commit attempts (so a test can wait for the loop to have gone
 * round), and can fail commits like a broker would, or run them out of time like an unreachable coordinator.
 */
final class RecordingConsumer extends MockConsumer<String, byte[]> {
    /** What {@code commitSync} without a timeout waits: Kafka's {@code default.api.timeout.ms}. */
    static final Duration DEFAULT_API_TIMEOUT = Duration.ofSeconds(60);

    final List<Map<TopicPartition, OffsetAndMetadata>> commits = new CopyOnWriteArrayList<>();
    private final List<Duration> commitTimeouts = new CopyOnWriteArrayList<>();
    private final AtomicInteger polls = new AtomicInteger();
    private final AtomicInteger commitAttempts = new AtomicInteger();
    private volatile RuntimeException commitFailure;
    private volatile SettableClock unreachableCoordinatorClock;

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
        commit(offsets, DEFAULT_API_TIMEOUT);
    }

    @Override
    public synchronized void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets, Duration timeout) {
        commit(offsets, timeout);
    }

    private void commit(Map<TopicPartition, OffsetAndMetadata> offsets, Duration timeout) {
        commitAttempts.incrementAndGet();
        commitTimeouts.add(timeout);
        SettableClock clock = unreachableCoordinatorClock;
        if (clock != null) {
            clock.advance(timeout); // it blocked that long, by the worker's clock
            throw new TimeoutException("Timeout of " + timeout.toMillis()
                    + "ms expired before successfully committing offsets " + offsets);
        }
        RuntimeException failure = commitFailure;
        if (failure != null) {
            throw failure;
        }
        super.commitAsync(offsets, null); // what MockConsumer.commitSync does; calling that would come back here
        commits.add(Map.copyOf(offsets));
    }

    /** Every later commit throws {@code failure}, until called with null. */
    void failCommitsWith(RuntimeException failure) {
        commitFailure = failure;
    }

    /**
     * Every later commit, until called with null, blocks as long as it may (its timeout, or
     * {@link #DEFAULT_API_TIMEOUT} without one), which moves {@code clock} on by that much, then throws
     * {@link TimeoutException}: what {@code KafkaConsumer.commitSync} does while the group coordinator is unreachable.
     */
    void coordinatorUnreachable(SettableClock clock) {
        unreachableCoordinatorClock = clock;
    }

    int polls() {
        return polls.get();
    }

    int commitAttempts() {
        return commitAttempts.get();
    }

    /** How long each commit attempt was allowed to wait, in order. */
    List<Duration> commitTimeouts() {
        return List.copyOf(commitTimeouts);
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
