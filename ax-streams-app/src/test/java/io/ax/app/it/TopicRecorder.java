package io.ax.app.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads a topic from the beginning as a {@code read_committed} consumer and keeps every record with the
 * wall-clock time it became visible here, for tests that measure when output appeared.
 */
final class TopicRecorder implements AutoCloseable {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    record Seen(ConsumerRecord<String, byte[]> record, long seenAtMs) {
    }

    private final KafkaConsumer<String, byte[]> consumer;
    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Thread thread;

    TopicRecorder(String bootstrap, String topic, Clock clock) {
        consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, "recorder-" + topic + "-" + System.nanoTime(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 10),
                new StringDeserializer(), new ByteArrayDeserializer());
        consumer.subscribe(List.of(topic));
        thread = new Thread(() -> {
            try {
                while (running.get()) {
                    for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(20))) {
                        seen.add(new Seen(record, clock.millis()));
                    }
                }
            } catch (WakeupException e) {
                // closing
            } finally {
                consumer.close(Duration.ofSeconds(5));
            }
        }, "recorder-" + topic);
        thread.start();
    }

    List<Seen> seen() {
        return List.copyOf(seen);
    }

    /** The values of the records keyed {@code key} seen so far, in order, read as JSON (the state topic's events of a task). */
    List<JsonNode> json(String key) {
        return seen.stream().filter(s -> key.equals(s.record().key())).map(s -> {
            try {
                return MAPPER.readTree(s.record().value());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }).toList();
    }

    @Override
    public void close() throws InterruptedException {
        running.set(false);
        consumer.wakeup();
        thread.join(10_000);
    }
}
