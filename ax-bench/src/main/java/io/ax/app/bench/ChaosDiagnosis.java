package io.ax.app.bench;

import io.ax.AxTopics;
import io.ax.app.internal.health.HangingTransactions;
import io.ax.app.internal.health.OpenTransaction;
import io.ax.app.internal.store.AxStores;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Time;

/**
 * What a chaos run that did not complete looks like from the cluster, printed line by line: the scheduler group's
 * state and who owns which partitions, the transactions open on the run's topics and changelogs where they hold a
 * partition's last stable offset below its end (as the scheduler's {@link HangingTransactions} watch finds them),
 * and the transactions the coordinators list. Diagnosis only: every failure is reported as a line,
 * never thrown.
 */
final class ChaosDiagnosis {
    private static final long TIMEOUT_S = 20;

    private ChaosDiagnosis() {
    }

    /**
     * Prints the diagnosis line by line to {@code out}; returns its gist as one word for the RESULT line (which is what a
     * CI report shows of a failed run): the partitions held by open transactions, {@code topic-partition:producer:epoch},
     * comma-separated ({@code none}, or {@code unknown} when they could not be listed).
     */
    static String print(Map<String, Object> kafka, String applicationId, String topicPrefix, Consumer<String> out) {
        try (Admin admin = Admin.create(kafka)) {
            group(admin, applicationId, out);
            String open = openTransactions(admin, applicationId, topicPrefix, out);
            transactions(admin, applicationId, out);
            return open;
        } catch (Exception e) {
            out.accept("diagnosis failed: " + e);
            return "unknown";
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

    /** What the scheduler's own hanging-transaction watch sees on the same topics, unjudged. */
    private static String openTransactions(Admin admin, String applicationId, String topicPrefix, Consumer<String> out) {
        List<String> topics = new ArrayList<>(new AxTopics(topicPrefix).all());
        topics.addAll(AxStores.changelogTopics(applicationId));
        try {
            List<OpenTransaction> open = new HangingTransactions(admin, applicationId, topics, "", 0, false, Time.SYSTEM)
                    .openNow();
            out.accept(open.size() + " open transactions hold a partition's last stable offset below its end");
            open.forEach(t -> out.accept("  " + t.partition() + ": producer " + t.producerId() + " epoch "
                    + t.producerEpoch() + ", open since offset " + t.startOffset()));
            return open.isEmpty() ? "none" : open.stream()
                    .map(t -> t.partition() + ":" + t.producerId() + ":" + t.producerEpoch()).collect(Collectors.joining(","));
        } catch (Exception e) {
            out.accept("open transactions: " + e);
            return "unknown";
        }
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
