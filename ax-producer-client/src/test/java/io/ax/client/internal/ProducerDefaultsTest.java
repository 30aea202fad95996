package io.ax.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

class ProducerDefaultsTest {
    @Test
    void shouldDefaultToDurableIdempotentSends() {
        Map<String, Object> config = ProducerDefaults.with("localhost:9092", Map.of());

        assertThat(config).containsEntry("bootstrap.servers", "localhost:9092")
                .containsEntry("acks", "all")
                .containsEntry("enable.idempotence", true)
                .containsEntry("linger.ms", 5)
                .containsEntry("key.serializer", StringSerializer.class.getName())
                .containsEntry("value.serializer", ByteArraySerializer.class.getName());
    }

    @Test
    void shouldLetUserOverrideSettingsButNotSerializers() {
        Map<String, Object> config = ProducerDefaults.with("localhost:9092",
                Map.of("linger.ms", 20, "value.serializer", StringSerializer.class.getName()));

        assertThat(config).containsEntry("linger.ms", 20)
                .containsEntry("value.serializer", ByteArraySerializer.class.getName());
    }
}
