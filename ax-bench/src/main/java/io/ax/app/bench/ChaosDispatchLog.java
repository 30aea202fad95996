package io.ax.app.bench;

import io.ax.AxHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.function.IntToLongFunction;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.header.Header;

/**
 * The chaos run's live view of {@code ax.dispatch} as a {@code read_committed} worker sees it: when each RUN
 * dispatch of tasks {@code <prefix><i>} first became visible, by (task, attempt), read from the headers
 * ({@code ax-kind}, {@code ax-attempt}, {@code ax-due-at}). It gives the lateness (visible − due) of first attempts
 * against the due time the run asked for, of retries against their {@code ax-due-at}, and counts dispatches
 * visible before their due time. Duplicates and content are checked by {@link ChaosAudit} from a full re-read.
 *
 * <p>{@link #onBatch} runs on the tail's thread; the getters are synchronized with it.
 */
final class ChaosDispatchLog extends TopicTail {
    private final TaskKeys keys;
    private final int n;
    private final IntToLongFunction dueMsOf;
    private final long[] firstVisibleAtMs;
    private final Map<Long, Long> retryLatenessMs = new HashMap<>();
    private int firstAttempts;
    private long early;

    private ChaosDispatchLog(Map<String, Object> kafka, String topic, Clock clock, TaskKeys keys, int n, IntToLongFunction dueMsOf) {
        super(kafka, topic, clock);
        this.keys = keys;
        this.n = n;
        this.dueMsOf = dueMsOf;
        this.firstVisibleAtMs = new long[n];
    }

    /** Starts tailing {@code topic} from its end; {@code dueMsOf(i)} must be published before task i is sent. */
    static ChaosDispatchLog start(Map<String, Object> kafka, String topic, Clock clock, TaskKeys keys, int n, IntToLongFunction dueMsOf) {
        ChaosDispatchLog log = new ChaosDispatchLog(kafka, topic, clock, keys, n, dueMsOf);
        log.start();
        return log;
    }

    @Override
    synchronized void onBatch(ConsumerRecords<String, byte[]> records, long seenAtMs) {
        for (ConsumerRecord<String, byte[]> record : records) {
            int index = keys.indexOf(record.key(), n);
            if (index < 0 || !"RUN".equals(header(record, AxHeaders.KIND))) {
                continue;
            }
            int attempt = Integer.parseInt(header(record, AxHeaders.ATTEMPT));
            long headerDueMs = Long.parseLong(header(record, AxHeaders.DUE_AT));
            if (seenAtMs < headerDueMs || (attempt == 1 && seenAtMs < dueMsOf.applyAsLong(index))) {
                early++;
            }
            if (attempt == 1) {
                if (firstVisibleAtMs[index] == 0) {
                    firstVisibleAtMs[index] = seenAtMs;
                    firstAttempts++;
                }
            } else {
                retryLatenessMs.putIfAbsent(((long) index << 16) | attempt, seenAtMs - headerDueMs);
            }
        }
    }

    static String header(ConsumerRecord<?, ?> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    /** Distinct tasks whose first attempt was seen. */
    synchronized int firstAttempts() {
        checkHealthy();
        return firstAttempts;
    }

    /** When task i's first attempt became visible (bench clock), 0 if not yet. */
    synchronized long firstVisibleAtMs(int index) {
        return firstVisibleAtMs[index];
    }

    /** RUN dispatches seen before their due time. */
    synchronized long early() {
        return early;
    }

    /** Visible − due of every retry (attempt > 1) seen, ms. */
    synchronized LatencyRecorder retryLateness() {
        LatencyRecorder recorder = new LatencyRecorder();
        retryLatenessMs.values().forEach(recorder::record);
        return recorder;
    }
}
