package io.ax.app.internal.setup;

import io.ax.AxException;
import io.ax.AxTopics;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates ax's missing topics at startup and checks the ones that exist: the topics the scheduler reads
 * must share one partition count (co-partitioning: one stream task owns each task's whole life), and every
 * topic the scheduler writes must take its largest record; otherwise it refuses to start with a message that
 * says what to change. Existing topics are never altered.
 *
 * <p>Several schedulers may start at once on an empty cluster: each creates what it finds missing, a topic
 * another one created meanwhile counts as created, and each then waits (bounded) until every topic is visible
 * in the cluster's metadata, which lags a successful creation.
 */
public final class TopicSetup {
    private static final Logger log = LoggerFactory.getLogger(TopicSetup.class);
    private static final long TIMEOUT_S = 60;
    private static final long VISIBLE_WAIT_MS = 30_000;

    private TopicSetup() {
    }

    /**
     * Thrown when the cluster refused to authenticate the scheduler (a wrong password, an untrusted certificate):
     * Kafka's clients do not retry that, and neither does startup.
     */
    public static final class AuthenticationFailedException extends AxException {
        public AuthenticationFailedException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** Thrown when existing topics can't be used as they are. */
    public static final class TopicLayoutException extends AxException {
        public TopicLayoutException(String message) {
            super(message);
        }
    }

    /**
     * @param maxRecordBytes the largest record the scheduler writes: created topics take it, existing ones must
     * @return the partition count the co-partitioned topics share
     */
    public static int ensure(Admin admin, AxTopics topics, int partitions, short replicationFactor, int maxRecordBytes) {
        Map<String, Integer> existing = describe(admin, topics.all());
        List<NewTopic> missing = new ArrayList<>();
        for (String topic : topics.all()) {
            if (!existing.containsKey(topic)) {
                int count = coPartitioned(topics).contains(topic) ? coPartitionCount(existing, topics, partitions) : partitions;
                missing.add(newTopic(topic, topic.equals(topics.limits()) || topic.equals(topics.workers()) ? 1 : count, replicationFactor, topics, maxRecordBytes));
            }
        }
        create(admin, missing);
        Map<String, Integer> counts = awaitVisible(admin, topics.all(), Time.SYSTEM);
        checkCoPartitioned(filter(counts, coPartitioned(topics)), topics);
        requireMaxMessageBytes(admin, topics.all(), maxRecordBytes);
        return counts.get(topics.requests());
    }

    /**
     * Refuses to start when an existing topic among {@code names} takes records smaller than {@code maxRecordBytes}
     * (its {@code max.message.bytes}, the broker's default included): the scheduler would write records it refuses.
     */
    public static void requireMaxMessageBytes(Admin admin, Collection<String> names, int maxRecordBytes) {
        Map<String, Integer> limits = maxMessageBytes(admin, names);
        List<String> tooSmall = limits.entrySet().stream().filter(e -> e.getValue() < maxRecordBytes)
                .map(e -> e.getKey() + " (" + e.getValue() + ")").toList();
        if (!tooSmall.isEmpty()) {
            throw new TopicLayoutException("topics " + String.join(", ", tooSmall) + " take records of at most that many bytes,"
                    + " but with ax.max.payload.bytes as set the scheduler writes records of up to " + maxRecordBytes
                    + " bytes. Raise them (kafka-configs.sh --alter --entity-type topics --entity-name TOPIC --add-config"
                    + " max.message.bytes=" + maxRecordBytes + ") or lower ax.max.payload.bytes.");
        }
    }

    private static Map<String, Integer> filter(Map<String, Integer> counts, List<String> names) {
        Map<String, Integer> filtered = new TreeMap<>();
        names.forEach(name -> filtered.put(name, counts.get(name)));
        return filtered;
    }

    /** Missing co-partitioned topics take the count of the existing ones, so a partial setup is completed consistently. */
    /**
     * The topics the scheduler's task processor reads: the inputs, and the flow-control grants (written by the scheduler
     * itself, keyed by taskId), which must be partitioned like them.
     */
    private static List<String> coPartitioned(AxTopics topics) {
        List<String> all = new ArrayList<>(topics.coPartitioned());
        all.add(topics.flowGrants());
        return all;
    }

    private static int coPartitionCount(Map<String, Integer> existing, AxTopics topics, int partitions) {
        return topics.coPartitioned().stream().filter(existing::containsKey).map(existing::get).findFirst().orElse(partitions);
    }

    private static NewTopic newTopic(String name, int partitions, short replicationFactor, AxTopics topics, int maxRecordBytes) {
        NewTopic topic = new NewTopic(name, Optional.of(partitions),
                replicationFactor < 0 ? Optional.empty() : Optional.of(replicationFactor));
        Map<String, String> configs = new TreeMap<>();
        if (maxRecordBytes > DEFAULT_MAX_MESSAGE_BYTES) {
            configs.put(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, Integer.toString(maxRecordBytes));
        }
        if (name.equals(topics.state()) || name.equals(topics.dispatch())) {
            configs.put(TopicConfig.RETENTION_MS_CONFIG, Long.toString(7L * 24 * 3600 * 1000));
        }
        if (name.equals(topics.deadLetter()) || name.equals(topics.quarantine())) {
            configs.put(TopicConfig.RETENTION_MS_CONFIG, "-1");
        }
        if (name.equals(topics.calendars()) || name.equals(topics.limits()) || name.equals(topics.workers())) {
            configs.put(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT);
        }
        return topic.configs(configs);
    }

    /** The cluster's id, which tells one cluster's local state from another's. */
    public static String clusterId(Admin admin) {
        try {
            return admin.describeCluster().clusterId().get(TIMEOUT_S, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AxException("interrupted while describing the cluster", e);
        } catch (ExecutionException | TimeoutException e) {
            throw failure("cannot describe the cluster", e);
        }
    }

    /** Kafka's default {@code message.max.bytes}. */
    public static final int DEFAULT_MAX_MESSAGE_BYTES = 1_048_588;

    private static void checkCoPartitioned(Map<String, Integer> counts, AxTopics topics) {
        Set<Integer> distinct = Set.copyOf(counts.values());
        if (distinct.size() > 1) {
            throw new TopicLayoutException("topics " + String.join(", ", topics.coPartitioned())
                    + " must have the same number of partitions (co-partitioned by taskId), but have " + new TreeMap<>(counts)
                    + ". Add partitions to the smaller ones (kafka-topics.sh --alter --partitions N) before starting ax;"
                    + " note that this moves keys between partitions, so do it while nothing is pending.");
        }
    }

    /**
     * Partition counts of {@code names}, once all of them show in the metadata: a topic just created (by this
     * instance or another) may take a moment to appear in {@code listTopics}/{@code describeTopics}.
     */
    static Map<String, Integer> awaitVisible(Admin admin, List<String> names, Time time) {
        long deadlineMs = time.milliseconds() + VISIBLE_WAIT_MS;
        long backoffMs = 50;
        while (true) {
            Map<String, Integer> counts = describe(admin, names);
            if (counts.keySet().containsAll(names)) {
                return counts;
            }
            if (time.milliseconds() >= deadlineMs) {
                List<String> absent = names.stream().filter(name -> !counts.containsKey(name)).toList();
                throw new AxException("topics " + absent + " were created but are still not visible after "
                        + VISIBLE_WAIT_MS / 1000 + " s; is the cluster healthy?");
            }
            time.sleep(backoffMs);
            backoffMs = Math.min(backoffMs * 2, 1000);
        }
    }

    /** The partition count of an existing topic, or 0 when it cannot be told. */
    public static int partitionCount(Admin admin, String topic) {
        return describe(admin, List.of(topic)).getOrDefault(topic, 0);
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
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return counts; // listed but not yet described everywhere: the caller waits and asks again
            }
            throw failure("cannot describe ax's topics", e);
        } catch (TimeoutException e) {
            throw failure("cannot describe ax's topics", e);
        }
        return counts;
    }

    private static Map<String, Integer> maxMessageBytes(Admin admin, Collection<String> names) {
        Map<String, Integer> limits = new TreeMap<>();
        try {
            Set<String> present = admin.listTopics().names().get(TIMEOUT_S, TimeUnit.SECONDS);
            List<ConfigResource> resources = names.stream().filter(present::contains)
                    .map(name -> new ConfigResource(ConfigResource.Type.TOPIC, name)).toList();
            if (resources.isEmpty()) {
                return limits;
            }
            Map<ConfigResource, Config> configs = admin.describeConfigs(resources).all().get(TIMEOUT_S, TimeUnit.SECONDS);
            configs.forEach((resource, config) -> {
                ConfigEntry entry = config.get(TopicConfig.MAX_MESSAGE_BYTES_CONFIG);
                if (entry != null && entry.value() != null) {
                    limits.put(resource.name(), Integer.parseInt(entry.value()));
                }
            });
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AxException("interrupted while describing topic configs", e);
        } catch (ExecutionException | TimeoutException e) {
            throw failure("cannot describe the configs of ax's topics", e);
        }
        return limits;
    }

    /** Says what failed; an authentication failure says so first, with the settings that decide it. */
    private static AxException failure(String what, Exception e) {
        Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
        if (cause instanceof AuthenticationException) {
            return new AuthenticationFailedException("Kafka authentication failed: " + cause.getMessage() + " (" + what
                    + "; check security.protocol and the sasl.* and ssl.* settings)", cause);
        }
        return new AxException(what + ": " + cause.getMessage(), e);
    }

    /** Creates {@code topics}; one that exists by now (another instance was quicker) counts as created. */
    private static void create(Admin admin, List<NewTopic> topics) {
        if (topics.isEmpty()) {
            return;
        }
        admin.createTopics(topics).values().forEach((name, future) -> {
            try {
                future.get(TIMEOUT_S, TimeUnit.SECONDS);
                log.info("Created topic {}", name);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw failure("cannot create topic " + name, e);
                }
                log.info("Topic {} was created by another instance meanwhile", name);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AxException("interrupted while creating topics", e);
            } catch (TimeoutException e) {
                throw new AxException("timed out creating topic " + name, e);
            }
        });
    }
}
