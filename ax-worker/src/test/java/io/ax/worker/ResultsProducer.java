package io.ax.worker;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A MockProducer that acknowledges at once, or, while the results topic is "down", fails every send to it as Kafka would
 * (the worker's announcements on the workers topic go through).
 */
final class ResultsProducer extends MockProducer<String, byte[]> {
    private final AtomicInteger failedSends = new AtomicInteger();
    private volatile boolean down;
    private volatile boolean workersTopicMissing;
    private final AtomicInteger workersSends = new AtomicInteger();

    ResultsProducer() {
        super(true, null, new StringSerializer(), new ByteArraySerializer());
    }

    @Override
    public synchronized Future<RecordMetadata> send(ProducerRecord<String, byte[]> record, Callback callback) {
        if (record.topic().equals(io.ax.AxTopics.defaults().workers())) {
            workersSends.incrementAndGet();
            if (workersTopicMissing) { // as KafkaProducer fails it after max.block.ms without the topic's metadata
                TimeoutException error = new TimeoutException("Topic " + record.topic() + " not present in metadata after 60000 ms.");
                callback.onCompletion(null, error);
                return CompletableFuture.failedFuture(error);
            }
        }
        if (!down || !record.topic().equals(io.ax.AxTopics.defaults().results())) { // announcements are not reports
            return super.send(record, callback);
        }
        failedSends.incrementAndGet();
        TimeoutException error = new TimeoutException("Expiring 1 record(s) for " + record.topic() + ": 120000 ms has passed");
        callback.onCompletion(null, error);
        return CompletableFuture.failedFuture(error);
    }

    void workersTopicMissing(boolean missing) {
        this.workersTopicMissing = missing;
    }

    int workersSends() {
        return workersSends.get();
    }

    void down(boolean down) {
        this.down = down;
    }

    int failedSends() {
        return failedSends.get();
    }
}
