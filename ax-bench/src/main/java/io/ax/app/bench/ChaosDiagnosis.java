package io.ax.app.bench;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/**
 * What a chaos run that did not complete looks like from the cluster, printed line by line: the scheduler group's
 * state and who owns which partitions, every partition of the run's topics (ax's and the changelogs) whose last
 * stable offset is behind its end (an open transaction holds read_committed readers there) with the producers that
 * hold it open, and the transactions the coordinators list. Diagnosis only: every failure is reported as a line,
 * never thrown.
 */
final class ChaosDiagnosis {
    private static final long TIMEOUT_S = 20;

    private ChaosDiagnosis() {
    }

    static void print(Map<String, Object> kafka, String applicationId, String topicPrefix, Consumer<String> out) {
        try (Admin admin = Admin.create(kafka)) {
            group(admin, applicationId, out);
            List<TopicPartition> partitions = partitionsOf(admin, applicationId, topicPrefix);
            stuckPartitions(admin, partitions, out);
            transactions(admin, applicationId, out);
        } catch (Exception e) {
            out.accept("diagnosis failed: " + e);
        }
    }

    private static void group(Admin admin, String groupId, Consumer<String> out) {
        try {
            ConsumerGroupDescription group = admin.describeConsumerGroups(List.of(groupId)).describedGroups().get(groupId)
                    .get(TIMEOUT_S, TimeUnit.SECONDS);
            out.accept("group " + groupId + ": state " + group.groupState() + ", " + group.members().size() + " members");
            for (MemberDescription member : group.members()) {
                out.accept("  member " + member.groupInstanceId().orElse(member.consumerId()) + " owns "
                        + member.assignment().topicPartitions().stream().map(TopicPartition::toString).sorted().toList());
            }
        } catch (Exception e) {
            out.accept("group " + groupId + ": " + e);
        }
    }

    private static List<TopicPartition> partitionsOf(Admin admin, String applicationId, String topicPrefix) throws Exception {
        Set<String> topics = admin.listTopics().names().get(TIMEOUT_S, TimeUnit.SECONDS).stream()
                .filter(t -> t.startsWith(topicPrefix) || t.startsWith(applicationId + "-")).collect(Collectors.toSet());
        List<TopicPartition> partitions = new ArrayList<>();
        for (TopicDescription topic : admin.describeTopics(topics).allTopicNames().get(TIMEOUT_S, TimeUnit.SECONDS).values()) {
            topic.partitions().forEach(p -> partitions.add(new TopicPartition(topic.name(), p.partition())));
        }
        return partitions;
    }

    private static void stuckPartitions(Admin admin, List<TopicPartition> partitions, Consumer<String> out) throws Exception {
        Map<TopicPartition, Long> end = offsets(admin, partitions, IsolationLevel.READ_UNCOMMITTED);
        Map<TopicPartition, Long> stable = offsets(admin, partitions, IsolationLevel.READ_COMMITTED);
        Map<String, String> stuck = new TreeMap<>();
        List<TopicPartition> held = new ArrayList<>();
        for (TopicPartition partition : partitions) {
            long behind = end.get(partition) - stable.get(partition);
            if (behind > 0) {
                held.add(partition);
                stuck.put(partition.toString(), "end " + end.get(partition) + ", last stable " + stable.get(partition));
            }
        }
        out.accept(held.size() + " of " + partitions.size() + " partitions have a last stable offset behind their end"
                + " (open transactions)");
        stuck.forEach((partition, text) -> out.accept("  " + partition + ": " + text));
        if (held.isEmpty()) {
            return;
        }
        try {
            Map<TopicPartition, List<ProducerState>> producers = new HashMap<>();
            for (TopicPartition partition : held) {
                producers.put(partition, admin.describeProducers(List.of(partition)).partitionResult(partition)
                        .get(TIMEOUT_S, TimeUnit.SECONDS).activeProducers());
            }
            producers.forEach((partition, states) -> states.stream()
                    .filter(s -> s.currentTransactionStartOffset().isPresent())
                    .forEach(s -> out.accept("  " + partition + ": producer " + s.producerId() + " epoch "
                            + s.producerEpoch() + " has a transaction open since offset "
                            + s.currentTransactionStartOffset().getAsLong() + ", last write at "
                            + s.lastTimestamp() + " (coordinator epoch " + s.coordinatorEpoch() + ")")));
        } catch (Exception e) {
            out.accept("  describeProducers: " + e);
        }
    }

    private static Map<TopicPartition, Long> offsets(Admin admin, List<TopicPartition> partitions, IsolationLevel isolation)
            throws Exception {
        Map<TopicPartition, OffsetSpec> latest = partitions.stream().collect(Collectors.toMap(p -> p, p -> OffsetSpec.latest()));
        Map<TopicPartition, Long> offsets = new HashMap<>();
        admin.listOffsets(latest, new ListOffsetsOptions(isolation)).all().get(TIMEOUT_S, TimeUnit.SECONDS)
                .forEach((partition, info) -> offsets.put(partition, info.offset()));
        return offsets;
    }

    private static void transactions(Admin admin, String applicationId, Consumer<String> out) {
        try {
            List<TransactionListing> listings = new ArrayList<>(admin.listTransactions().all().get(TIMEOUT_S, TimeUnit.SECONDS));
            listings.removeIf(t -> !t.transactionalId().startsWith(applicationId));
            out.accept(listings.size() + " transactional ids of the application");
            for (TransactionListing listing : listings) {
                out.accept("  " + listing.transactionalId() + ": " + listing.state() + " (producer " + listing.producerId() + ")");
            }
        } catch (Exception e) {
            out.accept("transactions: " + e);
        }
    }
}
