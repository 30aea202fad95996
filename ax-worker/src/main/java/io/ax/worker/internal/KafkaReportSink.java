package io.ax.worker.internal;

import io.ax.codec.WireCodec;
import io.ax.schema.ExecutionReport;
import java.util.function.Consumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Sends reports to the results topic with the worker's producer. Thread-safe, as the producer is. */
public final class KafkaReportSink implements ReportSink {
    private final Producer<String, byte[]> producer;
    private final String topic;

    public KafkaReportSink(Producer<String, byte[]> producer, String topic) {
        this.producer = producer;
        this.topic = topic;
    }

    @Override
    public void send(String taskId, ExecutionReport report, Consumer<Exception> onAck) {
        ProducerRecord<String, byte[]> record =
                new ProducerRecord<>(topic, null, report.getReportedAtMs(), taskId, WireCodec.encode(report));
        try {
            producer.send(record, (metadata, error) -> onAck.accept(error));
        } catch (RuntimeException e) {
            // send() throws for some failures (closed producer, serialization) instead of failing the callback.
            onAck.accept(e);
        }
    }
}
