package io.ax.app.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Tag("integration")
class EmbeddedKafkaBrokerIT {

    private static final String TOPIC = "it-records";
    private static final int RECORDS = 100;
    private static final int PARTITIONS = 3;
    private static final Duration CONSUME_TIMEOUT = Duration.ofSeconds(30);

    @Test
    void transactionallyProducedRecordsAreReadBackInOrderByReadCommittedConsumer() throws Exception {
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults())) {
            assertThat(broker.bootstrapServers()).startsWith("127.0.0.1:");
            createTopic(broker);

            produceTransactionally(broker);

            List<ConsumerRecord<String, String>> records = consumeAll(broker, RECORDS);
            assertThat(records).hasSize(RECORDS);
            assertAllSentInOrderPerPartition(records);
        }
    }

    @Test
    void warmUpCommitsTransactionsWithOffsetsAndLeavesNeitherItsTopicNorItsGroups() throws Exception {
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults());
             Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
            BrokerWarmUp.Result warm = BrokerWarmUp.run(broker.bootstrapServers(), 2, Duration.ofSeconds(2));

            assertThat(warm.transactions()).isPositive();
            assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).doesNotContain(BrokerWarmUp.TOPIC);
            assertThat(admin.listConsumerGroups().all().get(30, TimeUnit.SECONDS))
                    .noneMatch(group -> group.groupId().startsWith("ax-broker-warm-up"));
            // a group already gone, as a producer that committed nothing leaves it, is not an error (CI went red on it once)
            BrokerWarmUp.deleteGroups(admin, Set.of("ax-broker-warm-up-never-there"));
            // the broker still takes an application's transactions afterwards
            createTopic(broker);
            produceTransactionally(broker);
            assertThat(consumeAll(broker, RECORDS)).hasSize(RECORDS);
        }
    }

    @Test
    void brokerRestartedOnSameLogDirKeepsTopicAndCommittedRecords(@TempDir Path logDir) throws Exception {
        EmbeddedKafkaBroker.Options options = EmbeddedKafkaBroker.Options.defaults().withLogDir(logDir);
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(options)) {
            createTopic(broker);
            produceTransactionally(broker);
        }

        try (EmbeddedKafkaBroker restarted = EmbeddedKafkaBroker.start(options);
             Admin admin = admin(restarted)) {
            assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).contains(TOPIC);
            assertThat(admin.describeTopics(Set.of(TOPIC)).allTopicNames().get(30, TimeUnit.SECONDS)
                    .get(TOPIC).partitions()).hasSize(PARTITIONS);

            List<ConsumerRecord<String, String>> records = consumeAll(restarted, RECORDS);
            assertThat(records).hasSize(RECORDS);
            assertAllSentInOrderPerPartition(records);
        }
        assertThat(logDir).exists(); // a caller-supplied log dir is never deleted
    }

    private static Admin admin(EmbeddedKafkaBroker broker) {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()));
    }

    private static void createTopic(EmbeddedKafkaBroker broker) throws Exception {
        try (Admin admin = admin(broker)) {
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
    }

    /** Sends key-i/value-i for i in [0, RECORDS) in one transaction; keys spread records over all partitions. */
    private static void produceTransactionally(EmbeddedKafkaBroker broker) {
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "it-producer");
        try (KafkaProducer<String, String> producer =
                     new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            producer.initTransactions();
            producer.beginTransaction();
            for (int i = 0; i < RECORDS; i++) {
                producer.send(new ProducerRecord<>(TOPIC, "key-" + i, "value-" + i));
            }
            producer.commitTransaction();
        }
    }

    private static List<ConsumerRecord<String, String>> consumeAll(EmbeddedKafkaBroker broker, int expected) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer =
                     new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                partitions.add(new TopicPartition(TOPIC, p));
            }
            consumer.assign(partitions);
            long deadline = System.nanoTime() + CONSUME_TIMEOUT.toNanos();
            while (records.size() < expected && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        return records;
    }

    /** Within each partition, the sequence numbers must rise: the order in which they were sent. */
    private static void assertAllSentInOrderPerPartition(List<ConsumerRecord<String, String>> records) {
        Map<Integer, List<Integer>> sequencesByPartition = new HashMap<>();
        for (ConsumerRecord<String, String> record : records) {
            int sequence = Integer.parseInt(record.value().substring("value-".length()));
            assertThat(record.key()).isEqualTo("key-" + sequence);
            sequencesByPartition.computeIfAbsent(record.partition(), p -> new ArrayList<>()).add(sequence);
        }
        assertThat(sequencesByPartition.keySet()).containsExactlyInAnyOrder(0, 1, 2);
        sequencesByPartition.values().forEach(sequences -> assertThat(sequences).isSorted());
        assertThat(sequencesByPartition.values().stream().flatMap(List::stream))
                .containsExactlyInAnyOrderElementsOf(IntStream.range(0, RECORDS).boxed().toList());
    }
}
