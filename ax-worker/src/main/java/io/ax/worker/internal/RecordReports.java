package io.ax.worker.internal;

import io.ax.codec.WireCodec;
import io.ax.schema.ExecutionReport;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reports of one dispatch record, sent to the results topic; remembers each send so the loop can wait
 * for all of them to be acknowledged before it commits the record's offset.
 */
public final class RecordReports implements ReportSink {
    private static final Logger log = LoggerFactory.getLogger(RecordReports.class);

    private final Producer<String, byte[]> producer;
    private final String topic;
    private final List<Future<RecordMetadata>> sent = new CopyOnWriteArrayList<>();

    public RecordReports(Producer<String, byte[]> producer, String topic) {
        this.producer = producer;
        this.topic = topic;
    }

    @Override
    public void send(String taskId, ExecutionReport report) {
        ProducerRecord<String, byte[]> record =
                new ProducerRecord<>(topic, null, report.getReportedAtMs(), taskId, WireCodec.encode(report));
        try {
            sent.add(producer.send(record));
        } catch (RuntimeException e) {
            // send() throws for some failures instead of failing the future; the loop treats both alike.
            sent.add(CompletableFuture.failedFuture(e));
        }
    }

    /**
     * Waits until every report is acknowledged (bounded by the producer's {@code delivery.timeout.ms}).
     *
     * @return false if any failed: the record must not be committed
     */
    public boolean awaitAcknowledged(String taskId) throws InterruptedException {
        for (Future<RecordMetadata> report : sent) {
            try {
                report.get();
            } catch (ExecutionException e) {
                log.error("A report for taskId={} was not acknowledged; its dispatch will be redelivered", taskId, e.getCause());
                return false;
            }
        }
        return true;
    }
}
