package io.ax.app.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ax.AxTopics;
import io.ax.app.AxScheduler;
import io.ax.app.config.AxConfig;
import io.ax.client.AxClient;
import io.ax.codec.WireCodec;
import io.ax.schema.DispatchTask;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.io.TempDir;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The scheduler against Kafka in a container (the official {@code apache/kafka} image of the Kafka version ax is built
 * with) rather than the embedded broker: a task scheduled with the client fires on {@code ax.dispatch} at its due
 * time. Runs wherever Testcontainers finds a Docker engine. The machines ax is developed on and its CI have none, so
 * it has never run there: it is reported skipped with that reason ({@link DockerEngine#ABSENT}).
 */
@Tag("integration")
@EnabledIf(value = "io.ax.app.deploy.DockerEngine#available", disabledReason = DockerEngine.ABSENT)
@Testcontainers
class KafkaContainerIT {
    @Container
    static final KafkaContainer KAFKA = new KafkaContainer(DockerImageName.parse("apache/kafka:" + KafkaVersion.current()));

    @Test
    void shouldFireAScheduledTaskOnDispatch(@TempDir Path stateDir) {
        AxConfig config = new AxConfig(Map.of(
                AxConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.getBootstrapServers(),
                AxConfig.APPLICATION_ID_CONFIG, "container-it",
                AxConfig.TOPIC_PREFIX_CONFIG, "container-it.",
                AxConfig.TOPIC_PARTITIONS_CONFIG, 3,
                AxConfig.STATE_DIR_CONFIG, stateDir.toString()));
        AxTopics topics = config.topics();
        try (AxScheduler scheduler = AxScheduler.start(config).awaitRunning(Duration.ofMinutes(2));
             AxClient client = AxClient.builder().bootstrapServers(KAFKA.getBootstrapServers()).topics(topics).build();
             KafkaConsumer<String, byte[]> dispatch = dispatchConsumer(topics)) {
            Instant due = Instant.now().plusSeconds(2);
            client.schedule("container-task").jobType("noop").at(due).submit().join();

            List<ConsumerRecord<String, byte[]>> seen = new ArrayList<>();
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ZERO).until(() -> {
                dispatch.poll(Duration.ofMillis(200)).forEach(seen::add);
                return seen.stream().anyMatch(r -> r.key().equals("container-task"));
            });

            ConsumerRecord<String, byte[]> fired = seen.stream().filter(r -> r.key().equals("container-task")).findFirst().orElseThrow();
            DispatchTask task = WireCodec.decodeBinary(fired.value(), DispatchTask.class);
            assertThat(task.getDueAtMs()).isEqualTo(due.toEpochMilli());
            assertThat(task.getFiredAtMs()).as("fired not before due").isGreaterThanOrEqualTo(due.toEpochMilli());
        }
    }

    /** A read_committed consumer of ax.dispatch from its beginning (the scheduler writes under exactly-once). */
    private static KafkaConsumer<String, byte[]> dispatchConsumer(AxTopics topics) {
        KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.getBootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "container-it-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
                new StringDeserializer(), new ByteArrayDeserializer());
        consumer.subscribe(List.of(topics.dispatch()));
        return consumer;
    }
}
