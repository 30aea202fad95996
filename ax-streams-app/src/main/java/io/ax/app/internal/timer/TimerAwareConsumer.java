package io.ax.app.internal.timer;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.utils.Time;

/**
 * Kafka Streams' main consumer, with ax's polls ({@link TimedPolls}): {@link #poll(Duration)} returns no later than the
 * earliest wake-up time the stream thread's processors published ({@link WakeUps}, found through {@link StreamThreads}). Kafka Streams blocks in poll for
 * {@code poll.ms} when no records arrive and can punctuate only between polls; this lets a long {@code poll.ms} keep
 * an idle scheduler cheap while timers still fire at their tick. While timers are due it asks the brokers the end
 * offsets of the inputs through an admin client of its own, and after each poll it tells the processors how far
 * each input is read ({@link ConsumerView}), so decisions follow the log.
 */
public final class TimerAwareConsumer extends KafkaConsumer<byte[], byte[]> {
    /** How long one end-offset request may take before another may be sent, ms. */
    private static final int PROBE_TIMEOUT_MS = 5_000;

    private final TimedPolls polls;

    /**
     * @param tickMs     the wheel's tick: the least time between two end-offset requests and the longest wait for one
     * @param clockSteps the instance's wall-clock step detector, checked at each poll (null: not checked)
     * @param threads    where the stream thread that polls finds its wake-ups and consumer view
     */
    public TimerAwareConsumer(Map<String, Object> config, Time time, long tickMs, ClockSteps clockSteps, StreamThreads threads) {
        super(withoutRegistry(config), new ByteArrayDeserializer(), new ByteArrayDeserializer());
        this.polls = new TimedPolls(time, EndOffsetProbe.of(Admin.create(adminConfig(config, tickMs)), readCommitted(config), tickMs,
                PROBE_TIMEOUT_MS), tickMs, clockSteps, threads);
    }

    @Override
    public ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
        return polls.poll(timeout, super::poll, partition -> TimedPolls.localPosition(this, partition));
    }

    @Override
    public void close(org.apache.kafka.clients.consumer.CloseOptions option) {
        try {
            polls.close();
        } finally {
            super.close(option);
        }
    }

    @Override
    @SuppressWarnings("deprecation")
    public void close(Duration timeout) {
        try {
            polls.close();
        } finally {
            super.close(timeout);
        }
    }

    @Override
    public void close() {
        try {
            polls.close();
        } finally {
            super.close();
        }
    }

    /** The configuration without the registry handed to reflectively built consumers ({@link StreamThreads#CONFIG}). */
    private static Map<String, Object> withoutRegistry(Map<String, Object> config) {
        if (!config.containsKey(StreamThreads.CONFIG)) {
            return config;
        }
        Map<String, Object> copy = new HashMap<>(config);
        copy.remove(StreamThreads.CONFIG);
        return copy;
    }

    static boolean readCommitted(Map<String, Object> config) {
        Object level = config.get(ConsumerConfig.ISOLATION_LEVEL_CONFIG);
        return level != null && "read_committed".equalsIgnoreCase(level.toString());
    }

    /**
     * The consumer's connection settings (bootstrap, security), for the admin client that asks end offsets, which retries
     * after {@code tickMs} (doubling up to its default maximum) instead of the default 100 ms: the admin client sends the
     * partitions whose leader it has cached at once and the others after a metadata lookup, and it holds a second request to
     * the same broker for the retry backoff after the first one's answer, so each time the stream tasks watched new partitions
     * (at start, after a rebalance) the end offsets came 100 ms late, and with them the first fires.
     */
    static Map<String, Object> adminConfig(Map<String, Object> config, long tickMs) {
        Map<String, Object> admin = new HashMap<>();
        config.forEach((key, value) -> {
            if (AdminClientConfig.configNames().contains(key) && !key.equals(AdminClientConfig.CLIENT_ID_CONFIG)) {
                admin.put(key, value);
            }
        });
        admin.put(AdminClientConfig.CLIENT_ID_CONFIG, config.getOrDefault(ConsumerConfig.CLIENT_ID_CONFIG, "ax") + "-end-offsets");
        admin.put(AdminClientConfig.RETRY_BACKOFF_MS_CONFIG, tickMs);
        return admin;
    }
}
