package io.ax.worker.internal;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The worker's Kafka client settings: defaults, then the user's properties, then the few settings the
 * worker's guarantees rest on, which the user cannot change (manual commits after the reports are
 * acknowledged; only committed dispatches are read; the worker's own (de)serializers).
 */
public final class ClientConfigs {

    private ClientConfigs() {
    }

    public static Map<String, Object> consumer(String bootstrapServers, String groupId, String workerId,
                                               Map<String, Object> overrides) {
        Map<String, Object> config = new HashMap<>();
        putIfNotNull(config, ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        config.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, workerId);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.putAll(overrides);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return config;
    }

    public static Map<String, Object> producer(String bootstrapServers, String workerId, Map<String, Object> overrides) {
        Map<String, Object> config = new HashMap<>();
        putIfNotNull(config, ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        config.put(ProducerConfig.CLIENT_ID_CONFIG, workerId + "-reports");
        config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        config.putAll(overrides);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return config;
    }

    /** {@code shared} settings with {@code specific} ones over them. */
    public static Map<String, Object> layered(Map<String, Object> shared, Map<String, Object> specific) {
        Map<String, Object> config = new HashMap<>(shared);
        config.putAll(specific);
        return config;
    }

    private static void putIfNotNull(Map<String, Object> config, String key, Object value) {
        if (value != null) {
            config.put(key, value);
        }
    }
}
