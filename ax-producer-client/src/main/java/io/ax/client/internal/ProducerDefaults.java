package io.ax.client.internal;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The producer configuration the client starts from. {@code acks=all} with idempotence means an
 * acknowledged request is on every in-sync replica and retries never duplicate it; a small
 * {@code linger.ms} batches bursts of submits without adding visible latency.
 */
public final class ProducerDefaults {
    private ProducerDefaults() {
    }

    /**
     * The defaults, overlaid by the user's properties; the serializers are always String/byte[] because
     * the client encodes values itself.
     */
    public static Map<String, Object> with(String bootstrapServers, Map<String, Object> overrides) {
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        config.put(ProducerConfig.CLIENT_ID_CONFIG, "ax-client");
        if (bootstrapServers != null) {
            config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        }
        config.putAll(overrides);
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return config;
    }
}
