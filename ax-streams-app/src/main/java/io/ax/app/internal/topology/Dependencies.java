package io.ax.app.internal.topology;

import io.ax.app.internal.core.DependencyRules;
import io.ax.app.internal.core.OccurrenceSweep;
import io.ax.app.internal.core.Sweep;
import io.ax.app.internal.core.Sweep.Mode;
import io.ax.app.internal.store.TaskStore;
import io.ax.schema.DependencySignal;
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
 * <p>The decisions are {@link DependencyRules} in the core (what a subscription, an end, a purge and each step of a
 * sweep release, record and send), as the dependent's side is ({@code AwaitDependencies}, {@code OccurrenceDependencies}).
 * This class is their adapter: it reads the store for them ({@link #reads}: the task rules read it too, as they decide
 * what a task's end, purge or new schedule request owes here), walks the key ranges, calls the sweep and the expiry,
 * and applies the rules' effects (a task decision's through {@code ApplyDecisions}, which decides nothing) to the store,
 * to the in-memory lists of what is owed and to ax.deps, and runs the tombstones' expiry at most
 * once a minute (which tombstones have expired is the rules' to say). The sweep walks what is owed in the rules' order
 * ({@link DependencyRules#sweep}); here only the lists it walks, kept in memory so that no sweep range-scans its markers.
 * Everything here runs inside the stream task's exactly-once transactions with the signals it writes to ax.deps, so a
 * restart neither loses nor repeats one. A task that ends owes as many notifications as it has subscribers:
 * {@link #sweep} sends at most a bounded batch per call, so a fan-out of any size never makes one step unbounded. Not
 * thread-safe (one stream task owns it).
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
    /** How often expired tombstones of purged tasks are removed, ms. */
    private static final long TOMBSTONE_EXPIRY_EVERY_MS = 60_000;
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
    /** When {@link #maybeExpireTombstones} next runs {@link #expireTombstones}. */
    private long nextTombstoneExpiryMs = Long.MIN_VALUE;

    Dependencies(KeyValueStore<Bytes, byte[]> store, TaskStore tasks, Outputs outputs, long retentionMs) {
        this.store = store;
        this.tasks = tasks;
        this.outputs = outputs;
        this.retentionMs = retentionMs;
    }

    // ---- the effects of this partition's decisions, as the rules decided them ----

    /** A subscription's decision ({@link DependencyRules#subscription}). */
    void keepSubscriber(String upstream, String dependent, boolean everyOccurrence) {
        effects.keepSubscriber(upstream, dependent, everyOccurrence);
    }

    void forgetSubscriber(String upstream, String dependent, boolean everyOccurrence) {
        effects.forgetSubscriber(upstream, dependent, everyOccurrence);
    }

    /** A task's end or purge ({@link DependencyRules#finished}, {@link DependencyRules#purged}). */
    void oweSweep(String upstream, Sweep sweep) {
        effects.oweSweep(upstream, sweep);
    }

    /** An occurrence's end ({@link DependencyRules#occurrenceEnded}). */
    void oweOccurrenceSweep(String upstream, OccurrenceSweep sweep) {
        effects.oweOccurrenceSweep(upstream, sweep);
    }

    /** A purge ({@link DependencyRules#purged}). */
    void tombstone(String upstream, long purgedAtMs) {
        effects.tombstone(upstream, purgedAtMs);
    }

    /** A schedule request accepted under a purged task's id ({@link DependencyRules#scheduledAgain}). */
    void forgetTombstone(String upstream, long purgedAtMs) {
        effects.forgetTombstone(upstream, purgedAtMs);
    }

    /**
     * What the rules read of this partition's dependency side as they decide a task's input: the tombstones a subscription
     * reads, and what a task's end, purge or new schedule request reads (its subscribers, its owed sweep, its tombstone).
     */
    DependencyRules.Reads reads() {
        return reads;
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

    // ---- from the punctuator ----

    /**
     * One punctuation's sweep ({@link DependencyRules#sweep}): up to {@code budget} owed notifications sent (or, after a
     * purge, subscriptions dropped), in the order the rules walk the sweeps owed. Returns how many were handled.
     */
    int sweep(long nowMs, int budget) {
        loadOwed();
        loadEveryOccurrence();
        return DependencyRules.sweep(nowMs, budget, owedSweeps, reads, effects);
    }

    /** The sweeps owed, as the rules walk them: the in-memory lists, the markers and subscribers in the store. */
    private final DependencyRules.Owed owedSweeps = new DependencyRules.Owed() {
        @Override
        public java.util.Iterator<String> occurrenceSweeps() {
            return owedOccurrences.iterator();
        }

        @Override
        public java.util.Iterator<String> sweeps() {
            return owed.iterator();
        }

        @Override
        public OccurrenceSweep occurrenceSweep(String upstream) {
            byte[] marker = store.get(Bytes.wrap(key(OCCURRENCE_SWEEP, upstream)));
            return marker == null ? null : decodeOccurrenceSweep(marker);
        }

        @Override
        public List<String> subscribersAfter(String upstream, boolean everyOccurrence, String cursor, int limit) {
            return Dependencies.this.subscribersAfter(everyOccurrence ? OCCURRENCE_SUBSCRIBER : SUBSCRIBER, upstream, cursor, limit);
        }
    };

    /** Up to {@code limit} subscribers of {@code upstream} in key space {@code space} after {@code cursor}, in key order. */
    private List<String> subscribersAfter(byte space, String upstream, String cursor, int limit) {
        List<String> next = new ArrayList<>();
        byte[] prefix = prefix(space, upstream);
        Bytes from = cursor.isEmpty() ? Bytes.wrap(prefix) : key(space, upstream, cursor);
        try (KeyValueIterator<Bytes, byte[]> it = store.range(from, Bytes.wrap(withFf(prefix)))) {
            while (it.hasNext() && next.size() < limit) {
                byte[] key = it.next().key.get();
                String dependent = new String(key, prefix.length, key.length - prefix.length, StandardCharsets.UTF_8);
                if (!dependent.equals(cursor)) { // the cursor was handled by the previous call
                    next.add(dependent);
                }
            }
        }
        return next;
    }

    // ---- what the rules read, and their effects ----

    /** The rules' reads: the task store, this store's keys, and what is kept of them in memory. */
    private final DependencyRules.Reads reads = new DependencyRules.Reads() {
        @Override
        public StoredTask task(String upstream) {
            return tasks.get(upstream);
        }

        @Override
        public boolean hasSubscribers(String upstream) {
            if (!anySubscriber()) {
                return false; // no subscription on this partition: a finished task costs no seek
            }
            byte[] prefix = subscriberPrefix(upstream);
            try (KeyValueIterator<Bytes, byte[]> it = store.range(Bytes.wrap(prefix), Bytes.wrap(withFf(prefix)))) {
                return it.hasNext();
            }
        }

        @Override
        public boolean mayHaveOccurrenceSubscribers(String upstream) {
            loadEveryOccurrence();
            return everyOccurrence.contains(upstream);
        }

        @Override
        public Sweep sweep(String upstream) {
            byte[] marker = store.get(Bytes.wrap(sweepKey(upstream)));
            return marker == null ? null : decodeSweep(marker);
        }

        @Override
        public Long purgedAtMs(String upstream) {
            byte[] purgedAt = store.get(Bytes.wrap(key(PURGED, upstream)));
            return purgedAt == null ? null : ByteBuffer.wrap(purgedAt).getLong();
        }

        /** From where the last read stopped ({@link #expiredUpTo}), in the time order of the 'P' keys. */
        @Override
        public List<DependencyRules.Tombstone> tombstonesPurgedBefore(long purgedBeforeMs, int limit) {
            Bytes to = purgedByTimeKey(purgedBeforeMs, ""); // inclusive, but without an id it sorts before that millisecond's keys
            if (expiredUpTo.compareTo(to) > 0) {
                return List.of();
            }
            List<DependencyRules.Tombstone> tombstones = new ArrayList<>();
            try (KeyValueIterator<Bytes, byte[]> it = store.range(expiredUpTo, to)) {
                while (it.hasNext() && tombstones.size() < limit) {
                    Bytes key = it.next().key;
                    byte[] bytes = key.get();
                    String upstream = new String(bytes, 1 + Long.BYTES, bytes.length - 1 - Long.BYTES, StandardCharsets.UTF_8);
                    tombstones.add(new DependencyRules.Tombstone(upstream, ByteBuffer.wrap(bytes, 1, Long.BYTES).getLong()));
                    expiredUpTo = key;
                }
            }
            return tombstones;
        }
    };

    /** The rules' effects, applied to this store, the in-memory lists of what is owed, and ax.deps. */
    private final DependencyRules.Effects effects = new DependencyRules.Effects() {
        @Override
        public void send(String key, DependencySignal signal) {
            outputs.deps(key, signal);
        }

        @Override
        public void keepSubscriber(String upstream, String dependent, boolean periodic) {
            if (periodic) {
                loadEveryOccurrence();
                store.put(key(OCCURRENCE_SUBSCRIBER, upstream, dependent), EMPTY);
                everyOccurrence.add(upstream);
            } else {
                store.put(subscriberKey(upstream, dependent), EMPTY);
                anySubscriber = true;
            }
        }

        @Override
        public void forgetSubscriber(String upstream, String dependent, boolean periodic) {
            store.delete(periodic ? key(OCCURRENCE_SUBSCRIBER, upstream, dependent) : subscriberKey(upstream, dependent));
        }

        @Override
        public void oweSweep(String upstream, Sweep sweep) {
            store.put(Bytes.wrap(sweepKey(upstream)), encodeSweep(sweep));
            loadOwed();
            owed.remove(upstream); // a newer sweep (a replay's outcome) goes to the back
            owed.add(upstream);
        }

        @Override
        public void continueSweep(String upstream, Sweep sweep) {
            store.put(Bytes.wrap(sweepKey(upstream)), encodeSweep(sweep));
        }

        @Override
        public void sweepDone(String upstream) {
            store.delete(Bytes.wrap(sweepKey(upstream))); // the rules take it off the owed list (DependencyRules.Owed)
        }

        @Override
        public void oweOccurrenceSweep(String upstream, OccurrenceSweep sweep) {
            store.put(Bytes.wrap(key(OCCURRENCE_SWEEP, upstream)), encodeOccurrenceSweep(sweep));
            owedOccurrences.remove(upstream); // restarts from the first subscriber, at the back
            owedOccurrences.add(upstream);
        }

        @Override
        public void continueOccurrenceSweep(String upstream, OccurrenceSweep sweep) {
            store.put(Bytes.wrap(key(OCCURRENCE_SWEEP, upstream)), encodeOccurrenceSweep(sweep));
        }

        @Override
        public void occurrenceSweepDone(String upstream) {
            store.delete(Bytes.wrap(key(OCCURRENCE_SWEEP, upstream)));
        }

        @Override
        public void tombstone(String upstream, long purgedAtMs) {
            store.put(Bytes.wrap(key(PURGED, upstream)), ByteBuffer.allocate(Long.BYTES).putLong(purgedAtMs).array());
            store.put(purgedByTimeKey(purgedAtMs, upstream), EMPTY);
        }

        @Override
        public void forgetTombstone(String upstream, long purgedAtMs) {
            store.delete(Bytes.wrap(key(PURGED, upstream)));
            store.delete(purgedByTimeKey(purgedAtMs, upstream));
        }
    };

    /**
     * Whether this partition has held a subscription since it was assigned: one seek per assignment, then set by
     * keeping a subscriber (never cleared, so a false is always true: no subscriber key exists).
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

    /**
     * {@link #expireTombstones} at most once a minute (the first call of an assignment runs it): a purged task's tombstone
     * outlives its retention by at most that.
     */
    void maybeExpireTombstones(long nowMs) {
        if (nowMs >= nextTombstoneExpiryMs) {
            nextTombstoneExpiryMs = nowMs + TOMBSTONE_EXPIRY_EVERY_MS;
            expireTombstones(nowMs);
        }
    }

    /** One step of the tombstones' expiry ({@link DependencyRules#expireTombstones}): the rules say which go. */
    void expireTombstones(long nowMs) {
        DependencyRules.expireTombstones(nowMs, retentionMs, EXPIRE_BATCH, reads, effects);
    }

    // ---- wire and keys ----

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

    private static byte[] encodeOccurrenceSweep(OccurrenceSweep sweep) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeUTF(sweep.outcome());
            out.writeUTF(sweep.executionId() == null ? "" : sweep.executionId());
            out.writeLong(sweep.nominalAtMs());
            out.writeUTF(sweep.cursor());
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

    private static byte[] encodeSweep(Sweep sweep) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(sweep.mode() == Mode.NOTIFY ? NOTIFY : DROP);
            out.writeUTF(sweep.outcome());
            out.writeUTF(sweep.executionId() == null ? "" : sweep.executionId());
            out.writeUTF(sweep.cursor());
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
            return new Sweep(mode == NOTIFY ? Mode.NOTIFY : Mode.DROP, outcome, executionId.isEmpty() ? null : executionId, in.readUTF());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
