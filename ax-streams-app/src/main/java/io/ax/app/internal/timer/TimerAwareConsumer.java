package io.ax.app.internal.timer;

import io.ax.app.internal.inputs.ConsumerView;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.utils.Time;

/**
 * Kafka Streams' main consumer, with one change: {@link #poll(Duration)} returns no later than the earliest
 * wake-up time the stream thread's processors published ({@link WakeUps}). Kafka Streams blocks in poll for
 * {@code poll.ms} when no records arrive and can punctuate only between polls; this lets a long
 * {@code poll.ms} keep an idle scheduler cheap while timers still fire at their tick. After each poll it also
 * tells the processors how far it has read each input ({@link ConsumerView}), so decisions follow the log.
 */
public final class TimerAwareConsumer extends KafkaConsumer<byte[], byte[]> {
    private final Time time;

    public TimerAwareConsumer(Map<String, Object> config, Time time) {
        super(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        this.time = time;
    }

    @Override
    public ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
        ConsumerRecords<byte[], byte[]> records = super.poll(boundedBy(timeout, WakeUps.earliest(), time.milliseconds()));
        ConsumerView.polled(assignment(), records, this::currentLag, time.milliseconds());
        return records;
    }

    /** {@code timeout}, cut short so the poll ends by {@code wakeAtMs} (never negative). */
    static Duration boundedBy(Duration timeout, long wakeAtMs, long nowMs) {
        long untilWakeMs = wakeAtMs - nowMs;
        return untilWakeMs < timeout.toMillis() ? Duration.ofMillis(Math.max(0, untilWakeMs)) : timeout;
    }
}
