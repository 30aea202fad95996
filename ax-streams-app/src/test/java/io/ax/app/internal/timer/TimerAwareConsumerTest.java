package io.ax.app.internal.timer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.junit.jupiter.api.Test;

class TimerAwareConsumerTest {
    @Test
    void shouldAskEndOffsetsThroughTheConsumersConnectionRetryingAfterATick() {
        Map<String, Object> admin = TimerAwareConsumer.adminConfig(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "broker:9092",
                AdminClientConfig.SECURITY_PROTOCOL_CONFIG, "SASL_SSL",
                ConsumerConfig.CLIENT_ID_CONFIG, "app-StreamThread-1-consumer",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 1000), 10);

        assertThat(admin).containsEntry(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "broker:9092")
                .containsEntry(AdminClientConfig.SECURITY_PROTOCOL_CONFIG, "SASL_SSL")
                .containsEntry(AdminClientConfig.CLIENT_ID_CONFIG, "app-StreamThread-1-consumer-end-offsets")
                .as("the admin client holds a second request to a broker for its retry backoff after the first one's "
                        + "answer (leaders cached, then looked up): a tick, not 100 ms")
                .containsEntry(AdminClientConfig.RETRY_BACKOFF_MS_CONFIG, 10L)
                .doesNotContainKeys(ConsumerConfig.ISOLATION_LEVEL_CONFIG, ConsumerConfig.MAX_POLL_RECORDS_CONFIG);
    }
}
