package io.ax.app.fuzz;

import io.ax.AxTopics;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads every output topic of one scheduler (state, dispatch, retry, dead-letter, and the quarantine topic once it
 * exists) from the beginning as a {@code read_committed} consumer, and hands each record to a sink on its own thread.
 * ax.retry is an input too: the records the fuzz run wrote there carry {@link #INPUT_HEADER} and are left out.
 */
final class OutputRecorder implements AutoCloseable {
    /** Marks a record the fuzz run produced (the scheduler writes its outputs with headers of its own). */
    static final String INPUT_HEADER = "fuzz-input";

    private static final Logger log = LoggerFactory.getLogger(OutputRecorder.class);

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Thread thread;

    OutputRecorder(String bootstrap, AxTopics topics, Consumer<Output> sink) {
        consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, "fuzz-recorder-" + topics.prefix() + System.nanoTime(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 10,
                // a quarantine topic created after the start is found within a second
                ConsumerConfig.METADATA_MAX_AGE_CONFIG, 1_000),
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
        consumer.subscribe(Pattern.compile(Pattern.quote(topics.prefix())
                + "(state|dispatch|retry|dead-letter|" + Pattern.quote(Quarantine.TOPIC_SUFFIX) + ")"));
        thread = new Thread(() -> {
            try {
                while (running.get()) {
                    for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(50))) {
                        if (record.headers().lastHeader(INPUT_HEADER) != null) {
                            continue;
                        }
                        sink.accept(new Output(record.topic(), record.key(), record.value(), record.headers(), record.timestamp()));
                    }
                }
            } catch (WakeupException e) {
                // closing
            } catch (RuntimeException e) {
                log.error("fuzz output recorder stopped", e);
            } finally {
                consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
            }
        }, "fuzz-recorder-" + topics.prefix());
        thread.start();
    }

    @Override
    public void close() {
        running.set(false);
        consumer.wakeup();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
