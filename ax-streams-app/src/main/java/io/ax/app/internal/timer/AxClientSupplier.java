package io.ax.app.internal.timer;

import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.streams.KafkaClientSupplier;

/** Kafka Streams' clients as Streams makes them, but the main consumer is a {@link TimerAwareConsumer}. */
public final class AxClientSupplier implements KafkaClientSupplier {
    private final long tickMs;
    private final ClockSteps clockSteps;
    private final StreamThreads threads;

    /**
     * @param tickMs     the wheel's tick ({@code ax.wheel.tick.ms})
     * @param clockSteps the instance's wall-clock step detector, which every main consumer checks at each poll
     * @param threads    the instance's registry, where each stream thread's consumer meets that thread's processors
     */
    public AxClientSupplier(long tickMs, ClockSteps clockSteps, StreamThreads threads) {
        this.tickMs = tickMs;
        this.clockSteps = clockSteps;
        this.threads = threads;
    }

    @Override
    public Admin getAdmin(Map<String, Object> config) {
        return Admin.create(config);
    }

    @Override
    public Producer<byte[], byte[]> getProducer(Map<String, Object> config) {
        return new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
    }

    @Override
    public Consumer<byte[], byte[]> getConsumer(Map<String, Object> config) {
        return new TimerAwareConsumer(config, Time.SYSTEM, tickMs, clockSteps, threads);
    }

    @Override
    public Consumer<byte[], byte[]> getRestoreConsumer(Map<String, Object> config) {
        return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    @Override
    public Consumer<byte[], byte[]> getGlobalConsumer(Map<String, Object> config) {
        return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }
}
