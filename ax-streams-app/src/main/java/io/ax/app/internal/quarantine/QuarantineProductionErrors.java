package io.ax.app.internal.quarantine;

import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProductionExceptionHandler;

/**
 * Kafka Streams' production exception handler (KIP-1034) for the scheduler. Outputs are bounded by construction
 * ({@link io.ax.app.internal.setup.OutputBounds}) and the topics are checked at start, so an output the
 * broker refuses (too large, invalid) means something was missed: instead of failing the stream thread on every
 * retry of the same input, the output is dropped, a header-only record naming it goes to {@code ax.quarantine},
 * and an ERROR line says so. Retriable errors are retried, as Streams' default handler does.
 */
public final class QuarantineProductionErrors implements ProductionExceptionHandler {
    private String topic;

    @Override
    public void configure(Map<String, ?> configs) {
        topic = String.valueOf(configs.get(QuarantineRecords.TOPIC_CONFIG));
    }

    @Override
    public Response handleError(ErrorHandlerContext context, ProducerRecord<byte[], byte[]> record, Exception exception) {
        if (exception instanceof RetriableException) {
            return Response.retry();
        }
        return Response.resume(QuarantineRecords.ofOutput(topic, context, record, exception));
    }
}
