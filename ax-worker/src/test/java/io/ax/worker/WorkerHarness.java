package io.ax.worker;

import static org.awaitility.Awaitility.await;

import io.ax.codec.WireCodec;
import io.ax.schema.ExecutionReport;
import io.ax.schema.ReportStatus;
import io.ax.worker.internal.Dispatches;
import io.ax.worker.internal.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * One worker on a {@link RecordingConsumer} and a {@link ResultsProducer}, on a clock that only the test moves, so
 * backoffs and due times are driven rather than waited for. Close it after each test.
 */
final class WorkerHarness implements AutoCloseable {
    static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");
    static final Duration DEADLINE = Duration.ofSeconds(10);

    final RecordingConsumer consumer = new RecordingConsumer();
    final ResultsProducer producer = new ResultsProducer();
    final SettableClock clock = new SettableClock(NOW);
    AxWorker worker;

    static TopicPartition partition(int partition) {
        return new TopicPartition(Dispatches.TOPIC, partition);
    }

    static ConsumerRecord<String, byte[]> run(String taskId, String jobType, int partition, long offset) {
        return Dispatches.record(Dispatches.task(taskId, jobType, NOW), partition, offset);
    }

    /** Starts a worker that is assigned {@code partitions} and finds {@code records} on its first poll. */
    AxWorker start(List<TopicPartition> partitions, UnaryOperator<AxWorker.Builder> configure,
                   List<ConsumerRecord<String, byte[]>> records) {
        consumer.schedulePollTask(() -> {
            consumer.rebalance(partitions);
            Map<TopicPartition, Long> beginning = new HashMap<>();
            partitions.forEach(p -> beginning.put(p, 0L));
            consumer.updateBeginningOffsets(beginning);
            records.forEach(consumer::addRecord);
        });
        worker = configure.apply(AxWorker.builder().workerId("w1").clock(clock).clients(consumer, producer)).build();
        worker.start();
        return worker;
    }

    /** Returns once the loop has polled {@code polls} more times: whatever it would do unprompted, it has done. */
    void awaitPolls(int polls) {
        int target = consumer.polls() + polls;
        await().atMost(DEADLINE).until(() -> consumer.polls() >= target);
    }

    /** The acknowledged reports, in order. */
    List<ExecutionReport> reports(ReportStatus status) {
        return producer.history().stream().filter(r -> r.topic().equals(io.ax.AxTopics.defaults().results())).map(r -> WireCodec.decodeReport(r.value()))
                .filter(r -> r.getStatus() == status).toList();
    }

    @Override
    public void close() {
        if (worker != null) {
            worker.close(Duration.ofSeconds(5));
        }
    }
}
