package io.ax.app.internal.quarantine;

import java.util.Map;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Kafka Streams' processing exception handler (KIP-1033) for the scheduler: an exception that escapes the
 * processor or a punctuation despite input validation (a bug, or an input nobody thought of) does not kill the
 * stream thread. The input goes to {@code ax.quarantine} with its coordinates and the error, the partition moves
 * on, an ERROR line says so, and Streams counts it in its {@code dropped-records} metric.
 *
 * <p>What the failed step changed before it threw stays changed (a store write, an output): the step is not
 * rolled back. Validation is the real defence; this handler keeps one overlooked record from stopping a
 * partition for good.
 */
public final class QuarantineProcessingErrors implements ProcessingExceptionHandler {
    private String topic;

    @Override
    public void configure(Map<String, ?> configs) {
        topic = String.valueOf(configs.get(QuarantineRecords.TOPIC_CONFIG));
    }

    @Override
    public Response handleError(ErrorHandlerContext context, Record<?, ?> record, Exception exception) {
        return Response.resume(QuarantineRecords.ofInput(topic, context, exception));
    }
}
