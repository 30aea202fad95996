package io.ax.app.internal.migrate;

import io.ax.AxException;
import io.ax.AxTopics;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.admin.ListStreamsGroupOffsetsSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;

/**
 * The checks {@code ./ax migrate} makes before it writes anything, and the cluster facts it reads with them: the old
 * scheduler must be stopped (its group has no members, else its state would move on under the copy), the old topics
 * and changelog must exist, and the new co-partitioned topics must not have fewer partitions than the old ones.
 */
final class Preflight {
    private static final long TIMEOUT_S = 60;
    private static final Set<GroupState> STOPPED = Set.of(GroupState.EMPTY, GroupState.DEAD);

    private final Admin admin;

    Preflight(Admin admin) {
        this.admin = admin;
    }

    /** @throws MigrationRefusedException when the group {@code applicationId} has members */
    void requireStopped(String applicationId) {
        Optional<GroupListing> group = group(applicationId);
        if (group.isEmpty()) {
            return;
        }
        GroupState state = group.get().groupState().orElse(GroupState.UNKNOWN);
        if (!STOPPED.contains(state)) {
            throw new MigrationRefusedException("the scheduler " + applicationId + " is still running: its group is " + state
                    + ", not EMPTY. Stop every instance of it first (Ctrl-C / SIGTERM closes cleanly; after a kill -9 wait"
                    + " for the session timeout), then run the migration again.");
        }
    }

    /** The partition count the old co-partitioned topics share. */
    int partitionsOf(AxTopics topics) {
        Map<String, Integer> counts = counts(topics.coPartitioned());
        for (String topic : topics.coPartitioned()) {
            if (!counts.containsKey(topic)) {
                throw new MigrationRefusedException("topic " + topic + " does not exist: is --from-prefix " + topics.prefix() + " right?");
            }
        }
        if (Set.copyOf(counts.values()).size() != 1) {
            throw new MigrationRefusedException("the old topics are not co-partitioned: " + counts);
        }
        return counts.get(topics.requests());
    }

    /** The partitions of {@code topic}. */
    int partitionsOf(String topic, String hint) {
        Integer count = counts(List.of(topic)).get(topic);
        if (count == null) {
            throw new MigrationRefusedException("topic " + topic + " does not exist: " + hint);
        }
        return count;
    }

    /** @throws MigrationRefusedException when the partitions asked for are fewer than the old topics have */
    static void requireNoFewerAsked(int oldPartitions, int asked) {
        if (asked < oldPartitions) {
            throw new MigrationRefusedException("--partitions " + asked + " is fewer than the old topics' " + oldPartitions
                    + "; a migration only grows a deployment.");
        }
    }

    /** @throws MigrationRefusedException when the new topics (existing ones included) have fewer partitions than the old */
    static void requireNoFewer(int oldPartitions, int newPartitions, AxTopics to) {
        if (newPartitions < oldPartitions) {
            throw new MigrationRefusedException("the new topics " + to.coPartitioned() + " have " + newPartitions
                    + " partitions, fewer than the old ones' " + oldPartitions + "; a migration only grows a deployment."
                    + " Choose another --to-prefix or delete the new topics first.");
        }
    }

    /** The offsets the group has committed (empty when it has none). */
    Map<TopicPartition, OffsetAndMetadata> committed(String groupId) {
        Optional<GroupListing> group = group(groupId);
        boolean streams = group.isPresent() && group.get().type().orElse(GroupType.CLASSIC) == GroupType.STREAMS;
        KafkaFuture<Map<TopicPartition, OffsetAndMetadata>> offsets = streams
                ? admin.listStreamsGroupOffsets(Map.of(groupId, new ListStreamsGroupOffsetsSpec())).partitionsToOffsetAndMetadata(groupId)
                : admin.listConsumerGroupOffsets(Map.of(groupId, new ListConsumerGroupOffsetsSpec())).partitionsToOffsetAndMetadata(groupId);
        Map<TopicPartition, OffsetAndMetadata> result = new HashMap<>();
        get(offsets, "the committed offsets of " + groupId).forEach((tp, offset) -> {
            if (offset != null) {
                result.put(tp, offset);
            }
        });
        return result;
    }

    private Optional<GroupListing> group(String groupId) {
        Collection<GroupListing> groups = get(admin.listGroups().all(), "the groups");
        return groups.stream().filter(g -> g.groupId().equals(groupId)).findFirst();
    }

    private Map<String, Integer> counts(List<String> topics) {
        Set<String> present = get(admin.listTopics().names(), "the topics");
        List<String> wanted = topics.stream().filter(present::contains).toList();
        Map<String, Integer> counts = new HashMap<>();
        if (!wanted.isEmpty()) {
            Map<String, TopicDescription> described = get(admin.describeTopics(wanted).allTopicNames(), "topics " + wanted);
            described.forEach((name, d) -> counts.put(name, d.partitions().size()));
        }
        return counts;
    }

    static <T> T get(KafkaFuture<T> future, String what) {
        try {
            return future.get(TIMEOUT_S, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AxException("interrupted while reading " + what, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new AxException("cannot read " + what + ": " + (e.getCause() == null ? e : e.getCause()).getMessage(), e);
        }
    }
}
