package io.ax.app.internal.migrate;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/** Reads a range of one partition with a {@code read_committed} consumer of the command's own (no group). */
final class TopicCopy {
    private static final Duration POLL = Duration.ofMillis(500);

    private TopicCopy() {
    }

    /** Hands every record of {@code tp} in [{@code fromOffset}, {@code toOffset}) to {@code each}, in offset order. */
    static void read(KafkaConsumer<byte[], byte[]> consumer, TopicPartition tp, long fromOffset, long toOffset,
                     Consumer<ConsumerRecord<byte[], byte[]>> each) {
        if (fromOffset >= toOffset) {
            return;
        }
        consumer.assign(List.of(tp));
        consumer.seek(tp, fromOffset);
        // Under read_committed the position steps over transaction markers and aborted records; the end offsets were
        // read under read_committed too, so the position reaches them.
        while (consumer.position(tp) < toOffset) {
            for (ConsumerRecord<byte[], byte[]> record : consumer.poll(POLL).records(tp)) {
                if (record.offset() >= toOffset) {
                    break;
                }
                each.accept(record);
            }
        }
    }

    /** Whether [{@code fromOffset}, {@code toOffset}) of {@code tp} holds any record (markers and aborted ones don't count). */
    static boolean holdsRecords(KafkaConsumer<byte[], byte[]> consumer, TopicPartition tp, long fromOffset, long toOffset) {
        if (fromOffset >= toOffset) {
            return false;
        }
        consumer.assign(List.of(tp));
        consumer.seek(tp, fromOffset);
        while (consumer.position(tp) < toOffset) {
            for (ConsumerRecord<byte[], byte[]> record : consumer.poll(POLL).records(tp)) {
                if (record.offset() < toOffset) {
                    return true;
                }
            }
        }
        return false;
    }
}
