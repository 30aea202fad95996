package io.ax.app.internal.migrate;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The command's one transactional producer. Records go out in transactions of a bounded size, and each transaction
 * also commits, for the progress group, how far each source partition has been copied: a record is copied and its
 * source marked done atomically, so a run that dies half-way is resumed by the next one without a duplicate. The
 * transactional id is fixed per target, so a second run started against the same target fences the first.
 * Not thread-safe.
 */
final class MigrationWriter implements AutoCloseable {
    /** Records per transaction: bounds a transaction's size and time, whatever the number of tasks. */
    static final int RECORDS_PER_TRANSACTION = 5_000;

    private final KafkaProducer<byte[], byte[]> producer;
    private final ConsumerGroupMetadata progressGroup;
    private final Map<TopicPartition, OffsetAndMetadata> progress = new HashMap<>();
    private boolean open;
    private int records;

    MigrationWriter(Map<String, Object> clientProps, MigrationSettings settings) {
        Map<String, Object> props = new HashMap<>(clientProps);
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, settings.transactionalId());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        props.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Math.max(settings.maxRecordBytes() + 1024, 1_048_576));
        producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
        producer.initTransactions();
        progressGroup = new ConsumerGroupMetadata(settings.progressGroup());
    }

    void send(ProducerRecord<byte[], byte[]> record) {
        maybeBegin();
        producer.send(record);
        records++;
    }

    /** Marks {@code source} copied up to (not including) {@code nextOffset}; commits when the transaction is full. */
    void copied(TopicPartition source, long nextOffset) {
        maybeBegin();
        progress.put(source, new OffsetAndMetadata(nextOffset));
        if (records >= RECORDS_PER_TRANSACTION) {
            commit();
        }
    }

    /** Commits what was sent and the progress with it (a send that failed fails the commit). */
    void commit() {
        if (!open) {
            return;
        }
        try {
            if (!progress.isEmpty()) {
                producer.sendOffsetsToTransaction(progress, progressGroup);
            }
            producer.commitTransaction();
        } catch (RuntimeException e) {
            abortQuietly();
            throw e;
        } finally {
            open = false;
            records = 0;
            progress.clear();
        }
    }

    private void maybeBegin() {
        if (!open) {
            producer.beginTransaction();
            open = true;
        }
    }

    private void abortQuietly() {
        try {
            producer.abortTransaction();
        } catch (RuntimeException ignored) {
            // fenced or broken: closing the producer is all that is left
        }
    }

    @Override
    public void close() {
        if (open) {
            abortQuietly();
        }
        producer.close();
    }
}
