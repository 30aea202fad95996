package io.ax.app.internal.core;

import io.ax.schema.DependencySignal;
import io.ax.schema.StoredTask;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The upstream side of dependencies in memory for the core's tests, decided by the real {@link DependencyRules}: the
 * subscribers, the sweeps owed (in the order they were owed), the tombstones, as {@code topology.Dependencies} keeps them
 * in its store, and ax.deps itself, one queue per key, as Kafka keeps a key's records in order. The task rules read it as
 * they decide ({@code Rules} given it as their {@link DependencyRules.Reads}, as the adapter gives them its store);
 * {@link #apply} does with a decision's dependency effects what {@code ApplyDecisions} does; {@link #sweep} is a punctuation's step ({@link
 * #sweepStep} and {@link #occurrenceSweepStep} one upstream's), {@link #expireTombstones} the tombstones' expiry; the test
 * takes the signals from {@link #take} and hands each to its task's rules when it likes. The store's maps are open to
 * the tests that set a scene or look at it ({@code DependencyRulesTest}); {@link #done} and {@link #forgotten} record
 * what the rules ended. Not thread-safe.
 */
final class MemoryDependencies implements DependencyRules.Reads, DependencyRules.Effects {
    /** A record on ax.deps. */
    record Signal(String key, DependencySignal signal) {
        /** One line for assertions: {@code key KIND upstream->dependent [outcome] [executionId] [@nominalAtMs] [every]}. */
        String line() {
            return key + " " + signal.getKind() + " " + signal.getUpstream() + "->" + signal.getDependent()
                    + (signal.getOutcome() == null ? "" : " " + signal.getOutcome())
                    + (signal.getExecutionId() == null ? "" : " " + signal.getExecutionId())
                    + (signal.getNominalAtMs() == null ? "" : " @" + signal.getNominalAtMs())
                    + (signal.getEveryOccurrence() ? " every" : "");
        }
    }

    private final Function<String, StoredTask> tasks;
    final Map<String, TreeSet<String>> subscribers = new TreeMap<>();
    final Map<String, TreeSet<String>> occurrenceSubscribers = new TreeMap<>();
    /** upstream → its sweep, in the order owed (a newer sweep goes to the back). */
    final LinkedHashMap<String, Sweep> sweeps = new LinkedHashMap<>();
    final LinkedHashMap<String, OccurrenceSweep> occurrenceSweeps = new LinkedHashMap<>();
    final Map<String, Long> tombstones = new HashMap<>();
    /** ax.deps: each key's records not yet read, oldest first. */
    private final LinkedHashMap<String, ArrayDeque<DependencySignal>> inFlight = new LinkedHashMap<>();
    /** Every signal written to ax.deps, in order. */
    final List<Signal> sent = new ArrayList<>();
    /** The upstreams whose final-state sweep was done, in order. */
    final List<String> done = new ArrayList<>();
    /** The tombstones forgotten ({@code upstream@purgedAtMs}), in order. */
    final List<String> forgotten = new ArrayList<>();

    /** @param tasks the stored task of an upstream, or null (read as the store holds it at each decision) */
    MemoryDependencies(Function<String, StoredTask> tasks) {
        this.tasks = tasks;
    }

    /**
     * The dependency effects of {@code decision}, applied as the adapter applies them: as they are, nothing decided here
     * (the rules that made the decision read this object as they decided it, as the task rules read the adapter's store).
     */
    void apply(Decision decision) {
        for (Effect effect : decision.effects()) {
            if (effect instanceof Effect.KeepSubscriber keep) {
                keepSubscriber(keep.upstream(), keep.dependent(), keep.everyOccurrence());
            } else if (effect instanceof Effect.ForgetSubscriber forget) {
                forgetSubscriber(forget.upstream(), forget.dependent(), forget.everyOccurrence());
            } else if (effect instanceof Effect.Signal signal) {
                send(signal.key(), signal.signal());
            } else if (effect instanceof Effect.OweSweep owe) {
                oweSweep(owe.upstream(), owe.sweep());
            } else if (effect instanceof Effect.OweOccurrenceSweep owe) {
                oweOccurrenceSweep(owe.upstream(), owe.sweep());
            } else if (effect instanceof Effect.LeaveTombstone tombstone) {
                tombstone(tombstone.upstream(), tombstone.purgedAtMs());
            } else if (effect instanceof Effect.ForgetTombstone forget) {
                forgetTombstone(forget.upstream(), forget.purgedAtMs());
            }
        }
    }

    /**
     * One punctuation's sweep, as the adapter runs it ({@link DependencyRules#sweep}: up to {@code budget} subscribers
     * told or dropped, in the rules' order). Returns how many were handled.
     */
    int sweep(long nowMs, int budget) {
        return DependencyRules.sweep(nowMs, budget, owed, this, this);
    }

    /** The sweeps owed, in the order owed: here the markers' maps are the lists too (a done sweep has left them already). */
    private final DependencyRules.Owed owed = new DependencyRules.Owed() {
        @Override
        public Iterator<String> occurrenceSweeps() {
            return owedIn(occurrenceSweeps);
        }

        @Override
        public Iterator<String> sweeps() {
            return owedIn(sweeps);
        }

        @Override
        public OccurrenceSweep occurrenceSweep(String upstream) {
            return occurrenceSweeps.get(upstream);
        }

        @Override
        public List<String> subscribersAfter(String upstream, boolean everyOccurrence, String cursor, int limit) {
            return after(everyOccurrence ? occurrenceSubscribers : subscribers, upstream, cursor, limit);
        }
    };

    /** The keys of {@code markers} as they are now; remove() takes the last one returned out of the map. */
    private static Iterator<String> owedIn(Map<String, ?> markers) {
        Iterator<String> keys = List.copyOf(markers.keySet()).iterator();
        return new Iterator<>() {
            private String last;

            @Override
            public boolean hasNext() {
                return keys.hasNext();
            }

            @Override
            public String next() {
                last = keys.next();
                return last;
            }

            @Override
            public void remove() {
                markers.remove(last);
            }
        };
    }

    /** One step of the sweep owed over {@code upstream}'s final-state subscribers: the adapter lists what follows the cursor. */
    int sweepStep(String upstream, int budget, long nowMs) {
        Sweep sweep = sweeps.get(upstream);
        return DependencyRules.sweepStep(upstream, sweep, after(subscribers, upstream, sweep.cursor(), budget + 1), budget, nowMs,
                this, this);
    }

    /** One step of the sweep owed over {@code upstream}'s periodic subscribers. */
    int occurrenceSweepStep(String upstream, int budget, long nowMs) {
        OccurrenceSweep sweep = occurrenceSweeps.get(upstream);
        return DependencyRules.occurrenceSweepStep(upstream, sweep, after(occurrenceSubscribers, upstream, sweep.cursor(), budget + 1),
                budget, nowMs, this);
    }

    /** The tombstones' expiry at {@code nowMs}, at most {@code batch} of them, as the adapter runs it; returns how many went. */
    int expireTombstones(long nowMs, long retentionMs, int batch) {
        return DependencyRules.expireTombstones(nowMs, retentionMs, batch, this, this);
    }

    /** Every signal written to ax.deps, as {@link Signal#line}s. */
    List<String> sentLines() {
        return sent.stream().map(Signal::line).toList();
    }

    /** The oldest record not yet read of one of the keys that have one ({@code pick} chooses which), or none. */
    Optional<Signal> take(int pick) {
        if (inFlight.isEmpty()) {
            return Optional.empty();
        }
        List<String> keys = List.copyOf(inFlight.keySet());
        String key = keys.get(pick % keys.size());
        ArrayDeque<DependencySignal> records = inFlight.get(key);
        DependencySignal signal = records.poll();
        if (records.isEmpty()) {
            inFlight.remove(key);
        }
        return Optional.of(new Signal(key, signal));
    }

    /** Whether a sweep is still owed to anyone. */
    boolean sweepOwed() {
        return !sweeps.isEmpty() || !occurrenceSweeps.isEmpty();
    }

    private static List<String> after(Map<String, TreeSet<String>> keys, String upstream, String cursor, int limit) {
        TreeSet<String> all = keys.getOrDefault(upstream, new TreeSet<>());
        return (cursor.isEmpty() ? all : all.tailSet(cursor, false)).stream().limit(limit).toList();
    }

    // ---- the rules' reads ----

    @Override
    public StoredTask task(String upstream) {
        StoredTask task = tasks.apply(upstream);
        return task == null ? null : StoredTask.newBuilder(task).build();
    }

    @Override
    public boolean hasSubscribers(String upstream) {
        return subscribers.containsKey(upstream);
    }

    @Override
    public boolean mayHaveOccurrenceSubscribers(String upstream) {
        return occurrenceSubscribers.containsKey(upstream);
    }

    @Override
    public Sweep sweep(String upstream) {
        return sweeps.get(upstream);
    }

    @Override
    public Long purgedAtMs(String upstream) {
        return tombstones.get(upstream);
    }

    @Override
    public List<DependencyRules.Tombstone> tombstonesPurgedBefore(long purgedBeforeMs, int limit) {
        return tombstones.entrySet().stream().filter(e -> e.getValue() < purgedBeforeMs)
                .map(e -> new DependencyRules.Tombstone(e.getKey(), e.getValue()))
                .sorted(Comparator.comparingLong(DependencyRules.Tombstone::purgedAtMs).thenComparing(DependencyRules.Tombstone::upstream))
                .limit(limit).toList();
    }

    // ---- the rules' effects ----

    @Override
    public void send(String key, DependencySignal signal) {
        sent.add(new Signal(key, signal));
        inFlight.computeIfAbsent(key, k -> new ArrayDeque<>()).add(signal);
    }

    @Override
    public void keepSubscriber(String upstream, String dependent, boolean everyOccurrence) {
        (everyOccurrence ? occurrenceSubscribers : subscribers).computeIfAbsent(upstream, u -> new TreeSet<>()).add(dependent);
    }

    @Override
    public void forgetSubscriber(String upstream, String dependent, boolean everyOccurrence) {
        Map<String, TreeSet<String>> keys = everyOccurrence ? occurrenceSubscribers : subscribers;
        TreeSet<String> set = keys.get(upstream);
        if (set != null && set.remove(dependent) && set.isEmpty()) {
            keys.remove(upstream);
        }
    }

    @Override
    public void oweSweep(String upstream, Sweep sweep) {
        sweeps.remove(upstream);
        sweeps.put(upstream, sweep);
    }

    @Override
    public void continueSweep(String upstream, Sweep sweep) {
        sweeps.put(upstream, sweep);
    }

    @Override
    public void sweepDone(String upstream) {
        sweeps.remove(upstream);
        done.add(upstream);
    }

    @Override
    public void oweOccurrenceSweep(String upstream, OccurrenceSweep sweep) {
        occurrenceSweeps.remove(upstream);
        occurrenceSweeps.put(upstream, sweep);
    }

    @Override
    public void continueOccurrenceSweep(String upstream, OccurrenceSweep sweep) {
        occurrenceSweeps.put(upstream, sweep);
    }

    @Override
    public void occurrenceSweepDone(String upstream) {
        occurrenceSweeps.remove(upstream);
    }

    @Override
    public void tombstone(String upstream, long purgedAtMs) {
        tombstones.put(upstream, purgedAtMs);
    }

    @Override
    public void forgetTombstone(String upstream, long purgedAtMs) {
        tombstones.remove(upstream);
        forgotten.add(upstream + "@" + purgedAtMs);
    }
}
