package io.ax.app.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class AxConfigConnectionTest {
    private static final Map<String, Object> SECURED = Map.of(
            "bootstrap.servers", "kafka-1:9093",
            "security.protocol", "SASL_SSL",
            "sasl.mechanism", "SCRAM-SHA-512",
            "ssl.truststore.location", "/etc/ax/truststore.p12",
            "ax.topic.prefix", "prod.");

    @Test
    void shouldGiveTheTopLevelSecuritySettingsToEveryStreamsClientAndLetStreamsPrefixedOnesWin() {
        Map<String, Object> settings = new java.util.HashMap<>(SECURED);
        settings.put("streams.sasl.mechanism", "SCRAM-SHA-256");
        settings.put("streams.consumer.ssl.truststore.location", "/consumer.p12");

        Properties streams = new AxConfig(settings).streamsProperties();

        assertThat(streams).containsEntry("bootstrap.servers", "kafka-1:9093")
                .containsEntry("security.protocol", "SASL_SSL")                   // unprefixed: every Streams client
                .containsEntry("ssl.truststore.location", "/etc/ax/truststore.p12")
                .containsEntry("sasl.mechanism", "SCRAM-SHA-256")                 // streams.* wins
                .containsEntry("consumer.ssl.truststore.location", "/consumer.p12")
                .doesNotContainKey("ax.topic.prefix");
    }

    @Test
    void shouldConnectTheTopicSetupAdminAsStreamsOwnAdminConnects() {
        Map<String, Object> settings = new java.util.HashMap<>(SECURED);
        settings.put("streams.sasl.mechanism", "SCRAM-SHA-256");
        settings.put("streams.admin.ssl.truststore.location", "/admin.p12");
        settings.put("streams.consumer.security.protocol", "SSL");   // another client's: not the admin's

        Map<String, Object> admin = new AxConfig(settings).setupAdminProperties();

        assertThat(admin).containsEntry("bootstrap.servers", "kafka-1:9093")
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("sasl.mechanism", "SCRAM-SHA-256")
                .containsEntry("ssl.truststore.location", "/admin.p12")
                .containsEntry("client.id", "ax-scheduler-topic-setup")
                .doesNotContainKeys("ax.topic.prefix", "admin.ssl.truststore.location");
    }

    @Test
    void shouldRetryTheStreamsProducersTransactionalRequestsAfterATick() {
        Properties streams = new AxConfig(Map.of(AxConfig.BOOTSTRAP_SERVERS_CONFIG, "kafka-1:9093", AxConfig.WHEEL_TICK_MS_CONFIG, 7))
                .streamsProperties();
        assertThat(streams).containsEntry("producer.retry.backoff.ms", 7L);
        Properties overridden = new AxConfig(Map.of(AxConfig.BOOTSTRAP_SERVERS_CONFIG, "kafka-1:9093",
                "streams.producer.retry.backoff.ms", "50")).streamsProperties();
        assertThat(overridden).containsEntry("producer.retry.backoff.ms", "50");
    }
}
