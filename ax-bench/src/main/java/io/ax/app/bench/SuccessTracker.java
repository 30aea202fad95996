package io.ax.app.bench;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.BitSet;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;

/**
 * Counts distinct tasks {@code <prefix><i>} (i below n) seen reaching {@code SUCCESS} on the state topic, as a
 * {@code read_committed} reader sees them; matches the compact JSON's bytes as {@link PendingTracker} does.
 */
final class SuccessTracker extends TopicTail {
    private static final String SUCCESS = "\"to\":\"SUCCESS\"";

    private final TaskKeys keys;
    private final int n;
    private final BitSet succeeded;
    private volatile int count;

    private SuccessTracker(Map<String, Object> kafka, String stateTopic, Clock clock, TaskKeys keys, int n) {
        super(kafka, stateTopic, clock);
        this.keys = keys;
        this.n = n;
        this.succeeded = new BitSet(n);
    }

    static SuccessTracker start(Map<String, Object> kafka, String stateTopic, Clock clock, TaskKeys keys, int n) {
        SuccessTracker tracker = new SuccessTracker(kafka, stateTopic, clock, keys, n);
        tracker.start();
        return tracker;
    }

    @Override
    void onBatch(ConsumerRecords<String, byte[]> records, long seenAtMs) {
        for (ConsumerRecord<String, byte[]> record : records) {
            int index = keys.indexOf(record.key(), n);
            if (index >= 0 && record.value() != null && !succeeded.get(index)
                    && new String(record.value(), StandardCharsets.UTF_8).contains(SUCCESS)) {
                succeeded.set(index);
                count++;
            }
        }
    }

    /** Distinct tasks seen SUCCESS. */
    int succeeded() {
        checkHealthy();
        return count;
    }
}
