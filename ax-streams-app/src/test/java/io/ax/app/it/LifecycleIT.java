package io.ax.app.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.ax.AxHeaders;
import io.ax.AxTopics;
import io.ax.app.AxScheduler;
import io.ax.app.broker.EmbeddedKafkaBroker;
import io.ax.app.config.AxConfig;
import io.ax.client.AxClient;
import io.ax.codec.WireCodec;
import io.ax.schema.DeadLetter;
import io.ax.worker.AxWorker;
import io.ax.worker.Result;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Retries, dead letters and replay through a real worker on a real embedded broker. */
@Tag("integration")
class LifecycleIT {
    private static final Clock CLOCK = Clock.systemUTC();

    private static List<String> path(TopicRecorder state, String taskId) {
        return state.json(taskId).stream().map(e -> e.get("to").asText()).toList();
    }

    @Test
    void shouldRetryDeadLetterAndReplayThroughARealWorker(@TempDir Path stateDir) throws Exception {
        AtomicBoolean smtpUp = new AtomicBoolean(false);
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults())) {
            String bootstrap = broker.bootstrapServers();
            AxConfig config = new AxConfig(Map.of(AxConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                    AxConfig.APPLICATION_ID_CONFIG, "it-lifecycle", AxConfig.TOPIC_PARTITIONS_CONFIG, 2,
                    AxConfig.STATE_DIR_CONFIG, stateDir.toString()));
            AxTopics topics = config.topics();
            try (AxScheduler scheduler = AxScheduler.start(config).awaitRunning(Duration.ofMinutes(2));
                 AxWorker worker = AxWorker.builder().bootstrapServers(bootstrap).groupId("lifecycle-workers")
                         .handler("flaky", context -> context.attempt() < 3 ? Result.retryable("busy") : Result.success())
                         .handler("mail", context -> {
                             if (!smtpUp.get()) {
                                 throw new IllegalStateException("smtp down");
                             }
                             return Result.success();
                         })
                         .build();
                 AxClient client = AxClient.builder().bootstrapServers(bootstrap).build();
                 TopicRecorder state = new TopicRecorder(bootstrap, topics.state(), CLOCK);
                 TopicRecorder deadLetters = new TopicRecorder(bootstrap, topics.deadLetter(), CLOCK)) {
                worker.start();
                String misplaced = "misplaced-task";
                int wrongPartition = 1 - io.ax.app.internal.topology.KeyPartition.of(misplaced, 2);
                try (KafkaProducer<String, byte[]> raw = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
                        new StringSerializer(), new ByteArraySerializer())) {
                    raw.send(new ProducerRecord<>(topics.requests(), wrongPartition, misplaced,
                            "{\"jobType\":\"mail\",\"delayMs\":0}".getBytes(StandardCharsets.UTF_8))).get();
                }
                client.schedule("flaky-1").jobType("flaky").after(Duration.ZERO).backoff(Duration.ofMillis(200)).submit().get();
                client.schedule("mail-1").jobType("mail").after(Duration.ZERO).maxRetries(1)
                        .backoff(Duration.ofMillis(200)).submit().get();

                await().atMost(Duration.ofSeconds(30)).until(() -> path(state, "flaky-1").contains("SUCCESS"));
                assertThat(path(state, "flaky-1")).containsExactly("PENDING", "TRIGGERED", "RUNNING", "RETRY_WAITING",
                        "TRIGGERED", "RUNNING", "RETRY_WAITING", "TRIGGERED", "RUNNING", "SUCCESS");
                assertThat(state.json("flaky-1").stream().map(e -> e.path("executionId").asText()).distinct()).hasSize(1);

                await().atMost(Duration.ofSeconds(30)).until(() -> !deadLetters.seen().isEmpty());
                TopicRecorder.Seen dead = deadLetters.seen().get(0);
                DeadLetter letter = WireCodec.decodeBinary(dead.record().value(), DeadLetter.class);
                assertThat(letter.getErrors()).hasSize(2).allSatisfy(e -> assertThat(e.getMessage()).contains("smtp down"));
                assertThat(new String(dead.record().headers().lastHeader(AxHeaders.ERROR).value(), StandardCharsets.UTF_8))
                        .startsWith("retries exhausted after 2 attempt(s)");
                assertThat(path(state, "mail-1")).endsWith("FAILED");

                smtpUp.set(true);
                client.replay("mail-1", "smtp is back").get();
                await().atMost(Duration.ofSeconds(30)).until(() -> path(state, "mail-1").contains("SUCCESS"));
                List<String> executionIds = state.json("mail-1").stream().map(e -> e.path("executionId").asText())
                        .distinct().toList();
                assertThat(executionIds).as("the replay is a new execution").hasSize(2);

                assertThat(state.json(misplaced)).singleElement().satisfies(e -> {
                    assertThat(e.get("to").asText()).isEqualTo("REJECTED");
                    assertThat(e.get("reason").asText()).contains("belongs on partition " + (1 - wrongPartition))
                            .contains("kcat: -X partitioner=murmur2_random");
                });
            }
        }
    }
}
