package io.ax.app.internal.quarantine;

import io.ax.AxHeaders;
import io.ax.validation.Quote;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the records of {@code ax.quarantine}: what Kafka Streams' exception handlers hand back as dead-letter
 * records, committed in the same transaction as the partition's progress. Each is bounded: the input's key and
 * value are kept only when small enough to fit the topic, the error text is cut short.
 */
final class QuarantineRecords {
    /** Set in the Streams properties by the scheduler: the quarantine topic's name. */
    static final String TOPIC_CONFIG = "ax.quarantine.topic";
    private static final Logger log = LoggerFactory.getLogger(QuarantineRecords.class);
    private static final int MAX_KEY_BYTES = 1024;
    private static final int MAX_VALUE_BYTES = 512 * 1024;
    private static final int MAX_ERROR_CHARS = 1000;
    private static final AtomicLong QUARANTINED = new AtomicLong();

    private QuarantineRecords() {
    }

    /** How many records this JVM's schedulers have quarantined (a gauge for operators and tests). */
    static long count() {
        return QUARANTINED.get();
    }

    /** The quarantine record for an input that failed while processed (or a punctuation, with no input). */
    static List<ProducerRecord<byte[], byte[]>> ofInput(String topic, ErrorHandlerContext context, Exception error) {
        RecordHeaders headers = coordinates(context, error);
        byte[] key = fits(context.sourceRawKey(), MAX_KEY_BYTES);
        byte[] value = fits(context.sourceRawValue(), MAX_VALUE_BYTES);
        log.error("Quarantined input {}-{}@{} (stream task {}, node {}) to {}: {}", context.topic(), context.partition(),
                context.offset(), context.taskId(), context.processorNodeId(), topic, errorText(error), error);
        QUARANTINED.incrementAndGet();
        return List.of(new ProducerRecord<>(topic, null, key, value, headers));
    }

    /** The quarantine record for an output that could not be written: headers only, the output itself is the problem. */
    static List<ProducerRecord<byte[], byte[]>> ofOutput(String topic, ErrorHandlerContext context,
                                                         ProducerRecord<byte[], byte[]> output, Exception error) {
        RecordHeaders headers = coordinates(context, error);
        int bytes = (output.key() == null ? 0 : output.key().length) + (output.value() == null ? 0 : output.value().length);
        headers.add(AxHeaders.OUTPUT_TOPIC, utf8(output.topic()));
        headers.add(AxHeaders.OUTPUT_BYTES, utf8(Integer.toString(bytes)));
        log.error("Could not write a {}-byte record to {} while processing {}-{}@{} (stream task {}); quarantined to {}: {}",
                bytes, output.topic(), context.topic(), context.partition(), context.offset(), context.taskId(), topic,
                errorText(error));
        QUARANTINED.incrementAndGet();
        return List.of(new ProducerRecord<>(topic, null, fits(context.sourceRawKey(), MAX_KEY_BYTES), null, headers));
    }

    private static RecordHeaders coordinates(ErrorHandlerContext context, Exception error) {
        RecordHeaders headers = new RecordHeaders();
        if (context.topic() != null) {
            headers.add(AxHeaders.SOURCE_TOPIC, utf8(context.topic()));
            headers.add(AxHeaders.SOURCE_PARTITION, utf8(Integer.toString(context.partition())));
            headers.add(AxHeaders.SOURCE_OFFSET, utf8(Long.toString(context.offset())));
        }
        headers.add(AxHeaders.STREAM_TASK, utf8(String.valueOf(context.taskId())));
        headers.add(AxHeaders.ERROR, utf8(errorText(error)));
        return headers;
    }

    private static String errorText(Exception error) {
        return Quote.truncate(error.getClass().getName() + ": " + error.getMessage(), MAX_ERROR_CHARS);
    }

    private static byte[] fits(byte[] bytes, int maxBytes) {
        return bytes != null && bytes.length <= maxBytes ? bytes : null;
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
