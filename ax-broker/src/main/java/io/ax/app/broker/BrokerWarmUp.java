package io.ax.app.broker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Time;

/**
 * Runs the requests an exactly-once application makes of a broker, a few hundred times, on a topic of its own, then
 * deletes the topic and the group: a broker just started runs its transaction code (AddPartitionsToTxn,
 * TxnOffsetCommit, EndTxn and the markers, read_committed fetches and ListOffsets) interpreted, and a scheduler started
 * on it waited for that code in its first commits, so its first tasks fired 0.2-0.5 s late where a broker in service
 * answers in milliseconds (BENCHMARKS.md, "Start-up"). {@code ./ax broker} (one node) and the bench's embedded broker
 * are warmed this way before they are said to be ready; a production broker has been serving long before.
 *
 * <p>What it leaves: the transaction coordinator's and the group coordinator's internal topics
 * ({@code __transaction_state}, {@code __consumer_offsets}), which the first exactly-once application creates anyway.
 */
public final class BrokerWarmUp {
    /** The topic the warm-up writes, deleted at the end. */
    public static final String TOPIC = "ax-broker-warm-up";
    private static final String ID = "ax-broker-warm-up";
    private static final int PARTITIONS = 3;
    /** Records a transaction writes to each partition. */
    private static final int RECORDS_PER_PARTITION = 4;
    /** ListOffsets (read_committed) once every this many transactions, as a scheduler's end-offset probe does. */
    private static final int LIST_OFFSETS_EVERY = 4;

    /** Transactional producers of {@link #runAndTell}. */
    public static final int PRODUCERS = 4;
    /** How long {@link #runAndTell} runs transactions: ~130 of them, enough that a first task fires on time (BENCHMARKS.md). */
    public static final Duration BUDGET = Duration.ofSeconds(3);

    /** What a warm-up did. */
    public record Result(int transactions, long elapsedMs) {
    }

    /**
     * {@link #run(String, int, Duration)} with {@link #PRODUCERS} producers for {@link #BUDGET}, told in one line: what it
     * did, or why it failed (the broker serves without it: the warm-up only saves a first task's lateness).
     */
    public static String runAndTell(String bootstrapServers) {
        try {
            Result warm = run(bootstrapServers, PRODUCERS, BUDGET);
            return "warmed up: " + warm.transactions() + " transactions in " + warm.elapsedMs() + " ms";
        } catch (RuntimeException e) {
            return "warm-up failed, going on without: " + e.getMessage();
        }
    }

    private BrokerWarmUp() {
    }

    /**
     * Runs transactions from {@code producers} transactional producers at once (a transaction's commit waits for the
     * broker's markers before the next can start, ~30 ms, so one producer runs few) until {@code budget} has passed,
     * against the broker at {@code bootstrapServers}, then deletes the topic and the consumer groups it used.
     */
    public static Result run(String bootstrapServers, int producers, Duration budget) {
        long startMs = Time.SYSTEM.milliseconds();
        long deadlineMs = startMs + budget.toMillis();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
            try {
                admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get();
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof org.apache.kafka.common.errors.TopicExistsException)) {
                    throw e;
                } // left by a warm-up the broker was stopped in (a restart on the same --dir): used again, then deleted
            }
            List<TopicPartition> partitions = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                partitions.add(new TopicPartition(TOPIC, p));
            }
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(producers, runnable -> {
                Thread thread = new Thread(runnable, "ax-broker-warm-up");
                thread.setDaemon(true);
                return thread;
            });
            Set<String> ids = new java.util.HashSet<>(); // each producer's transactional id and its consumer's group
            for (int i = 0; i < producers; i++) {
                ids.add(ID + "-" + i);
            }
            List<java.util.concurrent.Future<Integer>> counts = new ArrayList<>();
            try {
                for (String id : ids) {
                    counts.add(pool.submit(() -> transactions(admin, bootstrapServers, id, partitions, deadlineMs)));
                }
                int done = 0;
                for (java.util.concurrent.Future<Integer> count : counts) {
                    done += count.get();
                }
                deleteGroups(admin, ids);
                admin.deleteTopics(Set.of(TOPIC)).all().get();
                return new Result(done, Time.SYSTEM.milliseconds() - startMs);
            } finally {
                pool.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while warming the broker up", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("Could not warm the broker up: " + e.getCause(), e.getCause());
        }
    }

    /**
     * Deletes the consumer groups {@code ids}; a group that is not there is what was wanted: a producer that committed no
     * transaction before the deadline (a slow box) left none, and a delete the coordinator carried out but answered
     * {@code NOT_COORDINATOR} (seen under load, while it also deleted the share group of the same id) is retried by the
     * admin client into {@code GroupIdNotFoundException}.
     */
    static void deleteGroups(Admin admin, Set<String> ids) throws InterruptedException, ExecutionException {
        for (KafkaFuture<Void> deleted : admin.deleteConsumerGroups(ids).deletedGroups().values()) {
            try {
                deleted.get();
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof GroupIdNotFoundException)) {
                    throw e;
                }
            }
        }
    }

    /** One producer's transactions until {@code deadlineMs}, each with its consumer's offsets; how many it committed. */
    private static int transactions(Admin admin, String bootstrapServers, String id, List<TopicPartition> partitions,
                                    long deadlineMs) throws InterruptedException, ExecutionException {
        int done = 0;
        try (KafkaProducer<byte[], byte[]> producer = producer(bootstrapServers, id);
             KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrapServers, id)) {
            consumer.assign(partitions);
            producer.initTransactions();
            byte[] value = new byte[200];
            while (Time.SYSTEM.milliseconds() < deadlineMs) {
                producer.beginTransaction();
                for (TopicPartition partition : partitions) {
                    for (int i = 0; i < RECORDS_PER_PARTITION; i++) {
                        producer.send(new ProducerRecord<>(TOPIC, partition.partition(), null, value));
                    }
                }
                consumer.poll(Duration.ZERO);
                Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
                for (TopicPartition partition : partitions) {
                    offsets.put(partition, new OffsetAndMetadata(consumer.position(partition)));
                }
                producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
                producer.commitTransaction();
                done++;
                if (done % LIST_OFFSETS_EVERY == 0) {
                    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
                    partitions.forEach(partition -> latest.put(partition, OffsetSpec.latest()));
                    admin.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all().get();
                }
            }
        }
        return done;
    }

    private static KafkaProducer<byte[], byte[]> producer(String bootstrapServers, String id) {
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, id);
        config.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        return new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static KafkaConsumer<byte[], byte[]> consumer(String bootstrapServers, String id) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        config.put(ConsumerConfig.GROUP_ID_CONFIG, id);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, IsolationLevel.READ_COMMITTED.toString().toLowerCase(java.util.Locale.ROOT));
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }
}
