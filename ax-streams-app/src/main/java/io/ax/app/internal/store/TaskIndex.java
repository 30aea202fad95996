package io.ax.app.internal.store;

import io.ax.schema.StoredHistoryEntry;
import io.ax.schema.StoredTask;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The secondary indexes of one partition's tasks, in one RocksDB store ({@link AxStores#INDEX}). Key spaces, each led
 * by one byte:
 *
 * <pre>
 * 's' [state]   taskId           → (empty)     tasks by state, in taskId order
 * 'j' [jobType] taskId           → (empty)     tasks by jobType
 * 'o' [owner]   taskId           → (empty)     tasks by owner (tasks that have one)
 * 'x' executionId                → taskId      every execution the task's history names, and its latest execution
 * 'c' ('s'|'j') [value]          → 8-byte count of tasks by state, by jobType
 * 'c' 'k' [state/jobType]        → 8-byte count of tasks in flight (TRIGGERED, RUNNING) by state and jobType
 * 'f' firedAtMs(8) taskId        → executionId, owner, jobType of each task in flight, oldest attempt first
 * </pre>
 *
 * The last two serve the in-flight gauges ({@code PartitionMetrics}): the counts by job type without visiting a task,
 * and the executions running longest by a range from the oldest fire time up to the long-running threshold.
 *
 * {@code [value]} is a 2-byte big-endian length and the UTF-8 bytes, so one value's keys form one contiguous range
 * whatever characters it holds; taskIds are UTF-8, so a range yields them in the byte order of their UTF-8 form.
 *
 * <p><b>Derived, so not logged.</b> Every key is a function of the task store: the store is built without a changelog
 * (see {@link AxStores#index}), and {@link #rebuildStep} rebuilds it from the task store whenever the
 * partition is assigned (first deleting whatever an earlier assignment on this instance left). How it is read decides
 * how it is written: the listings and counts of the HTTP API read it, a few times a second at most, while every
 * decision writes it; so a decision writes only the keys whose value changed, from the task as it was before the
 * decision and as it is after ({@link #save}), never reading a key to write it; the writes wait in memory and are
 * made in one RocksDB write batch at each punctuation ({@link #flush}, every wheel tick), counters included, or sooner
 * when {@link #MAX_PENDING} keys wait ({@link #flushIfLarge}, after each record). A counter changed by many decisions
 * in one tick is written once, and a key added and removed again within one tick (a task that went TRIGGERED, RUNNING
 * and SUCCESS between two ticks) is never written at all; readers see the index as of the last write batch, one tick
 * behind. No key holds what the task store holds: a listing with several filters reads the task itself (a copy of
 * the filtered fields, rewritten at every transition, was a fifth of the index's writes).
 *
 * <p><b>While it is rebuilt</b> (a batch of tasks per punctuation, in taskId order), a decision about a task the
 * rebuild has not reached yet writes nothing here: the rebuild indexes the task as it then is. Until the rebuild ends a
 * listing or a count of this partition can miss tasks ({@link #complete()} says whether it has ended). Not thread-safe:
 * one stream task owns it.
 */
public final class TaskIndex {
    public static final byte BY_STATE = 's';
    public static final byte BY_JOB_TYPE = 'j';
    public static final byte BY_OWNER = 'o';
    /** Counts of tasks in flight by state and jobType ({@code c k STATE/jobType}). */
    public static final byte IN_FLIGHT_BY_JOB_TYPE = 'k';
    static final byte IN_FLIGHT_SINCE = 'f';
    static final byte EXECUTION = 'x';
    static final byte COUNT = 'c';
    private static final byte[] EMPTY = new byte[0];

    private enum Phase { WIPE, BUILD, DONE }

    private final KeyValueStore<Bytes, byte[]> store;
    /** Every counter, exact as of the last decision (the store's copy is as of the last {@link #flush}). */
    private final java.util.Map<Counter, Long> counts = new java.util.HashMap<>();
    /** Keys waiting at most for a batch: past it, {@link #flushIfLarge} writes them before the next punctuation. */
    public static final int MAX_PENDING = 4_096;
    /** Writes not yet made, made together by {@link #flush} in one RocksDB write batch. */
    private final java.util.Map<Bytes, Write> pending = new java.util.HashMap<>();
    private final Set<Counter> dirtyCounts = new HashSet<>();
    /** The counters as of the last {@link #flush}, for readers on other threads ({@link #published()}). */
    private final java.util.concurrent.ConcurrentHashMap<Counter, Long> published = new java.util.concurrent.ConcurrentHashMap<>();

    /** A counter: tasks by {@code dimension} ({@link #BY_STATE}, {@link #BY_JOB_TYPE}, {@link #IN_FLIGHT_BY_JOB_TYPE}) and value. */
    private record Counter(byte dimension, String value) {
    }

    /**
     * A write waiting for the flush: {@code value} null is a delete; {@code fresh}, a put of a key the store does not
     * hold, so that a delete before the flush drops both.
     */
    private record Write(byte[] value, boolean fresh) {
    }

    private static final Write DELETE = new Write(null, false);

    /**
     * No task in flight, in the store or waiting for the flush, was fired before this (a lower bound; MIN_VALUE: not
     * known, MAX_VALUE: none in flight). Fire times only grow, so once a read of the store has found the oldest, the
     * bound holds until a write of an older one ({@link #index}: a retry fired, a rebuild): the gauges need not read
     * the store to learn that nothing has been running long ({@link #mayHaveInFlightFiredBefore}).
     */
    private long inFlightFloorMs = Long.MIN_VALUE;
    /** The oldest fire time of the in-flight keys put since the last {@link #flush} (MAX_VALUE: none). */
    private long unflushedInFlightFloorMs = Long.MAX_VALUE;
    private Phase phase = Phase.WIPE;
    /** WIPE: the first key not yet deleted; BUILD: the UTF-8 bytes of the last taskId indexed (null: none yet). */
    private Bytes wipedUpTo;
    private byte[] indexedUpTo;
    private String indexedUpToTaskId;

    /** Called with each task the rebuild indexes, after it is indexed: other stores derived from the task store follow. */
    private java.util.function.Consumer<StoredTask> rebuilt = task -> { };

    public TaskIndex(KeyValueStore<Bytes, byte[]> store) {
        this.store = store;
    }

    /**
     * Lets another store derived from the task store ride on this index's rebuild: {@code rebuilt} is called with each
     * task as the rebuild indexes it, and {@link #covers} says which tasks it has reached.
     */
    public void onRebuilt(java.util.function.Consumer<StoredTask> rebuilt) {
        this.rebuilt = rebuilt;
    }

    /**
     * Whether the rebuild has reached the task (or is done): a store derived alongside takes a task's changes only from
     * then on, before which the rebuild derives it as it then is.
     */
    public boolean covers(String taskId) {
        return indexed(taskId);
    }

    /** Whether the index covers every task of the partition (its rebuild after the assignment has ended). */
    public boolean complete() {
        return phase == Phase.DONE;
    }

    /**
     * Brings the index up to date with a decision that saved {@code now}; {@code before} is what the index held of the
     * task before the decision (null for a new task), {@code beforeHistory} the executions its history named then.
     */
    public void save(IndexEntry before, List<StoredHistoryEntry> beforeHistory, StoredTask now) {
        String taskId = now.getTaskId();
        if (!indexed(taskId)) {
            return;
        }
        IndexEntry entry = IndexEntry.of(now);
        if (!entry.equals(before)) {
            if (before != null) {
                unindex(taskId, before, entry);
            }
            index(taskId, entry, before);
        }
        updateExecutions(taskId, executionsOf(beforeHistory, before), executionsOf(now.getHistory(), entry));
    }

    /** Removes the task from every index (it was deleted from the task store). */
    public void remove(IndexEntry before, List<StoredHistoryEntry> beforeHistory, String taskId) {
        if (before == null || !indexed(taskId)) {
            return;
        }
        unindex(taskId, before, null);
        updateExecutions(taskId, executionsOf(beforeHistory, before), Set.of());
    }

    /**
     * One step of the rebuild after an assignment: deletes up to {@code batch} keys an earlier assignment left, then
     * indexes up to {@code batch} tasks a call, in taskId order. True once the index is complete (then it costs nothing).
     */
    public boolean rebuildStep(KeyValueStore<String, StoredTask> tasks, int batch) {
        if (phase == Phase.WIPE) {
            wipe(batch);
        }
        if (phase == Phase.BUILD) {
            build(tasks, batch);
        }
        flush();
        return phase == Phase.DONE;
    }

    private void wipe(int batch) {
        int deleted = 0;
        try (KeyValueIterator<Bytes, byte[]> it = wipedUpTo == null ? store.all() : store.range(wipedUpTo, null)) {
            while (it.hasNext() && deleted < batch) {
                store.put(it.next().key, null); // a tombstone: delete() would read the value first
                deleted++;
            }
            if (it.hasNext()) {
                wipedUpTo = it.peekNextKey();
                return;
            }
        }
        phase = Phase.BUILD;
        wipedUpTo = null;
    }

    private void build(KeyValueStore<String, StoredTask> tasks, int batch) {
        int seen = 0;
        try (KeyValueIterator<String, StoredTask> it = tasks.range(indexedUpToTaskId, null)) {
            while (it.hasNext() && seen < batch) {
                KeyValue<String, StoredTask> next = it.next();
                if (next.key.equals(indexedUpToTaskId)) {
                    continue; // indexed by the previous step
                }
                indexedUpToTaskId = next.key;
                indexedUpTo = next.key.getBytes(StandardCharsets.UTF_8);
                if (next.value != null) {
                    save(null, List.of(), next.value);
                    rebuilt.accept(next.value);
                }
                seen++;
            }
            if (it.hasNext()) {
                return;
            }
        }
        phase = Phase.DONE;
        indexedUpTo = null;
        indexedUpToTaskId = null;
    }

    /** Whether the task is covered by the index: the rebuild is done, or has passed it (task store order: UTF-8 bytes). */
    private boolean indexed(String taskId) {
        return phase == Phase.DONE || phase == Phase.BUILD && indexedUpTo != null
                && Arrays.compareUnsigned(taskId.getBytes(StandardCharsets.UTF_8), indexedUpTo) <= 0;
    }

    private void index(String taskId, IndexEntry now, IndexEntry before) {
        if (before == null || before.state() != now.state()) {
            put(valueKey(BY_STATE, now.state().name(), taskId), EMPTY, true);
            count(BY_STATE, now.state().name(), +1);
        }
        if (before == null || !before.jobType().equals(now.jobType())) {
            put(valueKey(BY_JOB_TYPE, now.jobType(), taskId), EMPTY, true);
            count(BY_JOB_TYPE, now.jobType(), +1);
        }
        if (now.owner() != null && (before == null || !now.owner().equals(before.owner()))) {
            put(valueKey(BY_OWNER, now.owner(), taskId), EMPTY, true);
        }
        if (now.firedAtMs() != null) {
            if (before == null || before.firedAtMs() == null || before.state() != now.state() || !before.jobType().equals(now.jobType())) {
                count(COUNT_IN_FLIGHT, inFlightValue(now), +1);
            }
            if (before == null || !inFlightSame(before, now)) {
                // a new key unless the task was in flight under the same fire time (unindex kept the key: a new detail)
                boolean newKey = before == null || !Objects.equals(before.firedAtMs(), now.firedAtMs());
                put(inFlightKey(now.firedAtMs(), taskId), inFlightDetail(now), newKey);
                inFlightFloorMs = Math.min(inFlightFloorMs, now.firedAtMs());
                unflushedInFlightFloorMs = Math.min(unflushedInFlightFloorMs, now.firedAtMs());
            }
        }
    }

    /** Whether two entries have the same in-flight key and detail. */
    private static boolean inFlightSame(IndexEntry a, IndexEntry b) {
        return java.util.Objects.equals(a.firedAtMs(), b.firedAtMs()) && java.util.Objects.equals(a.executionId(), b.executionId())
                && java.util.Objects.equals(a.owner(), b.owner()) && a.jobType().equals(b.jobType());
    }

    /** Removes the keys of {@code before} that {@code now} (null: nothing) no longer has. */
    private void unindex(String taskId, IndexEntry before, IndexEntry now) {
        if (now == null || before.state() != now.state()) {
            delete(valueKey(BY_STATE, before.state().name(), taskId));
            count(BY_STATE, before.state().name(), -1);
        }
        if (now == null || !before.jobType().equals(now.jobType())) {
            delete(valueKey(BY_JOB_TYPE, before.jobType(), taskId));
            count(BY_JOB_TYPE, before.jobType(), -1);
        }
        if (before.owner() != null && (now == null || !before.owner().equals(now.owner()))) {
            delete(valueKey(BY_OWNER, before.owner(), taskId));
        }
        if (before.firedAtMs() != null) {
            if (now == null || now.firedAtMs() == null || before.state() != now.state() || !before.jobType().equals(now.jobType())) {
                count(COUNT_IN_FLIGHT, inFlightValue(before), -1);
            }
            if (now == null || !java.util.Objects.equals(before.firedAtMs(), now.firedAtMs())) {
                delete(inFlightKey(before.firedAtMs(), taskId));
            }
        }
    }

    private static final byte COUNT_IN_FLIGHT = IN_FLIGHT_BY_JOB_TYPE;

    private static String inFlightValue(IndexEntry entry) {
        return entry.state().name() + "/" + entry.jobType();
    }

    private static byte[] inFlightDetail(IndexEntry entry) {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream(64);
        try (java.io.DataOutputStream out = new java.io.DataOutputStream(bytes)) {
            NullableStrings.write(out, entry.executionId());
            NullableStrings.write(out, entry.owner());
            out.writeUTF(entry.jobType());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /**
     * Whether a task in flight may have been fired before {@code firedBeforeMs}: false only when none was, so that a
     * read of the store ({@link #inFlightSince}) would find nothing before it.
     */
    public boolean mayHaveInFlightFiredBefore(long firedBeforeMs) {
        return inFlightFloorMs < firedBeforeMs;
    }

    /**
     * What a read of the store just found ({@link InFlightScan#oldestFiredAtMs}), made at the last {@link #flush} or
     * since: with the writes not flushed yet, the oldest fire time of a task in flight.
     */
    public void inFlightRead(InFlightScan scan) {
        inFlightFloorMs = Math.min(scan.oldestFiredAtMs(), unflushedInFlightFloorMs);
    }

    /** A task in flight as the index holds it ({@link #inFlightSince}). */
    public record InFlight(String taskId, long firedAtMs, String executionId, String owner, String jobType) {
    }

    /**
     * What {@link #inFlightSince} read: the tasks in flight fired before its bound, oldest first, and the fire time of the
     * oldest task in flight of all (MAX_VALUE: none).
     */
    public record InFlightScan(java.util.List<InFlight> found, long oldestFiredAtMs) {
    }

    /**
     * The tasks in flight whose attempt was dispatched before {@code firedBeforeMs}, oldest first, at most {@code max}
     * (a read-only view is fine), and the oldest fire time of all.
     */
    public static InFlightScan inFlightSince(ReadOnlyKeyValueStore<Bytes, byte[]> store, long firedBeforeMs, int max) {
        java.util.List<InFlight> found = new java.util.ArrayList<>();
        long oldestFiredAtMs = Long.MAX_VALUE;
        try (KeyValueIterator<Bytes, byte[]> it = store.range(inFlightKey(0, ""), inFlightKey(Long.MAX_VALUE, ""))) {
            while (it.hasNext() && found.size() < max) {
                KeyValue<Bytes, byte[]> next = it.next();
                byte[] key = next.key.get();
                long firedAtMs = ByteBuffer.wrap(key, 1, Long.BYTES).getLong();
                oldestFiredAtMs = Math.min(oldestFiredAtMs, firedAtMs);
                if (firedAtMs >= firedBeforeMs) {
                    break;
                }
                try (java.io.DataInputStream in = new java.io.DataInputStream(new java.io.ByteArrayInputStream(next.value))) {
                    String executionId = NullableStrings.read(in);
                    String owner = NullableStrings.read(in);
                    String jobType = in.readUTF();
                    found.add(new InFlight(new String(key, 1 + Long.BYTES, key.length - 1 - Long.BYTES, StandardCharsets.UTF_8),
                            firedAtMs, executionId, owner, jobType));
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
        }
        return new InFlightScan(found, oldestFiredAtMs);
    }

    static Bytes inFlightKey(long firedAtMs, String taskId) {
        byte[] id = taskId.getBytes(StandardCharsets.UTF_8);
        return Bytes.wrap(ByteBuffer.allocate(1 + Long.BYTES + id.length).put(IN_FLIGHT_SINCE).putLong(firedAtMs).put(id).array());
    }

    /** The execution keys: added for executions newly named, deleted for those no longer named. */
    private void updateExecutions(String taskId, Set<String> before, Set<String> now) {
        if (before.equals(now)) {
            return;
        }
        byte[] value = null;
        for (String executionId : now) {
            if (!before.contains(executionId)) {
                value = value == null ? taskId.getBytes(StandardCharsets.UTF_8) : value;
                put(executionKey(executionId), value, true); // an executionId names one task's execution: a new key
            }
        }
        for (String executionId : before) {
            if (!now.contains(executionId)) {
                delete(executionKey(executionId));
            }
        }
    }

    /** The executions a task's history names, with its latest execution. At most the history's length + 1. */
    private static Set<String> executionsOf(List<StoredHistoryEntry> history, IndexEntry entry) {
        Set<String> executions = TaskHistory.executionIds(history);
        if (entry != null && entry.executionId() != null) {
            executions.add(entry.executionId());
        }
        return executions;
    }

    /**
     * Counters are kept in memory (this index is rebuilt, counts included, at each assignment) and written to the store
     * by {@link #flush}: a state change costs no read of a counter and one write per counter it changed.
     */
    private void count(byte dimension, String value, long delta) {
        Counter counter = new Counter(dimension, value);
        counts.merge(counter, delta, Long::sum);
        dirtyCounts.add(counter);
    }

    /**
     * The number of tasks with {@code value} in {@code dimension} ({@link #BY_STATE} with a state's name, {@link #BY_JOB_TYPE}),
     * from memory: exact as of the last decision, where the store's counter is as of the last flush. Partial while the
     * rebuild runs ({@link #complete()}), as the store's.
     */
    public long count(byte dimension, String value) {
        return counts.getOrDefault(new Counter(dimension, value), 0L);
    }

    /** The counters as the store holds them (as of the last {@link #flush}), readable from any thread. */
    public IndexCounts published() {
        return dimension -> {
            java.util.Map<String, Long> byValue = new java.util.HashMap<>();
            published.forEach((counter, count) -> {
                if (counter.dimension() == dimension) {
                    byValue.put(counter.value(), count);
                }
            });
            return byValue;
        };
    }

    /** The tasks in flight (TRIGGERED, RUNNING) by jobType, from memory as {@link #count}. */
    public java.util.Map<String, Long> inFlightByJobType() {
        java.util.Map<String, Long> byJobType = new java.util.HashMap<>();
        counts.forEach((counter, count) -> {
            if (counter.dimension() == IN_FLIGHT_BY_JOB_TYPE && count > 0) {
                byJobType.merge(counter.value().substring(counter.value().indexOf('/') + 1), count, Long::sum);
            }
        });
        return byJobType;
    }

    /**
     * A put made at the next {@link #flush}; a later write of the same key replaces it. {@code newKey}: the store does
     * not hold the key (the decision adds what the task did not have), so a delete before the flush drops both.
     */
    private void put(Bytes key, byte[] value, boolean newKey) {
        Write waiting = pending.put(key, new Write(value, newKey));
        if (waiting != null && waiting.fresh() != newKey) {
            // a waiting delete: the store holds the key, so this put is not new; a waiting put: the key stays as it was
            pending.put(key, new Write(value, waiting.fresh()));
        }
    }

    /**
     * A delete made at the next {@link #flush}, unless the key's put waits unmade and the store never held the key: then
     * neither is made. A task's keys that come and go between two flushes (TRIGGERED, RUNNING, in flight) cost nothing.
     */
    private void delete(Bytes key) {
        Write waiting = pending.put(key, DELETE);
        if (waiting != null && waiting.fresh()) {
            pending.remove(key);
        }
    }

    /**
     * Makes the writes of the decisions since the last call and the counters they changed (a counter at zero is
     * deleted), in one RocksDB write batch: a decision changes up to six keys, and one batch for all of them (or for a
     * whole punctuation's fires) costs one write instead of six, and no read (a tombstone is written instead of a
     * {@code delete}, which reads the old value back first). The processor calls it at each punctuation (and
     * {@link #flushIfLarge} after each record), so readers see the index as of the last punctuation.
     */
    public void flush() {
        for (Counter counter : dirtyCounts) {
            long count = counts.getOrDefault(counter, 0L);
            Bytes key = countKey(counter.dimension(), counter.value());
            if (count <= 0) {
                counts.remove(counter);
                published.remove(counter);
                pending.put(key, DELETE);
            } else {
                published.put(counter, count);
                pending.put(key, new Write(ByteBuffer.allocate(Long.BYTES).putLong(count).array(), false));
            }
        }
        dirtyCounts.clear();
        if (pending.isEmpty()) {
            return;
        }
        // In no particular order: the index's memtable is a vector, sorted when RocksDB flushes it (AxRocksDBConfig).
        List<KeyValue<Bytes, byte[]>> batch = new java.util.ArrayList<>(pending.size());
        pending.forEach((key, write) -> batch.add(KeyValue.pair(key, write.value())));
        pending.clear();
        unflushedInFlightFloorMs = Long.MAX_VALUE;
        store.putAll(batch);
    }

    /**
     * Writes what waits if {@link #MAX_PENDING} keys or more do (a burst of records between two punctuations); else
     * leaves it for the punctuation's {@link #flush}. Bounds the memory the waiting writes hold.
     */
    public void flushIfLarge() {
        if (pending.size() + dirtyCounts.size() >= MAX_PENDING) {
            flush();
        }
    }

    // ---- keys, shared with the readers (internal/query) ----

    /** The first key of {@code value}'s range in the index {@code dimension} ({@link #BY_STATE}, ...). */
    public static byte[] valuePrefix(byte dimension, String value) {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(3 + bytes.length).put(dimension).putShort((short) bytes.length).put(bytes).array();
    }

    public static Bytes valueKey(byte dimension, String value, String taskId) {
        byte[] prefix = valuePrefix(dimension, value);
        byte[] id = taskId.getBytes(StandardCharsets.UTF_8);
        return Bytes.wrap(ByteBuffer.allocate(prefix.length + id.length).put(prefix).put(id).array());
    }

    /** The taskId of an index key whose value part is {@code prefixLength} bytes long. */
    public static String taskIdOf(Bytes key, int prefixLength) {
        byte[] bytes = key.get();
        return new String(bytes, prefixLength, bytes.length - prefixLength, StandardCharsets.UTF_8);
    }

    public static Bytes executionKey(String executionId) {
        byte[] id = executionId.getBytes(StandardCharsets.UTF_8);
        return Bytes.wrap(ByteBuffer.allocate(1 + id.length).put(EXECUTION).put(id).array());
    }

    public static Bytes countKey(byte dimension, String value) {
        byte[] prefix = valuePrefix(dimension, value);
        return Bytes.wrap(ByteBuffer.allocate(1 + prefix.length).put(COUNT).put(prefix).array());
    }

    /** The first key of the counters of {@code dimension}. */
    public static Bytes countPrefix(byte dimension) {
        return Bytes.wrap(new byte[] {COUNT, dimension});
    }

    /** Decodes a counter key of {@link #countPrefix}: its value. */
    public static String countedValue(Bytes key) {
        byte[] bytes = key.get();
        int length = ((bytes[2] & 0xff) << 8) | (bytes[3] & 0xff);
        return new String(bytes, 4, length, StandardCharsets.UTF_8);
    }

    public static long countOf(byte[] value) {
        return ByteBuffer.wrap(value).getLong();
    }

    /** Whether {@code key} starts with {@code prefix}. */
    public static boolean hasPrefix(Bytes key, byte[] prefix) {
        byte[] bytes = key.get();
        return bytes.length >= prefix.length && Arrays.equals(bytes, 0, prefix.length, prefix, 0, prefix.length);
    }

    /** The task with {@code executionId} in its history (or as its latest execution), or null. */
    public static String taskOfExecution(ReadOnlyKeyValueStore<Bytes, byte[]> store, String executionId) {
        byte[] stored = store.get(executionKey(Objects.requireNonNull(executionId)));
        return stored == null ? null : new String(stored, StandardCharsets.UTF_8);
    }
}
