package io.ax.worker.internal;

import static io.ax.worker.internal.Dispatches.record;
import static io.ax.worker.internal.Dispatches.task;
import static org.assertj.core.api.Assertions.assertThat;

import io.ax.AxTopics;
import io.ax.codec.WireCodec;
import io.ax.schema.ExecutionReport;
import io.ax.schema.ReportStatus;
import io.ax.worker.JobHandler;
import io.ax.worker.Result;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class DispatchLoopTest {
    private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");
    private static final TopicPartition P0 = new TopicPartition(Dispatches.TOPIC, 0);
    private static final TopicPartition P1 = new TopicPartition(Dispatches.TOPIC, 1);

    private final SettableClock clock = new SettableClock(NOW);
    private final MockConsumer<String, byte[]> consumer = new MockConsumer<>("earliest");
    private final MockProducer<String, byte[]> producer =
            new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer());
    private final ExecutorService handlerThreads = Executors.newFixedThreadPool(2);
    private final JobHandler email = context -> Result.success();

    @BeforeEach
    void assignPartitions() {
        consumer.assign(List.of(P0, P1));
        consumer.updateBeginningOffsets(Map.of(P0, 0L, P1, 0L));
    }

    @AfterEach
    void stopThreads() {
        handlerThreads.shutdownNow();
    }

    @Test
    void shouldCommitBatchAfterEveryReportIsSent() throws Exception {
        loop(Sleeper.THREAD).processBatch(batch(
                record(task("a", "email", NOW), 0, 0), record(task("b", "email", NOW), 0, 1),
                record(task("c", "email", NOW), 1, 5)));

        assertThat(reports()).extracting(ExecutionReport::getStatus).containsOnly(ReportStatus.STARTED, ReportStatus.SUCCEEDED)
                .hasSize(6);
        assertThat(producer.history()).extracting(ProducerRecord::topic).containsOnly("ax.results");
        assertThat(consumer.committed(Set.of(P0, P1))).containsEntry(P0, new OffsetAndMetadata(2))
                .containsEntry(P1, new OffsetAndMetadata(6));
    }

    @Test
    void shouldCommitPastRecordsThatCannotBeDecodedOrAreSkipped() throws Exception {
        loop(Sleeper.THREAD).processBatch(batch(
                Dispatches.withoutHeaders("bad", new byte[] {1}, 0, 0), record(task("b", "sms", NOW), 0, 1)));

        assertThat(reports()).isEmpty();
        assertThat(consumer.committed(Set.of(P0))).containsEntry(P0, new OffsetAndMetadata(2));
    }

    @Test
    void shouldNeitherCommitNorMoveOnWhenReportsAreNotAcknowledged() throws Exception {
        consumer.seek(P0, 3);
        producer.sendException = new KafkaException("broker gone");

        loop(Sleeper.THREAD).processBatch(batch(record(task("a", "email", NOW), 0, 3), record(task("b", "email", NOW), 0, 4)));

        assertThat(consumer.committed(Set.of(P0))).doesNotContainKey(P0);
        assertThat(consumer.position(P0)).as("rewound: redelivered, never lost").isEqualTo(3);
    }

    @Test
    void shouldCommitUpToAndRewindToRecordInterruptedBeforeItsDueTime() throws Exception {
        Sleeper interrupted = duration -> {
            throw new InterruptedException("closing");
        };

        loop(interrupted).processBatch(batch(record(task("a", "email", NOW), 0, 0),
                record(task("later", "email", NOW.plusSeconds(1)), 0, 1), record(task("c", "email", NOW), 0, 2)));

        assertThat(consumer.committed(Set.of(P0))).containsEntry(P0, new OffsetAndMetadata(1));
        assertThat(consumer.position(P0)).isEqualTo(1);
        assertThat(reports()).extracting(ExecutionReport::getExecutionId).doesNotContain("exec-later");
    }

    @Test
    void shouldCloseClientsAndHandlerThreads() {
        loop(Sleeper.THREAD).closeClients();

        assertThat(consumer.closed()).isTrue();
        assertThat(producer.closed()).isTrue();
        assertThat(handlerThreads.isShutdown()).isTrue();
    }

    private DispatchLoop loop(Sleeper sleeper) {
        DispatchRunner runner = new DispatchRunner(Map.of("email", email), new Reports("worker-1", clock), clock, sleeper);
        return new DispatchLoop(consumer, producer, runner, handlerThreads, AxTopics.defaults(), Duration.ofMillis(10));
    }

    @SafeVarargs
    private static ConsumerRecords<String, byte[]> batch(ConsumerRecord<String, byte[]>... records) {
        Map<TopicPartition, List<ConsumerRecord<String, byte[]>>> byPartition = new HashMap<>();
        for (ConsumerRecord<String, byte[]> record : records) {
            byPartition.computeIfAbsent(new TopicPartition(record.topic(), record.partition()), p -> new ArrayList<>())
                    .add(record);
        }
        return new ConsumerRecords<>(byPartition, Map.of());
    }

    private List<ExecutionReport> reports() {
        return producer.history().stream().map(r -> WireCodec.decodeReport(r.value())).toList();
    }
}
