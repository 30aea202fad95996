package io.ax.app.bench;

import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads every partition of a topic from its end at construction as a {@code read_committed} consumer on its own
 * thread and hands each polled batch to {@link #onBatch} with the wall-clock time it became visible here. No
 * consumer group (partitions are assigned directly), so reading starts at once, without a rebalance. Trackers are
 * constructed before their tasks are submitted, so nothing of theirs is before that end, and earlier rounds of
 * a scenario (warm-up, calibration) are not read again.
 *
 * <p>Subclasses keep compact per-task bookkeeping; {@link #onBatch} runs on the tail's thread only.
 */
abstract class TopicTail implements AutoCloseable {
    private final KafkaConsumer<String, byte[]> consumer;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Thread thread;
    private volatile Throwable failure;

    /** @param kafka the connection settings ({@link BenchContext#kafka()}) */
    TopicTail(Map<String, Object> kafka, String topic, Clock clock) {
        Map<String, Object> config = new HashMap<>(kafka);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 10);
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
        consumer = new KafkaConsumer<>(config, new StringDeserializer(), new ByteArrayDeserializer());
        List<PartitionInfo> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30));
        if (partitions == null || partitions.isEmpty()) {
            consumer.close();
            throw new IllegalStateException("topic " + topic + " does not exist");
        }
        List<TopicPartition> assigned = partitions.stream().map(p -> new TopicPartition(topic, p.partition())).toList();
        consumer.assign(assigned);
        consumer.seekToEnd(assigned);
        assigned.forEach(consumer::position); // resolve the end now, not at the first poll after tasks were sent
        thread = new Thread(() -> loop(clock), "bench-tail-" + topic);
        thread.setDaemon(true);
    }

    /** Starts reading; call once, after the subclass is constructed. */
    final void start() {
        thread.start();
    }

    /** Called on the tail's thread with each non-empty batch and when it was read (ms, bench clock). */
    abstract void onBatch(ConsumerRecords<String, byte[]> records, long seenAtMs);

    /** Throws if the tail's thread failed, so a broken measurement is not reported as a result. */
    final void checkHealthy() {
        if (failure != null) {
            throw new IllegalStateException("reading failed: " + failure, failure);
        }
    }

    private void loop(Clock clock) {
        try {
            while (running.get()) {
                ConsumerRecords<String, byte[]> records = consumer.poll(Duration.ofMillis(50));
                if (!records.isEmpty()) {
                    onBatch(records, clock.millis());
                }
            }
        } catch (WakeupException e) {
            // closing
        } catch (RuntimeException | Error e) {
            failure = e;
        } finally {
            consumer.close(Duration.ofSeconds(5));
        }
    }

    @Override
    public void close() throws InterruptedException {
        running.set(false);
        consumer.wakeup();
        thread.join(10_000);
    }
}
