package io.ax.app.bench;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.BitSet;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;

/**
 * Counts tasks accepted by the scheduler: distinct {@code PENDING} events on the state topic, as a
 * {@code read_committed} reader sees them (so only once their exactly-once transaction committed), and
 * {@code REJECTED} ones. Only keys {@code <prefix><i>} with i below n count.
 *
 * <p>The state topic is JSON that ax writes compactly ({@code "to":"PENDING"}); matching the bytes avoids
 * parsing a million documents on a two-core machine.
 */
public final class PendingTracker extends TopicTail {
    private static final String PENDING = "\"to\":\"PENDING\"";
    private static final String REJECTED = "\"to\":\"REJECTED\"";

    private final TaskKeys keys;
    private final int n;
    private final BitSet pending;
    private volatile int accepted;
    private volatile int rejected;
    private volatile long firstAcceptedAtMs;
    private volatile long lastAcceptedAtMs;

    private PendingTracker(Map<String, Object> kafka, String stateTopic, Clock clock, TaskKeys keys, int n) {
        super(kafka, stateTopic, clock);
        this.keys = keys;
        this.n = n;
        this.pending = new BitSet(n);
    }

    /** Starts tailing {@code stateTopic} for the PENDING events of tasks {@code keys.key(0 .. n-1)}. */
    public static PendingTracker start(Map<String, Object> kafka, String stateTopic, Clock clock, TaskKeys keys, int n) {
        PendingTracker tracker = new PendingTracker(kafka, stateTopic, clock, keys, n);
        tracker.start();
        return tracker;
    }

    @Override
    void onBatch(ConsumerRecords<String, byte[]> records, long seenAtMs) {
        int newlyAccepted = 0;
        for (ConsumerRecord<String, byte[]> record : records) {
            int index = keys.indexOf(record.key(), n);
            if (index < 0 || record.value() == null) {
                continue;
            }
            String json = new String(record.value(), StandardCharsets.UTF_8);
            if (json.contains(PENDING) && !pending.get(index)) {
                pending.set(index);
                newlyAccepted++;
            } else if (json.contains(REJECTED)) {
                rejected++;
            }
        }
        if (newlyAccepted > 0) {
            if (accepted == 0) {
                firstAcceptedAtMs = seenAtMs;
            }
            lastAcceptedAtMs = seenAtMs;
            accepted += newlyAccepted;
        }
    }

    /** Distinct tasks seen PENDING. */
    public int accepted() {
        checkHealthy();
        return accepted;
    }

    public int rejected() {
        return rejected;
    }

    /** When the first task was seen accepted (bench clock, ms); 0 before any. */
    public long firstAcceptedAtMs() {
        return firstAcceptedAtMs;
    }

    /** When the latest newly accepted task became visible (bench clock, ms); 0 before any. */
    public long lastAcceptedAtMs() {
        return lastAcceptedAtMs;
    }
}
