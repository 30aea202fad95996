package io.ax.worker.internal;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Which offsets of each assigned partition are done, when records finish out of order. The committable
 * offset of a partition is its lowest offset not yet done (or one past the highest seen when all are done):
 * everything below it is finished and reported, so committing it can only cause redelivery of unfinished
 * work, never loss.
 *
 * <p>Example: offsets 10, 11, 12 registered; 12 and 10 done → committable 11; 11 done → 13.
 *
 * <p>Not thread-safe: owned by the poll loop thread.
 */
final class OffsetTracker {
    private static final class Partition {
        final TreeSet<Long> pending = new TreeSet<>();
        long next = -1;
        long committed = -1;

        long committable() {
            return pending.isEmpty() ? next : pending.first();
        }
    }

    private final Map<TopicPartition, Partition> partitions = new HashMap<>();

    void register(TopicPartition partition, long offset) {
        Partition p = partitions.computeIfAbsent(partition, k -> new Partition());
        if (p.next < 0) {
            p.committed = offset; // where fetching started: committing it again would change nothing
        }
        p.pending.add(offset);
        p.next = Math.max(p.next, offset + 1);
    }

    /** @return false when the partition is no longer tracked (revoked): the caller must not count it */
    boolean complete(TopicPartition partition, long offset) {
        Partition p = partitions.get(partition);
        return p != null && p.pending.remove(offset);
    }

    boolean isPending(TopicPartition partition, long offset) {
        Partition p = partitions.get(partition);
        return p != null && p.pending.contains(offset);
    }

    /** Offsets that advanced since they were last {@link #committed}, for the given partitions (all if null). */
    Map<TopicPartition, OffsetAndMetadata> toCommit(Collection<TopicPartition> only) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        partitions.forEach((partition, p) -> {
            if ((only == null || only.contains(partition)) && p.next >= 0 && p.committable() > p.committed) {
                offsets.put(partition, new OffsetAndMetadata(p.committable()));
            }
        });
        return offsets;
    }

    void committed(Map<TopicPartition, OffsetAndMetadata> offsets) {
        offsets.forEach((partition, offset) -> {
            Partition p = partitions.get(partition);
            if (p != null) {
                p.committed = Math.max(p.committed, offset.offset());
            }
        });
    }

    void forget(Collection<TopicPartition> revoked) {
        revoked.forEach(partitions::remove);
    }
}
