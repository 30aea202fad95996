package io.ax.app.internal.topology;

import io.ax.app.internal.core.Liveness;
import io.ax.app.internal.store.TaskStore;
import io.ax.schema.DependencySignal;
import io.ax.schema.DependencySignalKind;
import io.ax.schema.StoredTask;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The upstream side of task dependencies (topology-docs/WORKFLOWS.md), on the partition of a task that others wait for:
 * its subscribers, the notifications owed to them, and the tombstones of purged tasks, in key spaces of the task index
 * store ({@link io.ax.app.internal.store.TaskIndex}):
 *
 * <pre>
 * 'd' [upstream] dependent        → (empty)   dependent waits for upstream (kept until upstream is purged)
 * 'n' upstream                    → sweep     upstream ended: notify its subscribers, from a cursor, a batch at a time
 * 'p' upstream                    → 8 bytes   upstream was purged at (its tombstone)
 * 'P' purgedAtMs(8) upstream      → (empty)   tombstones in time order, so they expire after ax.retention.ms
 * 'q' [upstream] dependent        → (empty)   periodic dependent is told each of upstream's occurrence outcomes
 * 'N' upstream                    → sweep     an occurrence of upstream ended: tell its periodic subscribers, from a cursor
 * </pre>
 *
 * A periodic dependent (topology-docs/WORKFLOWS.md, "Periodic tasks that wait") subscribes for every occurrence
 * ({@code everyOccurrence}): each occurrence of the upstream that ends (SUCCESS, FAILED, CANCELLED, SKIPPED) is sent,
 * with its nominal time, to each such subscriber by the same bounded sweep as final states, from an 'N' marker (a newer
 * occurrence's marker replaces an older one still going out: only the latest outcome counts). Which upstreams have a
 * periodic subscriber is kept in memory, loaded once per assignment ({@link #loadEveryOccurrence}), so an occurrence
 * nobody waits for reads and writes nothing.
 *
 * The dependent's side is pure ({@code AwaitDependencies} in the core). Everything here runs inside the stream task's
 * exactly-once transactions with the signals it writes to ax.deps, so a restart neither loses nor repeats one. A
 * task that ends owes as many notifications as it has subscribers: {@link #sweep} sends at most a bounded batch per
 * call, so a fan-out of any size never makes one step unbounded. Not thread-safe (one stream task owns it).
 *
 * <p>Longer than most files here because it is one protocol over one store: final states and occurrence outcomes share
 * the subscriber key layout, the sweep's cursor and budget, and the in-memory lists of what is owed; split, each half
 * would need the other's keys.
 */
final class Dependencies {
    private static final byte SUBSCRIBER = 'd';
    private static final byte SWEEP = 'n';
    private static final byte PURGED = 'p';
    private static final byte PURGED_BY_TIME = 'P';
    private static final byte OCCURRENCE_SUBSCRIBER = 'q';
    private static final byte OCCURRENCE_SWEEP = 'N';
    private static final byte NOTIFY = 1;
    private static final byte DROP = 2;
    private static final byte[] EMPTY = new byte[0];
    /** Tombstones expired per call of {@link #expireTombstones}. */
    private static final int EXPIRE_BATCH = 1_000;

    private final KeyValueStore<Bytes, byte[]> store;
    private final TaskStore tasks;
    private final Outputs outputs;
    private final long retentionMs;
    /**
     * The upstream ids whose sweep is owed, in the order they were owed: the sweep markers' keys, kept here so that a
     * sweep never range-scans the marker key space, where every finished task leaves a deleted key (RocksDB walks over
     * deleted keys until they are compacted away: a scan per finished task would cost the number of tasks finished
     * before it). Loaded from the store once per assignment ({@link #loadOwed}).
     */
    private final java.util.LinkedHashSet<String> owed = new java.util.LinkedHashSet<>();
    private boolean owedLoaded;
    /** Whether any subscriber key exists on this partition (null: not looked yet); see {@link #anySubscriber}. */
    private Boolean anySubscriber;
    /** The upstreams on this partition with a periodic subscriber (a superset: an unsubscribe leaves its id here). */
    private final java.util.Set<String> everyOccurrence = new java.util.HashSet<>();
    private boolean everyOccurrenceLoaded;
    /** The upstreams whose occurrence sweep ('N' marker) is owed, in the order they were owed. */
    private final java.util.LinkedHashSet<String> owedOccurrences = new java.util.LinkedHashSet<>();
    /** Where the last tombstone expiry stopped: the next starts there, not over the tombstones it deleted. */
    private Bytes expiredUpTo = Bytes.wrap(new byte[] {PURGED_BY_TIME});

    Dependencies(KeyValueStore<Bytes, byte[]> store, TaskStore tasks, Outputs outputs, long retentionMs) {
        this.store = store;
        this.tasks = tasks;
        this.outputs = outputs;
        this.retentionMs = retentionMs;
    }

    // ---- from this partition's decisions ----

    /**
     * The dependent (this partition's task) asks upstream's partition for its final state, or, {@code everyOccurrence},
     * for each of its occurrences' outcomes.
     */
    void subscribe(String upstream, String dependent, boolean everyOccurrence, long nowMs) {
        signal(upstream, signal(DependencySignalKind.SUBSCRIBE, upstream, dependent, null, null, nowMs, everyOccurrence, null));
    }

    void unsubscribe(String upstream, String dependent, boolean everyOccurrence, long nowMs) {
        signal(upstream, signal(DependencySignalKind.UNSUBSCRIBE, upstream, dependent, null, null, nowMs, everyOccurrence, null));
    }

    /**
     * An occurrence of this partition's task {@code upstream}, nominally due {@code nominalAtMs}, ended: its periodic
     * subscribers are told at once. Nothing is read for a task without one.
     */
    void occurrenceEnded(String upstream, String outcome, String executionId, long nominalAtMs, long nowMs) {
        loadEveryOccurrence();
        if (!everyOccurrence.contains(upstream)) {
            return;
        }
        store.put(Bytes.wrap(key(OCCURRENCE_SWEEP, upstream)), encodeOccurrenceSweep(outcome, executionId, nominalAtMs, ""));
        owedOccurrences.remove(upstream); // restarts from the first subscriber, at the back
        owedOccurrences.add(upstream);
    }

    /** Sends up to {@code budget} owed occurrence outcomes, as {@link #sweep} does final states. Returns how many. */
    private int sweepOccurrences(long nowMs, int budget) {
        int handled = 0;
        java.util.Iterator<String> upstreams = owedOccurrences.iterator();
        while (upstreams.hasNext() && handled < budget) {
            String upstream = upstreams.next();
            Bytes markerKey = Bytes.wrap(key(OCCURRENCE_SWEEP, upstream));
            byte[] marker = store.get(markerKey);
            if (marker == null) {
                upstreams.remove();
                continue;
            }
            OccurrenceSweep sweep = decodeOccurrenceSweep(marker);
            String cursor = sweep.cursor();
            boolean done = true;
            byte[] prefix = prefix(OCCURRENCE_SUBSCRIBER, upstream);
            Bytes from = cursor.isEmpty() ? Bytes.wrap(prefix) : key(OCCURRENCE_SUBSCRIBER, upstream, cursor);
            try (KeyValueIterator<Bytes, byte[]> it = store.range(from, Bytes.wrap(withFf(prefix)))) {
                while (it.hasNext()) {
                    byte[] key = it.next().key.get();
                    String dependent = new String(key, prefix.length, key.length - prefix.length, StandardCharsets.UTF_8);
                    if (dependent.equals(cursor)) {
                        continue; // handled by the previous call
                    }
                    if (handled >= budget) {
                        done = false;
                        break;
                    }
                    signal(dependent, signal(DependencySignalKind.NOTIFY, upstream, dependent, sweep.outcome(), sweep.executionId(),
                            nowMs, false, sweep.nominalAtMs()));
                    cursor = dependent;
                    handled++;
                }
            }
            if (done) {
                store.delete(markerKey);
                upstreams.remove();
            } else {
                store.put(markerKey, encodeOccurrenceSweep(sweep.outcome(), sweep.executionId(), sweep.nominalAtMs(), cursor));
            }
        }
        return handled;
    }

    /** The upstreams with periodic subscribers, from the store: once per assignment, before the first record. */
    void loadEveryOccurrence() {
        if (everyOccurrenceLoaded) {
            return;
        }
        everyOccurrenceLoaded = true;
        try (KeyValueIterator<Bytes, byte[]> it = store.range(Bytes.wrap(new byte[] {OCCURRENCE_SWEEP}),
                Bytes.wrap(new byte[] {OCCURRENCE_SWEEP, (byte) 0xFF}))) {
            while (it.hasNext()) {
                byte[] key = it.next().key.get();
                owedOccurrences.add(new String(key, 1, key.length - 1, StandardCharsets.UTF_8));
            }
        }
        try (KeyValueIterator<Bytes, byte[]> it = store.range(Bytes.wrap(new byte[] {OCCURRENCE_SUBSCRIBER}),
                Bytes.wrap(new byte[] {OCCURRENCE_SUBSCRIBER, (byte) 0xFF}))) {
            while (it.hasNext()) {
                byte[] key = it.next().key.get();
                int length = ByteBuffer.wrap(key, 1, 2).getShort() & 0xFFFF;
                everyOccurrence.add(new String(key, 3, length, StandardCharsets.UTF_8));
            }
        }
    }

    /** This partition's task ended: its subscribers are told, by {@link #sweep}. */
    void finished(String upstream, String outcome, String executionId) {
        if (!hasSubscribers(upstream)) {
            return; // nobody waits (the common case): nothing owed; a later subscriber is answered from the task store
        }
        store.put(Bytes.wrap(sweepKey(upstream)), encodeSweep(NOTIFY, outcome, executionId, ""));
        owe(upstream);
    }

    /** This partition's task was purged: its subscriptions go (by {@link #sweep}), a tombstone answers later ones. */
    void purged(String upstream, long nowMs) {
        byte[] owed = store.get(Bytes.wrap(sweepKey(upstream)));
        if (owed == null && hasSubscribers(upstream)) {
            store.put(Bytes.wrap(sweepKey(upstream)), encodeSweep(DROP, "", null, ""));
            owe(upstream);
        } else if (owed != null && decodeSweep(owed).mode() != NOTIFY) {
            store.put(Bytes.wrap(sweepKey(upstream)), encodeSweep(DROP, "", null, ""));
            owe(upstream);
        } // else the notifications still owed go out first; that sweep then drops the subscriptions (see sweep)
        store.put(Bytes.wrap(key(PURGED, upstream)), ByteBuffer.allocate(Long.BYTES).putLong(nowMs).array());
        store.put(purgedByTimeKey(nowMs, upstream), EMPTY);
    }

    /** A task was scheduled under this id again: it is no longer purged. */
    void maybeForgetPurged(String taskId) {
        Bytes tombstone = Bytes.wrap(key(PURGED, taskId));
        byte[] purgedAt = store.get(tombstone);
        if (purgedAt != null) {
            store.delete(tombstone);
            store.delete(purgedByTimeKey(ByteBuffer.wrap(purgedAt).getLong(), taskId));
        }
    }

    // ---- from ax.deps ----

    /**
     * A dependent subscribes: kept, and answered at once when the upstream has already ended (its final state reaches
     * dependents that come after it ended, within its retention) or was purged (PURGED, a condition never met).
     */
    void onSubscribe(String upstream, String dependent, boolean everyOccurrence, long nowMs) {
        if (everyOccurrence) {
            onSubscribeEveryOccurrence(upstream, dependent, nowMs);
            return;
        }
        StoredTask task = tasks.get(upstream);
        if (task == null && store.get(Bytes.wrap(key(PURGED, upstream))) != null) {
            notify(upstream, dependent, "PURGED", null, nowMs);
            return;
        }
        store.put(subscriberKey(upstream, dependent), EMPTY);
        anySubscriber = true;
        if (task != null && task.getFinishedAtMs() != null && !Liveness.isLive(task)) {
            notify(upstream, dependent, Liveness.finalOutcome(task),
                    task.getExecution() == null ? null : task.getExecution().getExecutionId(), nowMs);
        }
    }

    void onUnsubscribe(String upstream, String dependent, boolean everyOccurrence) {
        store.delete(everyOccurrence ? key(OCCURRENCE_SUBSCRIBER, upstream, dependent) : subscriberKey(upstream, dependent));
    }

    /**
     * A periodic dependent subscribes: kept for the upstream's life (and beyond: a task scheduled again under the id
     * tells it too), and told at once the outcome of the upstream's latest occurrence that ended, if any.
     */
    private void onSubscribeEveryOccurrence(String upstream, String dependent, long nowMs) {
        loadEveryOccurrence();
        store.put(key(OCCURRENCE_SUBSCRIBER, upstream, dependent), EMPTY);
        everyOccurrence.add(upstream);
        StoredTask task = tasks.get(upstream);
        io.ax.schema.StoredExecution last = task == null ? null : task.getExecution();
        if (last != null && (last.getState() == io.ax.schema.TaskState.SUCCESS || last.getState() == io.ax.schema.TaskState.FAILED
                || last.getState() == io.ax.schema.TaskState.CANCELLED)) {
            signal(dependent, signal(DependencySignalKind.NOTIFY, upstream, dependent, last.getState().name(), last.getExecutionId(),
                    nowMs, false, last.getDueAtMs()));
        }
    }

    // ---- from the punctuator ----

    /**
     * Sends (or, after a purge, drops) up to {@code budget} owed notifications, oldest sweep first by upstream id; a
     * sweep cut short goes on from its cursor at the next call. Returns how many were handled.
     */
    int sweep(long nowMs, int budget) {
        loadOwed();
        loadEveryOccurrence();
        int handled = owedOccurrences.isEmpty() ? 0 : sweepOccurrences(nowMs, budget);
        java.util.Iterator<String> upstreams = owed.iterator();
        while (upstreams.hasNext() && handled < budget) {
            String upstream = upstreams.next();
            Bytes markerKey = Bytes.wrap(sweepKey(upstream));
            byte[] marker = store.get(markerKey);
            if (marker == null) {
                upstreams.remove();
                continue;
            }
            Sweep sweep = decodeSweep(marker);
            String cursor = sweep.cursor();
            boolean done = true;
            byte[] prefix = subscriberPrefix(upstream);
            Bytes from = cursor.isEmpty() ? Bytes.wrap(prefix) : subscriberKey(upstream, cursor);
            List<Bytes> drop = new ArrayList<>();
            try (KeyValueIterator<Bytes, byte[]> it = store.range(from, Bytes.wrap(withFf(prefix)))) {
                while (it.hasNext()) {
                    Bytes key = it.next().key;
                    String dependent = new String(key.get(), prefix.length, key.get().length - prefix.length, StandardCharsets.UTF_8);
                    if (dependent.equals(cursor)) {
                        continue; // handled by the previous call
                    }
                    if (handled >= budget) {
                        done = false;
                        break;
                    }
                    if (sweep.mode() == NOTIFY) {
                        notify(upstream, dependent, sweep.outcome(), sweep.executionId(), nowMs);
                    } else {
                        drop.add(key);
                    }
                    cursor = dependent;
                    handled++;
                }
            }
            drop.forEach(store::delete);
            if (!done) {
                store.put(markerKey, encodeSweep(sweep.mode(), sweep.outcome(), sweep.executionId(), cursor));
            } else if (sweep.mode() == NOTIFY && store.get(Bytes.wrap(key(PURGED, upstream))) != null) {
                // Purged while its notifications were going out: now its subscriptions go, from the start.
                store.put(markerKey, encodeSweep(DROP, "", null, ""));
            } else {
                store.delete(markerKey);
                upstreams.remove();
            }
        }
        return handled;
    }

    private boolean hasSubscribers(String upstream) {
        if (!anySubscriber()) {
            return false; // no subscription on this partition: a finished task costs no seek
        }
        byte[] prefix = subscriberPrefix(upstream);
        try (KeyValueIterator<Bytes, byte[]> it = store.range(Bytes.wrap(prefix), Bytes.wrap(withFf(prefix)))) {
            return it.hasNext();
        }
    }

    /**
     * Whether this partition has held a subscription since it was assigned: one seek per assignment, then set by
     * {@link #onSubscribe} (never cleared, so a false is always true: no subscriber key exists).
     */
    private boolean anySubscriber() {
        if (anySubscriber == null) {
            byte[] from = {SUBSCRIBER};
            try (KeyValueIterator<Bytes, byte[]> it = store.range(Bytes.wrap(from), Bytes.wrap(new byte[] {SUBSCRIBER + 1}))) {
                anySubscriber = it.hasNext();
            }
        }
        return anySubscriber;
    }

    private void owe(String upstream) {
        loadOwed();
        owed.remove(upstream); // a newer sweep (a replay's outcome) goes to the back
        owed.add(upstream);
    }

    /** The sweeps a previous owner of this partition left owed: one scan per assignment. */
    private void loadOwed() {
        if (owedLoaded) {
            return;
        }
        owedLoaded = true;
        try (KeyValueIterator<Bytes, byte[]> it = store.range(Bytes.wrap(new byte[] {SWEEP}), Bytes.wrap(new byte[] {SWEEP, (byte) 0xFF}))) {
            while (it.hasNext()) {
                byte[] key = it.next().key.get();
                owed.add(new String(key, 1, key.length - 1, StandardCharsets.UTF_8));
            }
        }
    }

    /** Tombstones older than the retention go, a bounded batch per call. */
    void expireTombstones(long nowMs) {
        List<Bytes> expired = new ArrayList<>();
        Bytes to = purgedByTimeKey(nowMs - retentionMs, "");
        if (expiredUpTo.compareTo(to) > 0) {
            return;
        }
        try (KeyValueIterator<Bytes, byte[]> it = store.range(expiredUpTo, to)) {
            while (it.hasNext() && expired.size() < EXPIRE_BATCH) {
                expired.add(it.next().key);
            }
        }
        if (!expired.isEmpty()) {
            expiredUpTo = expired.get(expired.size() - 1);
        }
        for (Bytes key : expired) {
            String taskId = new String(key.get(), 1 + Long.BYTES, key.get().length - 1 - Long.BYTES, StandardCharsets.UTF_8);
            store.delete(key);
            store.delete(Bytes.wrap(key(PURGED, taskId)));
        }
    }

    // ---- wire and keys ----

    private void notify(String upstream, String dependent, String outcome, String executionId, long nowMs) {
        signal(dependent, signal(DependencySignalKind.NOTIFY, upstream, dependent, outcome, executionId, nowMs, false, null));
    }

    private void signal(String key, DependencySignal signal) {
        outputs.deps(key, signal);
    }

    private static DependencySignal signal(DependencySignalKind kind, String upstream, String dependent, String outcome,
                                           String executionId, long nowMs, boolean everyOccurrence, Long nominalAtMs) {
        return DependencySignal.newBuilder().setKind(kind).setUpstream(upstream).setDependent(dependent).setOutcome(outcome)
                .setExecutionId(executionId).setAtMs(nowMs).setEveryOccurrence(everyOccurrence).setNominalAtMs(nominalAtMs).build();
    }

    private static byte[] key(byte space, String taskId) {
        byte[] id = taskId.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(1 + id.length).put(space).put(id).array();
    }

    private static byte[] sweepKey(String upstream) {
        return key(SWEEP, upstream);
    }

    /** 'd' + 2-byte length + upstream: one upstream's subscribers form one contiguous range. */
    private static byte[] subscriberPrefix(String upstream) {
        return prefix(SUBSCRIBER, upstream);
    }

    private static byte[] prefix(byte space, String upstream) {
        byte[] id = upstream.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(3 + id.length).put(space).putShort((short) id.length).put(id).array();
    }

    private static Bytes key(byte space, String upstream, String dependent) {
        byte[] prefix = prefix(space, upstream);
        byte[] id = dependent.getBytes(StandardCharsets.UTF_8);
        return Bytes.wrap(ByteBuffer.allocate(prefix.length + id.length).put(prefix).put(id).array());
    }

    private static Bytes subscriberKey(String upstream, String dependent) {
        byte[] prefix = subscriberPrefix(upstream);
        byte[] id = dependent.getBytes(StandardCharsets.UTF_8);
        return Bytes.wrap(ByteBuffer.allocate(prefix.length + id.length).put(prefix).put(id).array());
    }

    private static Bytes purgedByTimeKey(long purgedAtMs, String taskId) {
        byte[] id = taskId.getBytes(StandardCharsets.UTF_8);
        return Bytes.wrap(ByteBuffer.allocate(1 + Long.BYTES + id.length).put(PURGED_BY_TIME).putLong(Math.max(0, purgedAtMs)).put(id).array());
    }

    /** The prefix followed by 0xFF, which no UTF-8 text contains: the inclusive end of the prefix's range. */
    private static byte[] withFf(byte[] prefix) {
        byte[] end = java.util.Arrays.copyOf(prefix, prefix.length + 1);
        end[prefix.length] = (byte) 0xFF;
        return end;
    }

    private record Sweep(byte mode, String outcome, String executionId, String cursor) {
    }

    private record OccurrenceSweep(String outcome, String executionId, long nominalAtMs, String cursor) {
    }

    private static byte[] encodeOccurrenceSweep(String outcome, String executionId, long nominalAtMs, String cursor) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeUTF(outcome);
            out.writeUTF(executionId == null ? "" : executionId);
            out.writeLong(nominalAtMs);
            out.writeUTF(cursor);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private static OccurrenceSweep decodeOccurrenceSweep(byte[] value) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(value))) {
            String outcome = in.readUTF();
            String executionId = in.readUTF();
            return new OccurrenceSweep(outcome, executionId.isEmpty() ? null : executionId, in.readLong(), in.readUTF());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] encodeSweep(byte mode, String outcome, String executionId, String cursor) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(mode);
            out.writeUTF(outcome);
            out.writeUTF(executionId == null ? "" : executionId);
            out.writeUTF(cursor);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private static Sweep decodeSweep(byte[] value) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(value))) {
            byte mode = in.readByte();
            String outcome = in.readUTF();
            String executionId = in.readUTF();
            return new Sweep(mode, outcome, executionId.isEmpty() ? null : executionId, in.readUTF());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
