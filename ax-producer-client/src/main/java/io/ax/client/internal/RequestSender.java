package io.ax.client.internal;

import io.ax.codec.WireCodec;
import java.time.Clock;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Sends one request record (key = taskId, value = single-object Avro, or the schema-registry wire format) to the requests topic and turns the
 * producer's callback into a {@link CompletableFuture}.
 *
 * <p>The record timestamp is taken from the client's clock, not left to the producer: the scheduler counts
 * a {@code DelayTrigger} and a start-less {@code IntervalTrigger} from it. (A topic configured with
 * {@code message.timestamp.type=LogAppendTime} replaces it with the broker's time.)
 *
 * <p>Thread-safe, as the producer is. The future completes on the producer's I/O thread: dependent stages
 * that do slow work should use the {@code ...Async} variants.
 */
public final class RequestSender {
    private final Producer<String, byte[]> producer;
    private final String topic;
    private final Clock clock;
    private final Function<SpecificRecord, byte[]> encoder;

    public RequestSender(Producer<String, byte[]> producer, String topic, Clock clock) {
        this(producer, topic, clock, WireCodec::encode);
    }

    /** @param encoder the value of a request: single-object ({@link WireCodec#encode}) or the registry wire format */
    public RequestSender(Producer<String, byte[]> producer, String topic, Clock clock, Function<SpecificRecord, byte[]> encoder) {
        this.encoder = Objects.requireNonNull(encoder, "encoder");
        this.producer = Objects.requireNonNull(producer, "producer");
        this.topic = Objects.requireNonNull(topic, "topic");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** The client's clock reading that would stamp a record sent now, epoch milliseconds. */
    public long nowMs() {
        return clock.millis();
    }

    /** Completes with the record's metadata once Kafka acknowledged it, or exceptionally if sending failed. */
    public CompletableFuture<RecordMetadata> send(String taskId, SpecificRecord request) {
        CompletableFuture<RecordMetadata> acknowledged = new CompletableFuture<>();
        try {
            // Inside the try: the registry encoder may fail (registry down at the first request of a kind).
            ProducerRecord<String, byte[]> record =
                    new ProducerRecord<>(topic, null, clock.millis(), taskId, encoder.apply(request));
            producer.send(record, (metadata, error) -> {
                if (error != null) {
                    acknowledged.completeExceptionally(error);
                } else {
                    acknowledged.complete(metadata);
                }
            });
        } catch (RuntimeException e) {
            // send() throws for some failures (closed producer, metadata timeout) instead of calling back.
            acknowledged.completeExceptionally(e);
        }
        return acknowledged;
    }
}
