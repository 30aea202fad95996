package io.ax.app.internal.timer;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.ToLongFunction;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;

/**
 * How far the stream thread's main consumer has read the input partitions its stream tasks watch, as proofs
 * ({@link Fetched}): an end offset asked of the brokers at time S (an {@link EndOffsetProbe}), once the consumer's
 * position has reached it, proves the partition read up to S. The consumer (ax's {@code TimedPolls}) writes it
 * after every poll; the processors of the same thread read it as their {@link ConsumerPositions}. One per stream
 * thread ({@link ThreadTimers}), used on that thread only, so it needs no locking. Not thread-safe.
 *
 * <p>Cheap by construction: a poll touches only the watched partitions (the stream tasks' requests and results
 * partitions, the inputs a decision waits for; not the retry and dependency logs, the changelogs or the gates' topics),
 * reads the local position of one only while a proof for it is pending, and allocates only when a proof is made.
 */
public final class ConsumerView implements ConsumerPositions {
    @Override
    public Fetched fetched(String topic, int partition) {
        Watched one = watched.get(new TopicPartition(topic, partition));
        return one == null ? null : one.proven;
    }

    @Override
    public void watch(String topic, int partition) {
        watched.computeIfAbsent(new TopicPartition(topic, partition), p -> new Watched()).watchers++;
    }

    @Override
    public void unwatch(String topic, int partition) {
        TopicPartition key = new TopicPartition(topic, partition);
        Watched one = watched.get(key);
        if (one != null && --one.watchers <= 0) {
            watched.remove(key);
        }
    }

    private static final class Watched {
        int watchers;
        long handedOverNextOffset = -1;
        /** An end offset asked at {@code pendingAskedAtMs} that the position has not reached yet; -1: none. */
        long pendingEndOffset = -1;
        long pendingAskedAtMs = Long.MIN_VALUE;
        Fetched proven;
    }

    /**
     * The most records a poll may hand over for the thread to count as keeping up ({@link #keepingUp}). A thread that
     * is keeping up waits in its polls for records to come; one that is behind finds a poll's worth buffered, up to
     * {@code max.poll.records} (2,000), at every poll.
     */
    static final int KEEPING_UP_MAX_RECORDS = 64;

    private final Map<TopicPartition, Watched> watched = new HashMap<>();
    /** Records the last poll handed over, all partitions. */
    private int lastPollRecords;

    /** One per stream thread ({@link ThreadTimers}). */
    public ConsumerView() {
    }

    /** The partitions the stream tasks of this thread watch (live view; do not keep). */
    public Set<TopicPartition> watched() {
        return watched.keySet();
    }

    /**
     * Whether the thread is keeping up with its inputs: its last poll handed over at most {@link
     * #KEEPING_UP_MAX_RECORDS} records. Then what the thread does between two polls (a commit) delays few records; a
     * thread that is behind spends its time on the records instead.
     */
    public boolean keepingUp() {
        return lastPollRecords <= KEEPING_UP_MAX_RECORDS;
    }

    /** Whether some watched partition waits for its position to reach an end offset already asked. */
    public boolean anyPending() {
        return notPending().size() < watched.size();
    }

    /** The watched partitions that wait for no answer already given: those a new end-offset request is of use for. */
    public Set<TopicPartition> notPending() {
        Set<TopicPartition> partitions = new java.util.HashSet<>();
        watched.forEach((partition, one) -> {
            if (one.pendingEndOffset < 0) {
                partitions.add(partition);
            }
        });
        return partitions;
    }

    /**
     * The answer of an end-offset request sent at {@code askedAtMs}. A partition already waiting for an earlier answer
     * keeps it (the position reaches it first); the next request after that gives it a newer one.
     */
    public void probed(long askedAtMs, Map<TopicPartition, Long> endOffsets) {
        endOffsets.forEach((partition, endOffset) -> {
            Watched one = watched.get(partition);
            if (one != null && one.pendingEndOffset < 0 && endOffset != null && endOffset >= 0
                    && (one.proven == null || askedAtMs > one.proven.readUpToMs())) {
                one.pendingEndOffset = endOffset;
                one.pendingAskedAtMs = askedAtMs;
            }
        });
    }

    /**
     * Records a poll: the offset after the last record returned per watched partition, and a proof for each whose
     * position ({@code positionOf}: the consumer's local position, -1 when unknown) has reached its pending end offset.
     * The position counts records returned by polls, never records only buffered, and steps over transaction markers.
     */
    public void polled(ConsumerRecords<?, ?> records, ToLongFunction<TopicPartition> positionOf) {
        lastPollRecords = records.count();
        for (Map.Entry<TopicPartition, Watched> entry : watched.entrySet()) {
            Watched one = entry.getValue();
            if (!records.isEmpty()) {
                var returned = records.records(entry.getKey());
                if (!returned.isEmpty()) {
                    ConsumerRecord<?, ?> last = returned.get(returned.size() - 1);
                    one.handedOverNextOffset = last.offset() + 1;
                }
            }
            if (one.pendingEndOffset >= 0 && positionOf.applyAsLong(entry.getKey()) >= one.pendingEndOffset) {
                // Records are processed in offset order: once those below the end offset are, the proof holds, whatever
                // the polls returned after it (under load, a poll's worth of records appended after the request).
                one.proven = new Fetched(Math.min(one.handedOverNextOffset, one.pendingEndOffset), one.pendingAskedAtMs);
                one.pendingEndOffset = -1;
            }
        }
    }
}
