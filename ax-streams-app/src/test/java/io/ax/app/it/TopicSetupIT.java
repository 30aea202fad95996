package io.ax.app.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ax.AxTopics;
import io.ax.app.AxScheduler;
import io.ax.app.broker.EmbeddedKafkaBroker;
import io.ax.app.config.AxConfig;
import io.ax.app.internal.setup.TopicSetup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Topic setup on a real broker: concurrent first starts, and topics too small for the records ax writes. */
@Tag("integration")
class TopicSetupIT {
    private static EmbeddedKafkaBroker broker;

    @BeforeAll
    static void startBroker() {
        broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults());
    }

    @AfterAll
    static void stopBroker() {
        broker.close();
    }

    private static AxConfig config(String prefix, Path stateDir, Map<String, Object> extra) {
        Map<String, Object> props = new java.util.HashMap<>(Map.of(
                AxConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                AxConfig.APPLICATION_ID_CONFIG, "it-" + prefix,
                AxConfig.TOPIC_PREFIX_CONFIG, prefix + ".",
                AxConfig.TOPIC_PARTITIONS_CONFIG, 2,
                AxConfig.STATE_DIR_CONFIG, stateDir.toString()));
        props.putAll(extra);
        return new AxConfig(props);
    }

    @Test
    void shouldStartTwoSchedulersAtOnceOnAnEmptyCluster(@TempDir Path one, @TempDir Path two) throws Exception {
        CompletableFuture<AxScheduler> first = CompletableFuture.supplyAsync(() -> AxScheduler.start(config("race", one, Map.of())));
        CompletableFuture<AxScheduler> second = CompletableFuture.supplyAsync(() -> AxScheduler.start(config("race", two, Map.of())));
        try (AxScheduler a = first.get(2, TimeUnit.MINUTES); AxScheduler b = second.get(2, TimeUnit.MINUTES)) {
            a.awaitRunning(Duration.ofMinutes(2));
            b.awaitRunning(Duration.ofMinutes(2));
            try (Admin admin = admin()) {
                Set<String> names = admin.listTopics().names().get(30, TimeUnit.SECONDS);
                assertThat(names).containsAll(new AxTopics("race.").all());
            }
        }
    }

    @Test
    void shouldRefuseToStartWhenATopicTakesRecordsSmallerThanTheSchedulerWrites(@TempDir Path stateDir) throws Exception {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic("small.dispatch", 2, (short) 1)
                    .configs(Map.of(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, "100000")))).all().get(30, TimeUnit.SECONDS);
        }
        assertThatThrownBy(() -> AxScheduler.start(config("small", stateDir, Map.of())))
                .isInstanceOf(TopicSetup.TopicLayoutException.class)
                .hasMessageContaining("small.dispatch (100000)")
                .hasMessageContaining("up to 393216 bytes")
                .hasMessageContaining("max.message.bytes=393216");
    }

    @Test
    void shouldCreateTopicsThatTakeTheLargestRecordForALargePayloadLimit(@TempDir Path stateDir) throws Exception {
        AxConfig config = config("large", stateDir, Map.of(AxConfig.MAX_PAYLOAD_BYTES_CONFIG, 2 * 1024 * 1024));
        try (AxScheduler scheduler = AxScheduler.start(config).awaitRunning(Duration.ofMinutes(2)); Admin admin = admin()) {
            var resource = new org.apache.kafka.common.config.ConfigResource(
                    org.apache.kafka.common.config.ConfigResource.Type.TOPIC, "large.dispatch");
            String limit = admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS).get(resource)
                    .get(TopicConfig.MAX_MESSAGE_BYTES_CONFIG).value();
            assertThat(Integer.parseInt(limit)).isEqualTo(config.maxRecordBytes());
        }
    }

    private static Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()));
    }
}
