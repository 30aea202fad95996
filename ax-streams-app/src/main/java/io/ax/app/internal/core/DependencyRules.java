package io.ax.app.internal.core;

import io.ax.InvalidRequestException;
import io.ax.app.internal.core.Sweep.Mode;
import io.ax.schema.DependencySignal;
import io.ax.schema.DependencySignalKind;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;
import io.ax.validation.Quote;
import io.ax.validation.ScheduleValidator;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The decisions of the upstream side of task dependencies (topology-docs/WORKFLOWS.md), on the partition of a task that
 * others wait for, a pure function of what they read and the message: who subscribes, what is owed to subscribers when
 * the task ends or one of its occurrences ends, the tombstone of a purged task and when it expires, and what each step
 * of the bounded sweep sends or drops. The dependent's side is {@link AwaitDependencies} (a task that waits once) and
 * {@link OccurrenceDependencies} (a periodic task's occurrences).
 *
 * <p>Shaped like {@link GateRules}: the rules read the upstream's task, its subscriptions, owed sweep and tombstone
 * through {@link Reads}. What a task's own decision owes here (an occurrence ended, the task finished or purged, a
 * schedule request accepted under its id) is decided with that decision, by the task rules ({@link Step} calls
 * {@link #occurrenceEnded}, {@link #finished}, {@link #purged}, {@link #scheduledAgain} as the transition says so), into
 * {@link TaskEffects} that the {@link Decision} carries as plain effects; the sweep and the tombstones' expiry, run by the
 * punctuator, hand every effect to {@link Effects} at once (a later read sees it). {@code topology.Dependencies} only
 * reads its store for them and applies the effects (store keys, the signals on ax.deps). No I/O, no clock, no Kafka types.
 * The reads are asked lazily, in the order a decision needs them, so a task nobody waits for costs no store read.
 *
 * <p>A task's decision makes its reads before any of its effects is applied, so none of those four may read what
 * another of them in the same decision writes; none does: {@link #occurrenceEnded} and {@link #finished} read the
 * subscribers, which only a subscription's decision writes; {@link #purged} reads the owed sweep, which only
 * {@link #finished} writes, and a purge deletes a task that finished in an earlier decision; {@link #scheduledAgain} reads
 * the tombstone, which a purge writes (never with an accepted request) and it forgets, called once per accepted request.
 */
public final class DependencyRules {
    /** The outcome a subscriber of a purged task is told (a condition never met). */
    public static final String PURGED = AwaitDependencies.PURGED;

    private DependencyRules() {
    }

    /** What is left of a purged task, {@code upstream}, purged at {@code purgedAtMs}: it answers later subscribers PURGED. */
    public record Tombstone(String upstream, long purgedAtMs) {
    }

    /** The tombstones of this partition's purged tasks, as a subscription reads them. */
    public interface Tombstones {
        /** When {@code upstream} was purged (its tombstone), or null. */
        Long purgedAtMs(String upstream);
    }

    /** What the rules read on the upstream's partition. */
    public interface Reads extends Tombstones {
        /** The upstream task, or null. */
        StoredTask task(String upstream);

        /** Whether {@code upstream} has a final-state subscriber. */
        boolean hasSubscribers(String upstream);

        /** Whether {@code upstream} may have a periodic subscriber (true may be a stale yes; false is exact). */
        boolean mayHaveOccurrenceSubscribers(String upstream);

        /** The sweep owed over {@code upstream}'s final-state subscribers, or null. */
        Sweep sweep(String upstream);

        /**
         * The tombstones of the tasks purged before {@code purgedBeforeMs}, oldest first, at most {@code limit}. Each one
         * returned is forgotten at once ({@link #expireTombstones}), so a reader may start its next read after the last
         * one it returned rather than walk over deleted keys again.
         */
        List<Tombstone> tombstonesPurgedBefore(long purgedBeforeMs, int limit);
    }

    /**
     * The sweeps owed on the upstream's partition, as the adapter lists them (in memory, from the store's markers), and
     * the subscribers a step walks: what {@link #sweep} reads.
     */
    public interface Owed {
        /**
         * The upstreams owed an occurrence sweep, the oldest owed first. {@link Iterator#remove} takes the last one returned
         * off the list: its sweep is done, or its marker is gone (the list is memory; the marker goes by an effect).
         */
        Iterator<String> occurrenceSweeps();

        /** The upstreams owed a final-state sweep, the oldest owed first; {@link Iterator#remove} as above. */
        Iterator<String> sweeps();

        /** The sweep owed over {@code upstream}'s periodic subscribers (its marker), or null. */
        OccurrenceSweep occurrenceSweep(String upstream);

        /**
         * Up to {@code limit} subscribers of {@code upstream} (its periodic ones when {@code everyOccurrence}) after
         * {@code cursor} (empty: from the first), in key order.
         */
        List<String> subscribersAfter(String upstream, boolean everyOccurrence, String cursor, int limit);
    }

    /** Where a subscription's effects go ({@link #onSignal}). */
    public interface SubscriptionEffects {
        /** A dependency signal on ax.deps, keyed by {@code key}. */
        void send(String key, DependencySignal signal);

        /** {@code dependent} is kept as a subscriber of {@code upstream} (of every occurrence, or of its final state). */
        void keepSubscriber(String upstream, String dependent, boolean everyOccurrence);

        void forgetSubscriber(String upstream, String dependent, boolean everyOccurrence);
    }

    /**
     * What a task's own decision leaves on its partition's dependency side ({@link #occurrenceEnded}, {@link #finished},
     * {@link #purged}, {@link #scheduledAgain}): the rules call these as they decide, and the decision carries each as an
     * {@link Effect} ({@link Effect.OweSweep}, {@link Effect.OweOccurrenceSweep}, {@link Effect.LeaveTombstone},
     * {@link Effect.ForgetTombstone}) that the adapter applies without deciding anything.
     */
    public interface TaskEffects {
        /** A new sweep over {@code upstream}'s subscribers is owed (after those owed before it). */
        void oweSweep(String upstream, Sweep sweep);

        /** A new sweep over {@code upstream}'s periodic subscribers is owed; it replaces one still going out. */
        void oweOccurrenceSweep(String upstream, OccurrenceSweep sweep);

        /** {@code upstream} was purged at {@code purgedAtMs}: its tombstone answers later subscribers. */
        void tombstone(String upstream, long purgedAtMs);

        /** {@code upstream}'s tombstone, written at {@code purgedAtMs}, goes. */
        void forgetTombstone(String upstream, long purgedAtMs);
    }

    /** Where the rules' effects go; each is applied when handed over (a later read of the sweep or the expiry sees it). */
    public interface Effects extends SubscriptionEffects, TaskEffects {
        /** {@code upstream}'s sweep, cut short or turned into a DROP, goes on at the next call, from its cursor. */
        void continueSweep(String upstream, Sweep sweep);

        void sweepDone(String upstream);

        void continueOccurrenceSweep(String upstream, OccurrenceSweep sweep);

        void occurrenceSweepDone(String upstream);
    }

    /**
     * Reads of a partition where nothing was ever subscribed to or purged: for the rules of tests and tools that decide no
     * dependency ({@code Rules(settings, calendars, flow)}).
     */
    public static final Reads NONE = new Reads() {
        @Override
        public StoredTask task(String upstream) {
            return null;
        }

        @Override
        public boolean hasSubscribers(String upstream) {
            return false;
        }

        @Override
        public boolean mayHaveOccurrenceSubscribers(String upstream) {
            return false;
        }

        @Override
        public Sweep sweep(String upstream) {
            return null;
        }

        @Override
        public Long purgedAtMs(String upstream) {
            return null;
        }

        @Override
        public List<Tombstone> tombstonesPurgedBefore(long purgedBeforeMs, int limit) {
            return List.of();
        }
    };

    // ---- from this partition's decisions ----

    /**
     * An occurrence of this partition's task {@code upstream}, nominally due {@code nominalAtMs}, ended: its periodic
     * subscribers are owed its outcome (a newer occurrence's replaces an older one still going out: only the latest
     * outcome counts). Nothing for a task without one.
     */
    public static void occurrenceEnded(String upstream, String outcome, String executionId, long nominalAtMs, Reads reads,
                                       TaskEffects effects) {
        if (reads.mayHaveOccurrenceSubscribers(upstream)) {
            effects.oweOccurrenceSweep(upstream, new OccurrenceSweep(outcome, executionId, nominalAtMs, ""));
        }
    }

    /** This partition's task ended: its subscribers are owed its final state, if it has any. */
    public static void finished(String upstream, String outcome, String executionId, Reads reads, TaskEffects effects) {
        if (reads.hasSubscribers(upstream)) { // nobody waits (the common case): nothing owed; a later subscriber is answered from the task
            effects.oweSweep(upstream, new Sweep(Mode.NOTIFY, outcome, executionId, ""));
        }
    }

    /**
     * This partition's task was purged: its subscriptions go (by a DROP sweep), a tombstone answers later ones.
     * Notifications still owed go out first; that sweep then drops the subscriptions ({@link #sweepEnded}).
     */
    public static void purged(String upstream, long nowMs, Reads reads, TaskEffects effects) {
        Sweep owed = reads.sweep(upstream);
        if (owed == null ? reads.hasSubscribers(upstream) : owed.mode() != Mode.NOTIFY) {
            effects.oweSweep(upstream, Sweep.drop());
        }
        effects.tombstone(upstream, nowMs);
    }

    /** A task was scheduled under this id again: it is no longer purged. */
    public static void scheduledAgain(String taskId, Reads reads, TaskEffects effects) {
        Long purgedAtMs = reads.purgedAtMs(taskId);
        if (purgedAtMs != null) {
            effects.forgetTombstone(taskId, purgedAtMs);
        }
    }

    // ---- from ax.deps ----

    /**
     * The rules of a signal's own fields, checked before anything is read ({@link Rules#requireValid(String,
     * DependencySignal)}): both task ids valid, and the signal keyed by the task whose partition takes it, a NOTIFY by its
     * dependent, a SUBSCRIBE or UNSUBSCRIBE by its upstream.
     *
     * @param key the record's key
     * @throws InvalidRequestException naming the field
     */
    static void requireValid(String key, DependencySignal signal) {
        ScheduleValidator.validateTaskId(signal.getUpstream());
        ScheduleValidator.validateTaskId(signal.getDependent());
        String keyedBy = signal.getKind() == DependencySignalKind.NOTIFY ? signal.getDependent() : signal.getUpstream();
        if (!keyedBy.equals(key)) {
            throw new InvalidRequestException("taskId", signal.getKind() + " must be keyed by " + Quote.of(keyedBy) + ", not " + Quote.of(key));
        }
    }

    /**
     * The decision on a SUBSCRIBE or UNSUBSCRIBE read from ax.deps ({@link Rules#decide} routes it here): this partition's
     * task {@code upstream}, as stored ({@code task}, null when there is none), is unchanged; the effects keep or forget
     * the subscriber and may answer it at once ({@link Effect.KeepSubscriber}, {@link Effect.ForgetSubscriber},
     * {@link Effect.Signal}), applied by the one adapter like every decision's.
     *
     * @param endedIn the upstream's final state when it has ended (finished, and not live again), else null: read from the
     *                task by the caller ({@link Rules#decide}, through {@link Liveness}), as these rules are called by
     *                {@link Step}, which the helpers {@code Liveness} asks use: the core has no cycle
     */
    static Decision subscription(Input.Subscription input, StoredTask task, String endedIn, long nowMs, Tombstones tombstones) {
        List<Effect> effects = new ArrayList<>(2);
        onSignal(input.signal(), task, endedIn, nowMs, tombstones, new SubscriptionEffects() {
            @Override
            public void send(String key, DependencySignal signal) {
                effects.add(new Effect.Signal(key, signal));
            }

            @Override
            public void keepSubscriber(String upstream, String dependent, boolean everyOccurrence) {
                effects.add(new Effect.KeepSubscriber(upstream, dependent, everyOccurrence));
            }

            @Override
            public void forgetSubscriber(String upstream, String dependent, boolean everyOccurrence) {
                effects.add(new Effect.ForgetSubscriber(upstream, dependent, everyOccurrence));
            }
        });
        return new Decision(input.taskId(), Decision.Store.UNCHANGED, null, List.copyOf(effects));
    }

    /**
     * A SUBSCRIBE or UNSUBSCRIBE (keyed by the task waited for). A subscriber is kept, and answered at once when the
     * upstream has already ended (its final state reaches dependents that come after it ended, within its retention) or
     * was purged (PURGED, a condition never met; such a subscriber is not kept). A periodic subscriber is kept for the
     * upstream's life (and beyond: a task scheduled again under the id tells it too), and told at once the outcome of the
     * upstream's latest occurrence that ended, if any. {@code endedIn}: as {@link #subscription} says.
     */
    public static void onSignal(DependencySignal signal, StoredTask task, String endedIn, long nowMs, Tombstones tombstones,
                                SubscriptionEffects effects) {
        String upstream = signal.getUpstream();
        String dependent = signal.getDependent();
        boolean everyOccurrence = signal.getEveryOccurrence();
        switch (signal.getKind()) {
            case SUBSCRIBE -> {
                if (everyOccurrence) {
                    subscribeEveryOccurrence(upstream, dependent, task, nowMs, effects);
                } else {
                    subscribeFinalState(upstream, dependent, task, endedIn, nowMs, tombstones, effects);
                }
            }
            case UNSUBSCRIBE -> effects.forgetSubscriber(upstream, dependent, everyOccurrence);
            case NOTIFY -> throw new IllegalArgumentException("a NOTIFY is an input of the dependent's rules, not of its upstream's");
        }
    }

    private static void subscribeFinalState(String upstream, String dependent, StoredTask task, String endedIn, long nowMs,
                                            Tombstones tombstones, SubscriptionEffects effects) {
        if (task == null && tombstones.purgedAtMs(upstream) != null) {
            notify(upstream, dependent, PURGED, null, nowMs, effects);
            return;
        }
        effects.keepSubscriber(upstream, dependent, false);
        if (endedIn != null) {
            notify(upstream, dependent, endedIn, task.getExecution() == null ? null : task.getExecution().getExecutionId(), nowMs,
                    effects);
        }
    }

    private static void subscribeEveryOccurrence(String upstream, String dependent, StoredTask task, long nowMs,
                                                 SubscriptionEffects effects) {
        effects.keepSubscriber(upstream, dependent, true);
        StoredExecution last = task == null ? null : task.getExecution();
        if (last != null && (last.getState() == TaskState.SUCCESS || last.getState() == TaskState.FAILED
                || last.getState() == TaskState.CANCELLED)) {
            effects.send(dependent, DependencySignals.notify(upstream, dependent, last.getState().name(), last.getExecutionId(),
                    nowMs, last.getDueAtMs()));
        }
    }

    // ---- the sweep, from the punctuator ----

    /**
     * One punctuation's sweep: up to {@code budget} subscribers told or dropped, the occurrence sweeps first (a periodic
     * dependent waits on them each period), then the final-state sweeps, each list the oldest owed first; a sweep cut
     * short goes on from its cursor at the next call. An upstream whose sweep is done, or whose marker is gone, leaves
     * the list. Returns how many subscribers were handled.
     */
    public static int sweep(long nowMs, int budget, Owed owed, Reads reads, Effects effects) {
        int handled = 0;
        Iterator<String> upstreams = owed.occurrenceSweeps();
        while (upstreams.hasNext() && handled < budget) {
            String upstream = upstreams.next();
            OccurrenceSweep sweep = owed.occurrenceSweep(upstream);
            if (sweep == null) {
                upstreams.remove();
                continue;
            }
            List<String> next = owed.subscribersAfter(upstream, true, sweep.cursor(), budget - handled + 1);
            Stepped step = occurrenceStep(upstream, sweep, next, budget - handled, nowMs, effects);
            handled += step.handled();
            if (step.done()) {
                upstreams.remove();
            }
        }
        upstreams = owed.sweeps();
        while (upstreams.hasNext() && handled < budget) {
            String upstream = upstreams.next();
            Sweep sweep = reads.sweep(upstream);
            if (sweep == null) {
                upstreams.remove();
                continue;
            }
            List<String> next = owed.subscribersAfter(upstream, false, sweep.cursor(), budget - handled + 1);
            Stepped step = step(upstream, sweep, next, budget - handled, nowMs, reads, effects);
            handled += step.handled();
            if (step.done()) {
                upstreams.remove();
            }
        }
        return handled;
    }

    /** What one step of a sweep did: how many subscribers it handled, and whether the sweep is done. */
    private record Stepped(int handled, boolean done) {
    }

    /**
     * One step of the sweep owed over {@code upstream}'s final-state subscribers: {@code next} are the subscribers after
     * its cursor, in key order, as many as {@code budget} and one more if there are more; each of the first
     * {@code budget} is told (NOTIFY) or dropped (DROP). Then the sweep goes on from the last one handled, or, when the
     * upstream was purged while its notifications went out, turns into a DROP from the start, or is done. Returns how
     * many subscribers were handled.
     */
    public static int sweepStep(String upstream, Sweep sweep, List<String> next, int budget, long nowMs, Reads reads,
                                Effects effects) {
        return step(upstream, sweep, next, budget, nowMs, reads, effects).handled();
    }

    private static Stepped step(String upstream, Sweep sweep, List<String> next, int budget, long nowMs, Reads reads,
                                Effects effects) {
        int handled = 0;
        String cursor = sweep.cursor();
        for (String dependent : next) {
            if (handled >= budget) {
                effects.continueSweep(upstream, new Sweep(sweep.mode(), sweep.outcome(), sweep.executionId(), cursor));
                return new Stepped(handled, false);
            }
            if (sweep.mode() == Mode.NOTIFY) {
                notify(upstream, dependent, sweep.outcome(), sweep.executionId(), nowMs, effects);
            } else {
                effects.forgetSubscriber(upstream, dependent, false);
            }
            cursor = dependent;
            handled++;
        }
        return new Stepped(handled, sweepEnded(upstream, sweep, reads, effects));
    }

    /** A sweep reached its last subscriber; returns whether it is done. */
    private static boolean sweepEnded(String upstream, Sweep sweep, Reads reads, Effects effects) {
        if (sweep.mode() == Mode.NOTIFY && reads.purgedAtMs(upstream) != null) {
            effects.continueSweep(upstream, Sweep.drop()); // purged while its notifications went out: now its subscriptions go
            return false;
        }
        effects.sweepDone(upstream);
        return true;
    }

    /** {@link #sweepStep} for the sweep of one occurrence's outcome over {@code upstream}'s periodic subscribers. */
    public static int occurrenceSweepStep(String upstream, OccurrenceSweep sweep, List<String> next, int budget, long nowMs,
                                          Effects effects) {
        return occurrenceStep(upstream, sweep, next, budget, nowMs, effects).handled();
    }

    private static Stepped occurrenceStep(String upstream, OccurrenceSweep sweep, List<String> next, int budget, long nowMs,
                                          Effects effects) {
        int handled = 0;
        String cursor = sweep.cursor();
        for (String dependent : next) {
            if (handled >= budget) {
                effects.continueOccurrenceSweep(upstream,
                        new OccurrenceSweep(sweep.outcome(), sweep.executionId(), sweep.nominalAtMs(), cursor));
                return new Stepped(handled, false);
            }
            effects.send(dependent, DependencySignals.notify(upstream, dependent, sweep.outcome(), sweep.executionId(), nowMs,
                    sweep.nominalAtMs()));
            cursor = dependent;
            handled++;
        }
        effects.occurrenceSweepDone(upstream);
        return new Stepped(handled, true);
    }

    // ---- the tombstones' expiry, from the punctuator ----

    /**
     * One step of the tombstones' expiry. A purged task's tombstone answers the subscribers that come after the purge
     * (PURGED) for as long as a finished task stays readable, {@code retentionMs} ({@code ax.retention.ms}); then it
     * goes: purged at {@code purgedAtMs}, it goes at the first step after {@code purgedAtMs + retentionMs}. A later
     * subscriber is then kept as one that may come before its upstream, and waits until its own timeout. The oldest go
     * first, at most {@code batch} in a step, so a backlog never makes one step unbounded. Returns how many went.
     */
    public static int expireTombstones(long nowMs, long retentionMs, int batch, Reads reads, Effects effects) {
        List<Tombstone> expired = reads.tombstonesPurgedBefore(nowMs - retentionMs, batch);
        for (Tombstone tombstone : expired) {
            effects.forgetTombstone(tombstone.upstream(), tombstone.purgedAtMs());
        }
        return expired.size();
    }

    // ---- signals ----

    private static void notify(String upstream, String dependent, String outcome, String executionId, long nowMs,
                               SubscriptionEffects effects) {
        effects.send(dependent, DependencySignals.notify(upstream, dependent, outcome, executionId, nowMs, null));
    }
}
