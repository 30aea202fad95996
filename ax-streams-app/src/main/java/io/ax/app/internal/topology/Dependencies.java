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
 * </pre>
 *
 * The dependent's side is pure ({@code AwaitDependencies} in the core). Everything here runs inside the stream task's
 * exactly-once transactions with the signals it writes to ax.deps, so a restart neither loses nor repeats one. A
 * task that ends owes as many notifications as it has subscribers: {@link #sweep} sends at most a bounded batch per
 * call, so a fan-out of any size never makes one step unbounded. Not thread-safe (one stream task owns it).
 */
final class Dependencies {
    private static final byte SUBSCRIBER = 'd';
    private static final byte SWEEP = 'n';
    private static final byte PURGED = 'p';
    private static final byte PURGED_BY_TIME = 'P';
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
    /** Where the last tombstone expiry stopped: the next starts there, not over the tombstones it deleted. */
    private Bytes expiredUpTo = Bytes.wrap(new byte[] {PURGED_BY_TIME});

    Dependencies(KeyValueStore<Bytes, byte[]> store, TaskStore tasks, Outputs outputs, long retentionMs) {
        this.store = store;
        this.tasks = tasks;
        this.outputs = outputs;
        this.retentionMs = retentionMs;
    }

    // ---- from this partition's decisions ----

    /** The dependent (this partition's task) asks upstream's partition for its final state. */
    void subscribe(String upstream, String dependent, long nowMs) {
        signal(upstream, signal(DependencySignalKind.SUBSCRIBE, upstream, dependent, null, null, nowMs));
    }

    void unsubscribe(String upstream, String dependent, long nowMs) {
        signal(upstream, signal(DependencySignalKind.UNSUBSCRIBE, upstream, dependent, null, null, nowMs));
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
    void onSubscribe(String upstream, String dependent, long nowMs) {
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

    void onUnsubscribe(String upstream, String dependent) {
        store.delete(subscriberKey(upstream, dependent));
    }

    // ---- from the punctuator ----

    /**
     * Sends (or, after a purge, drops) up to {@code budget} owed notifications, oldest sweep first by upstream id; a
     * sweep cut short goes on from its cursor at the next call. Returns how many were handled.
     */
    int sweep(long nowMs, int budget) {
        loadOwed();
        int handled = 0;
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
        signal(dependent, signal(DependencySignalKind.NOTIFY, upstream, dependent, outcome, executionId, nowMs));
    }

    private void signal(String key, DependencySignal signal) {
        outputs.deps(key, signal);
    }

    private static DependencySignal signal(DependencySignalKind kind, String upstream, String dependent, String outcome,
                                           String executionId, long nowMs) {
        return DependencySignal.newBuilder().setKind(kind).setUpstream(upstream).setDependent(dependent).setOutcome(outcome)
                .setExecutionId(executionId).setAtMs(nowMs).build();
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
        byte[] id = upstream.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(3 + id.length).put(SUBSCRIBER).putShort((short) id.length).put(id).array();
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
