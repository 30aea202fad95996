package io.ax.app.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ax.AxHeaders;
import io.ax.AxTopics;
import io.ax.app.AxScheduler;
import io.ax.app.broker.EmbeddedKafkaBroker;
import io.ax.app.config.AxConfig;
import io.ax.client.AxClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Guarantee 7 on a real broker: the scheduler is stopped, a report and a cancel are acknowledged by Kafka
 * before the deadline and the due time they answer, behind 20,000 other inputs each, and the scheduler starts
 * again only after both times have passed. It must read its backlog before deciding: the execution SUCCEEDS
 * (no TIMED_OUT), the cancelled task never fires.
 */
@Tag("integration")
class DecisionsFollowTheLogIT {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Clock CLOCK = Clock.systemUTC();
    private static final int BACKLOG = 20_000;
    private static final long TIMEOUT_MS = 10_000;
    private static EmbeddedKafkaBroker broker;

    @BeforeAll
    static void startBroker() {
        broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults());
    }

    @AfterAll
    static void stopBroker() {
        broker.close();
    }

    @Test
    void shouldLetAReportAndACancelAcknowledgedInTimeWinAfterARestartBehindABacklog(@TempDir Path stateDir) throws Exception {
        AxConfig config = new AxConfig(Map.of(
                AxConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                AxConfig.APPLICATION_ID_CONFIG, "it-log",
                AxConfig.TOPIC_PREFIX_CONFIG, "log.",
                AxConfig.TOPIC_PARTITIONS_CONFIG, 1,
                AxConfig.STATE_DIR_CONFIG, stateDir.toString()));
        AxTopics topics = config.topics();
        try (AxClient client = AxClient.builder().bootstrapServers(broker.bootstrapServers()).topics(topics).build();
             TopicRecorder dispatch = new TopicRecorder(broker.bootstrapServers(), topics.dispatch(), CLOCK);
             TopicRecorder state = new TopicRecorder(broker.bootstrapServers(), topics.state(), CLOCK);
             KafkaProducer<String, String> producer = producer()) {
            String executionId;
            long deadlineMs;
            long cancelledDueMs;
            try (AxScheduler first = AxScheduler.start(config).awaitRunning(Duration.ofMinutes(2))) {
                client.schedule("answered").jobType("j").after(Duration.ZERO).timeout(Duration.ofMillis(TIMEOUT_MS))
                        .maxRetries(0).submit().join();
                await().atMost(Duration.ofSeconds(30)).until(() -> !runDispatches(dispatch, "answered").isEmpty());
                TopicRecorder.Seen run = runDispatches(dispatch, "answered").get(0);
                executionId = header(run, AxHeaders.EXECUTION_ID);
                deadlineMs = run.record().timestamp() + TIMEOUT_MS;
                cancelledDueMs = CLOCK.millis() + TIMEOUT_MS;
                client.schedule("cancelled").jobType("j").at(java.time.Instant.ofEpochMilli(cancelledDueMs)).submit().join();
                await().atMost(Duration.ofSeconds(30)).until(() -> events(state, "cancelled").contains("PENDING"));
            }
            for (int i = 0; i < BACKLOG; i++) {
                producer.send(new ProducerRecord<>(topics.results(), "junk-" + i,
                        "{\"executionId\":\"x\",\"attempt\":1,\"status\":\"HEARTBEAT\"}"));
                producer.send(new ProducerRecord<>(topics.requests(), "junk-" + i, "{\"cancel\":true}"));
            }
            RecordMetadata report = producer.send(new ProducerRecord<>(topics.results(), "answered",
                    "{\"executionId\":\"" + executionId + "\",\"attempt\":1,\"status\":\"SUCCEEDED\"}")).get();
            RecordMetadata cancel = producer.send(new ProducerRecord<>(topics.requests(), "cancelled", "{\"cancel\":true}")).get();
            long ackedAtMs = CLOCK.millis();
            assertThat(ackedAtMs).as("the report is acknowledged before the deadline (the premise)").isLessThan(deadlineMs);
            assertThat(ackedAtMs).as("the cancel is acknowledged before the due time (the premise)").isLessThan(cancelledDueMs);
            assertThat(report.offset()).isGreaterThanOrEqualTo(BACKLOG);
            assertThat(cancel.offset()).isGreaterThanOrEqualTo(BACKLOG);

            long restartAfterMs = Math.max(deadlineMs, cancelledDueMs) + 1_000;
            await().atMost(Duration.ofSeconds(60)).until(() -> CLOCK.millis() > restartAfterMs);
            try (AxScheduler second = AxScheduler.start(config).awaitRunning(Duration.ofMinutes(2))) {
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() ->
                        events(state, "answered").contains("SUCCESS") && events(state, "cancelled").contains("CANCELLED"));
                assertThat(events(state, "answered")).containsExactly("PENDING", "TRIGGERED", "SUCCESS");
                assertThat(events(state, "cancelled")).containsExactly("PENDING", "CANCELLED");
                assertThat(runDispatches(dispatch, "cancelled")).isEmpty();
            }
        }
    }

    private static KafkaProducer<String, String> producer() {
        return new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.LINGER_MS_CONFIG, 5),
                new StringSerializer(), new StringSerializer());
    }

    private static List<TopicRecorder.Seen> runDispatches(TopicRecorder dispatch, String taskId) {
        return dispatch.seen().stream().filter(s -> s.record().key().equals(taskId))
                .filter(s -> header(s, AxHeaders.KIND).equals("RUN")).toList();
    }

    /** The "to" of each state event of {@code taskId}, in order. */
    private static List<String> events(TopicRecorder state, String taskId) {
        return state.seen().stream().filter(s -> taskId.equals(s.record().key()))
                .map(s -> json(s.record().value()).path("to").asText()).toList();
    }

    private static JsonNode json(byte[] value) {
        try {
            return MAPPER.readTree(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String header(TopicRecorder.Seen seen, String name) {
        return new String(seen.record().headers().lastHeader(name).value(), StandardCharsets.UTF_8);
    }
}
