package io.ax.app.internal.setup;

import io.ax.AxException;
import io.ax.AxTopics;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates ax's missing topics at startup and checks the ones that exist: the topics the scheduler reads
 * must share one partition count (co-partitioning: one stream task owns each task's whole life), or it
 * refuses to start with a message that says what to change. Existing topics are never altered.
 */
public final class TopicSetup {
    private static final Logger log = LoggerFactory.getLogger(TopicSetup.class);
    private static final long TIMEOUT_S = 60;

    private TopicSetup() {
    }

    /** Thrown when existing topics can't be used as they are. */
    public static final class TopicLayoutException extends AxException {
        public TopicLayoutException(String message) {
            super(message);
        }
    }

    /** @return the partition count the co-partitioned topics share */
    public static int ensure(Admin admin, AxTopics topics, int partitions, short replicationFactor) {
        Map<String, Integer> existing = describe(admin, topics.all());
        List<NewTopic> missing = new ArrayList<>();
        for (String topic : topics.all()) {
            if (!existing.containsKey(topic)) {
                int count = topics.coPartitioned().contains(topic) ? coPartitionCount(existing, topics, partitions) : partitions;
                missing.add(newTopic(topic, count, replicationFactor, topics));
            }
        }
        create(admin, missing);
        Map<String, Integer> counts = describe(admin, topics.coPartitioned());
        checkCoPartitioned(counts, topics);
        return counts.values().iterator().next();
    }

    /** Missing co-partitioned topics take the count of the existing ones, so a partial setup is completed consistently. */
    private static int coPartitionCount(Map<String, Integer> existing, AxTopics topics, int partitions) {
        return topics.coPartitioned().stream().filter(existing::containsKey).map(existing::get).findFirst().orElse(partitions);
    }

    private static NewTopic newTopic(String name, int partitions, short replicationFactor, AxTopics topics) {
        NewTopic topic = new NewTopic(name, Optional.of(partitions),
                replicationFactor < 0 ? Optional.empty() : Optional.of(replicationFactor));
        if (name.equals(topics.state()) || name.equals(topics.dispatch())) {
            topic.configs(Map.of(TopicConfig.RETENTION_MS_CONFIG, Long.toString(7L * 24 * 3600 * 1000)));
        }
        if (name.equals(topics.deadLetter())) {
            topic.configs(Map.of(TopicConfig.RETENTION_MS_CONFIG, "-1"));
        }
        return topic;
    }

    private static void checkCoPartitioned(Map<String, Integer> counts, AxTopics topics) {
        Set<Integer> distinct = Set.copyOf(counts.values());
        if (distinct.size() > 1) {
            throw new TopicLayoutException("topics " + String.join(", ", topics.coPartitioned())
                    + " must have the same number of partitions (co-partitioned by taskId), but have " + new TreeMap<>(counts)
                    + ". Add partitions to the smaller ones (kafka-topics.sh --alter --partitions N) before starting ax;"
                    + " note that this moves keys between partitions, so do it while nothing is pending.");
        }
    }

    private static Map<String, Integer> describe(Admin admin, List<String> names) {
        Map<String, Integer> counts = new TreeMap<>();
        try {
            Set<String> present = admin.listTopics().names().get(TIMEOUT_S, TimeUnit.SECONDS);
            List<String> wanted = names.stream().filter(present::contains).toList();
            if (!wanted.isEmpty()) {
                Map<String, TopicDescription> descriptions = admin.describeTopics(wanted).allTopicNames().get(TIMEOUT_S, TimeUnit.SECONDS);
                descriptions.forEach((name, d) -> counts.put(name, d.partitions().size()));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AxException("interrupted while describing topics", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new AxException("cannot describe ax's topics: " + e.getMessage(), e);
        }
        return counts;
    }

    private static void create(Admin admin, List<NewTopic> topics) {
        if (topics.isEmpty()) {
            return;
        }
        try {
            admin.createTopics(topics).all().get(TIMEOUT_S, TimeUnit.SECONDS);
            topics.forEach(t -> log.info("Created topic {} with {} partitions", t.name(), t.numPartitions()));
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new AxException("cannot create topics: " + e.getCause().getMessage(), e);
            }
            // Another instance created them meanwhile; the co-partitioning check that follows still applies.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AxException("interrupted while creating topics", e);
        } catch (TimeoutException e) {
            throw new AxException("timed out creating topics", e);
        }
    }
}
