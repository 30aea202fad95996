package io.ax.worker.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ClientConfigsTest {
    @Test
    void shouldConfigureConsumerForManualCommitsOfCommittedDispatches() {
        Map<String, Object> config = ClientConfigs.consumer("localhost:9092", "ax-workers", "w1", Map.of());

        assertThat(config).containsEntry("bootstrap.servers", "localhost:9092")
                .containsEntry("group.id", "ax-workers")
                .containsEntry("client.id", "w1")
                .containsEntry("isolation.level", "read_committed")
                .containsEntry("enable.auto.commit", false)
                .containsEntry("auto.offset.reset", "earliest")
                .doesNotContainKey("max.poll.records");
    }

    @Test
    void shouldNotLetUserBreakTheConsumerGuarantees() {
        Map<String, Object> config = ClientConfigs.consumer("localhost:9092", "g", "w1",
                Map.of("enable.auto.commit", true, "isolation.level", "read_uncommitted", "max.poll.records", 7));

        assertThat(config).containsEntry("enable.auto.commit", false)
                .containsEntry("isolation.level", "read_committed")
                .containsEntry("max.poll.records", 7);
    }

    @Test
    void shouldSendReportsDurablyAndIdempotently() {
        Map<String, Object> config = ClientConfigs.producer("localhost:9092", "w1", Map.of("acks", "1", "linger.ms", 0));

        assertThat(config).containsEntry("acks", "all")
                .containsEntry("enable.idempotence", true)
                .containsEntry("linger.ms", 0)
                .containsEntry("client.id", "w1-reports");
    }

    @Test
    void shouldLayerClientSpecificSettingsOverTheSharedConnectionSettings() {
        Map<String, Object> shared = Map.of("bootstrap.servers", "b:9093", "security.protocol", "SASL_SSL",
                "ssl.truststore.location", "/shared.p12");
        Map<String, Object> config = ClientConfigs.consumer(null, "g", "w1",
                ClientConfigs.layered(shared, Map.of("ssl.truststore.location", "/consumer.p12")));

        assertThat(config).containsEntry("bootstrap.servers", "b:9093")
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("ssl.truststore.location", "/consumer.p12");
    }
}
