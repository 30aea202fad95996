package io.ax.app.cli;

import ch.qos.logback.classic.Level;
import io.ax.AxTopics;
import io.ax.KafkaConnection;
import io.ax.client.AxClient;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.LoggerFactory;

/**
 * The Kafka clients of the operator commands (schedule, cancel, trigger, replay, tail, dead-letters): the shared
 * connection settings, short timeouts (an operator at a terminal wants an answer in seconds, not the two minutes a
 * producer waits by default), and the Kafka clients' own warnings kept off stdout, which carries the data (a broker
 * that cannot be reached is reported once, as the command's failure, instead of as a warning per retry).
 */
final class OperatorClients {
    /** How long a command waits for Kafka (metadata, a send's acknowledgement) before it fails. */
    static final Duration KAFKA_TIMEOUT = Duration.ofSeconds(15);

    private OperatorClients() {
    }

    static void quietKafkaLogs() {
        if (LoggerFactory.getLogger("org.apache.kafka") instanceof ch.qos.logback.classic.Logger kafka) {
            kafka.setLevel(Level.ERROR);
        }
    }

    static AxClient client(Map<String, String> settings, AxTopics topics, String clientId) {
        quietKafkaLogs();
        int timeoutMs = (int) KAFKA_TIMEOUT.toMillis();
        return AxClient.builder().connectionProperties(settings).topics(topics)
                .producerProperty(ProducerConfig.CLIENT_ID_CONFIG, clientId)
                .producerProperty(ProducerConfig.MAX_BLOCK_MS_CONFIG, timeoutMs)
                .producerProperty(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, timeoutMs / 2)
                .producerProperty(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, timeoutMs)
                .build();
    }

    /** A read_committed consumer without a group: it assigns itself partitions and commits nothing. */
    static <V> KafkaConsumer<String, V> consumer(Map<String, String> settings, String clientId, Deserializer<V> values) {
        quietKafkaLogs();
        Map<String, Object> props = new HashMap<>(KafkaConnection.select(settings));
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) KAFKA_TIMEOUT.toMillis());
        return new KafkaConsumer<>(props, new StringDeserializer(), values);
    }

    /** Every partition of {@code topic}. */
    static List<TopicPartition> partitions(KafkaConsumer<?, ?> consumer, String topic) {
        List<PartitionInfo> partitions = consumer.partitionsFor(topic, KAFKA_TIMEOUT);
        if (partitions == null || partitions.isEmpty()) {
            throw new CommandFailedException("topic " + topic + " does not exist (has a scheduler with this topic prefix"
                    + " been started? see --topic-prefix)");
        }
        return partitions.stream().map(p -> new TopicPartition(p.topic(), p.partition())).toList();
    }
}
