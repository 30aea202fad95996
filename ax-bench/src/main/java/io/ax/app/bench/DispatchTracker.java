package io.ax.app.bench;

import io.ax.codec.WireCodec;
import io.ax.schema.DispatchKind;
import io.ax.schema.DispatchTask;
import java.time.Clock;
import java.util.BitSet;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.IntToLongFunction;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;

/**
 * Checks the dispatch topic against what was scheduled, as a {@code read_committed} worker would see it: for
 * tasks {@code <prefix><i>} (i below n), the lateness of each first-attempt RUN dispatch (visible here − the
 * due time the bench asked for), and the guarantees:
 * <ul>
 *   <li><b>early</b>: visible before its due time, or {@code firedAtMs < dueAtMs} in the record, or a
 *       {@code dueAtMs} other than the one asked for;</li>
 *   <li><b>dup</b>: another dispatch of an (executionId, attempt) already seen. A one-shot task has a single
 *       executionId, so (task number, attempt) identifies it;</li>
 *   <li><b>lost</b>: {@code n − }{@link #dispatched()} once the run is over.</li>
 * </ul>
 * Bookkeeping is a BitSet per first attempts (retries, rare here, go to a small set): 1M tasks cost ~125 KB.
 */
public final class DispatchTracker extends TopicTail {
    private final TaskKeys keys;
    private final int n;
    private final IntToLongFunction dueMsOf;
    private final BitSet firstAttemptSeen;
    private final Set<Long> retriesSeen = new HashSet<>();
    private final LatencyRecorder visibleLateness = new LatencyRecorder();
    private final LatencyRecorder firedLateness = new LatencyRecorder();
    private final LatencyRecorder lateOverOneSecond = new LatencyRecorder();
    /**
     * Due time and lateness of each first dispatch more than 1 s late, at most {@value #LATE_KEPT} (a failover's victims).
     * Guarded by itself: the tail's thread adds, the bench's reads. Not a copy-on-write list: each add copied the whole
     * list, so a burst whose tasks were mostly over a second late cost the tail quadratic time (its thread, not the
     * scheduler, set the end of the burst as measured: ~20 µs a record at 100,000).
     */
    private final java.util.List<long[]> late = new java.util.ArrayList<>();
    private static final int LATE_KEPT = 100_000;
    private final LatencyRecorder[] latenessByPriority = new LatencyRecorder[10];
    private final java.util.concurrent.ConcurrentMap<String, LatencyRecorder> latenessByOwner =
            new java.util.concurrent.ConcurrentHashMap<>();
    private volatile int dispatched;
    private volatile long early;
    private volatile long dup;
    private volatile long lastVisibleAtMs;
    private volatile long firstTaskLatenessMs = -1;
    private volatile long firstTaskFiredLatenessMs = -1;
    private volatile LatenessBySecond bySecond;

    private DispatchTracker(Map<String, Object> kafka, String dispatchTopic, Clock clock, TaskKeys keys, int n,
                            IntToLongFunction dueMsOf) {
        super(kafka, dispatchTopic, clock);
        this.keys = keys;
        this.n = n;
        this.dueMsOf = dueMsOf;
        this.firstAttemptSeen = new BitSet(n);
        for (int priority = 0; priority < latenessByPriority.length; priority++) {
            latenessByPriority[priority] = new LatencyRecorder();
        }
    }

    /**
     * Starts tailing {@code dispatchTopic}.
     *
     * @param dueMsOf the due time the bench asked for task i; read when its dispatch arrives, so it must be
     *                published (e.g. an AtomicLongArray) before the request is sent
     */
    public static DispatchTracker start(Map<String, Object> kafka, String dispatchTopic, Clock clock, TaskKeys keys, int n,
                                        IntToLongFunction dueMsOf) {
        DispatchTracker tracker = new DispatchTracker(kafka, dispatchTopic, clock, keys, n, dueMsOf);
        tracker.start();
        return tracker;
    }

    @Override
    void onBatch(ConsumerRecords<String, byte[]> records, long seenAtMs) {
        for (ConsumerRecord<String, byte[]> record : records) {
            int index = keys.indexOf(record.key(), n);
            if (index >= 0) {
                check(index, WireCodec.decodeBinary(record.value(), DispatchTask.class), seenAtMs);
            }
        }
    }

    private void check(int index, DispatchTask task, long seenAtMs) {
        if (task.getKind() != DispatchKind.RUN) {
            return;
        }
        long dueMs = dueMsOf.applyAsLong(index);
        if (seenAtMs < dueMs || task.getFiredAtMs() < task.getDueAtMs() || task.getDueAtMs() != dueMs) {
            early++;
        }
        if (task.getAttempt() != 1) {
            if (!retriesSeen.add(((long) index << 16) | task.getAttempt())) {
                dup++;
            }
            return;
        }
        if (firstAttemptSeen.get(index)) {
            dup++;
            return;
        }
        firstAttemptSeen.set(index);
        visibleLateness.record(seenAtMs - dueMs);
        firedLateness.record(task.getFiredAtMs() - dueMs);
        if (bySecond == null) {
            bySecond = new LatenessBySecond(dueMsOf.applyAsLong(0));
        }
        bySecond.record(dueMs, task.getFiredAtMs() - dueMs, seenAtMs - dueMs);
        if (index == 0) {
            firstTaskLatenessMs = seenAtMs - dueMs;
            firstTaskFiredLatenessMs = task.getFiredAtMs() - dueMs;
        }
        if (seenAtMs - dueMs > 1_000) {
            lateOverOneSecond.record(seenAtMs - dueMs);
            synchronized (late) {
                if (late.size() < LATE_KEPT) {
                    late.add(new long[] {dueMs, seenAtMs - dueMs});
                }
            }
        }
        latenessByPriority[Math.max(0, Math.min(9, task.getPriority()))].record(seenAtMs - dueMs);
        latenessByOwner.computeIfAbsent(String.valueOf(task.getOwner()), owner -> new LatencyRecorder())
                .record(seenAtMs - dueMs);
        latenessByOwner.computeIfAbsent(task.getOwner() + "/" + task.getJobType(), key -> new LatencyRecorder())
                .record(seenAtMs - dueMs);
        lastVisibleAtMs = seenAtMs;
        dispatched++;
    }

    /** The first dispatches' lateness second by second of due time, from the first task's due time (empty before any). */
    LatenessBySecond bySecond() {
        LatenessBySecond seen = bySecond;
        return seen != null ? seen : new LatenessBySecond(0);
    }

    /** Distinct tasks whose first attempt was dispatched. */
    public int dispatched() {
        checkHealthy();
        return dispatched;
    }

    public long early() {
        return early;
    }

    public long dup() {
        return dup;
    }

    /** Visible − due of each task's first dispatch, ms. */
    public LatencyRecorder visibleLateness() {
        return visibleLateness;
    }

    /**
     * Fired − due of each task's first dispatch, ms: when the scheduler decided to fire it ({@code firedAtMs}). What
     * {@link #visibleLateness} adds on top is the wait for the transaction that carries the dispatch to commit.
     */
    public LatencyRecorder firedLateness() {
        return firedLateness;
    }

    /** The visible lateness of the first dispatches more than 1 s late (around a failover: those it held back). */
    public LatencyRecorder lateOverOneSecond() {
        return lateOverOneSecond;
    }

    /** The lateness of the first dispatches more than 1 s late that were due in [{@code fromMs}, {@code toMs}). */
    public LatencyRecorder lateDueBetween(long fromMs, long toMs) {
        LatencyRecorder recorder = new LatencyRecorder();
        synchronized (late) {
            for (long[] entry : late) {
                if (entry[0] >= fromMs && entry[0] < toMs) {
                    recorder.record(entry[1]);
                }
            }
        }
        return recorder;
    }

    /** The visible lateness of the first dispatches of priority {@code priority} (0-9). */
    public LatencyRecorder visibleLateness(int priority) {
        return latenessByPriority[priority];
    }

    /** The visible lateness of the first dispatches of {@code owner}'s tasks (an empty recorder when none came). */
    public LatencyRecorder visibleLatenessOf(String owner) {
        return latenessByOwner.getOrDefault(owner, new LatencyRecorder());
    }

    /** The visible lateness of the first dispatches of {@code owner}'s tasks of {@code jobType} (empty when none came). */
    public LatencyRecorder visibleLatenessOf(String owner, String jobType) {
        return latenessByOwner.getOrDefault(owner + "/" + jobType, new LatencyRecorder());
    }

    /** The visible lateness of task 0's first dispatch, ms; -1 while it has not come. */
    public long firstTaskLatenessMs() {
        return firstTaskLatenessMs;
    }

    /** Task 0's first dispatch's {@code firedAtMs} − due, ms (the scheduler's decision); -1 while it has not come. */
    public long firstTaskFiredLatenessMs() {
        return firstTaskFiredLatenessMs;
    }

    /** When the latest first dispatch became visible (bench clock, ms); 0 before any. */
    public long lastVisibleAtMs() {
        return lastVisibleAtMs;
    }
}
