package io.ax.fair;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.function.ToIntFunction;

/**
 * Start-time fair queueing between owners: whose turn it is next. The one implementation behind the worker's lanes
 * ({@link FairQueue}), the wheel's owner turns in a crowded poll and the flow gates' fair share; each caller keeps its
 * owners' waiting work itself (in memory, or in a store) and tells this class only each owner's head.
 *
 * <p>Each owner with work waiting has a virtual time {@code vt}. The next owner served is the one with the lowest
 * {@code vt − head priority × priorityStep}; serving it adds {@code turn ÷ weight} to its {@code vt}. An owner that
 * starts waiting joins at the virtual time of the owner served last ({@link #virtualNow()}), so it neither gains from
 * having been idle nor waits behind what others queued before it: an owner with ten waiting behind another's million
 * is served within a turn of each other owner. So with weights 3 and 1 a backlog is served 3 : 1, and with
 * {@code priorityStep = turn} one priority level is worth one turn (a priority-0 owner is delayed, never starved).
 *
 * <p>The differences between the callers are the parameters:
 * <ul>
 *   <li><b>weights</b>: the worker's lanes and the gates take each owner's weight (at least 1; less counts as 1); the
 *   wheel's turns are equal ({@link #equal}).</li>
 *   <li><b>priority</b> ({@code priorityStep}): the worker and the wheel let a head's priority advance its owner by
 *   {@code priorityStep} per level (their priority aging); the gates pass 0, so their turns ignore priority (priority
 *   orders each owner's own queue there, by {@link Rank}).</li>
 *   <li><b>persistence of virtual time</b>: the worker keeps one instance per lane for the process's life; the wheel
 *   makes a new one for each crowded poll (virtual time starts at 0 each time); the gates store the virtual times with
 *   the gate and {@link #restore} them for each record, reading them back with {@link #virtualTime} and
 *   {@link #virtualNow}.</li>
 * </ul>
 *
 * <p>Ties (same {@code vt − priority × step}) go to the lower {@code vt}, then the lower head tie key (the caller's:
 * the head's rank or arrival), then the owner that joined first. Every choice is O(log n) in the owners waiting (a
 * balanced tree keyed by virtual start time); memory is one entry per owner waiting. Not thread-safe.
 *
 * @param <O> the owner (null is an owner too)
 */
public final class FairTurns<O> {
    private static final ToIntFunction<Object> EQUAL = owner -> 1;

    private final class Turn {
        final O owner;
        final long joined;
        double vt;
        int priority;
        long tie;

        Turn(O owner, long joined, double vt) {
            this.owner = owner;
            this.joined = joined;
            this.vt = vt;
        }

        double key() {
            return vt - priority * priorityStep;
        }
    }

    private final double turn;
    private final double priorityStep;
    private final ToIntFunction<? super O> weights;
    private final Map<O, Turn> waiting = new HashMap<>();
    private final TreeSet<Turn> byTurn = new TreeSet<>(FairTurns::compare);
    private double virtualNow;
    private long joins;

    private FairTurns(double turn, double priorityStep, ToIntFunction<? super O> weights) {
        if (!(turn > 0)) {
            throw new IllegalArgumentException("turn must be > 0: " + turn);
        }
        if (!(priorityStep >= 0)) {
            throw new IllegalArgumentException("priorityStep must be >= 0: " + priorityStep);
        }
        this.turn = turn;
        this.priorityStep = priorityStep;
        this.weights = Objects.requireNonNull(weights, "weights");
    }

    /**
     * Owners served in proportion to their weights.
     *
     * @param turn         the virtual time one serving costs an owner of weight 1 (&gt; 0)
     * @param priorityStep the virtual time one level of a head's priority is worth (0: priority plays no part)
     * @param weights      each owner's weight (at least 1; less counts as 1)
     */
    public static <O> FairTurns<O> weighted(double turn, double priorityStep, ToIntFunction<? super O> weights) {
        return new FairTurns<>(turn, priorityStep, weights);
    }

    /** Owners served in equal turns (every weight 1). */
    public static <O> FairTurns<O> equal(double turn, double priorityStep) {
        return new FairTurns<>(turn, priorityStep, EQUAL);
    }

    /**
     * Marks {@code owner} as waiting with this head, or gives an owner already waiting its new head. An owner not
     * waiting joins at {@link #virtualNow()}.
     *
     * @param headPriority the priority of the owner's next item (counts only with a {@code priorityStep})
     * @param headTie      the caller's tie key for the owner's next item (lower first)
     */
    public void offer(O owner, int headPriority, long headTie) {
        Turn t = waiting.get(owner);
        if (t == null) {
            t = new Turn(owner, joins++, virtualNow);
            waiting.put(owner, t);
        } else {
            byTurn.remove(t);
        }
        t.priority = headPriority;
        t.tie = headTie;
        byTurn.add(t);
    }

    /** Marks {@code owner} as waiting at a virtual time kept from before (a stored gate's), with this head. */
    public void restore(O owner, double virtualTime, int headPriority, long headTie) {
        remove(owner);
        Turn t = new Turn(owner, joins++, virtualTime);
        t.priority = headPriority;
        t.tie = headTie;
        waiting.put(owner, t);
        byTurn.add(t);
    }

    /** Sets the virtual time at which owners join (a stored gate's); it only moves forward from here on. */
    public void restoreVirtualNow(double virtualTime) {
        virtualNow = virtualTime;
    }

    /** The owner whose turn it is, or null when none waits. Changes nothing. */
    public O peek() {
        return byTurn.isEmpty() ? null : byTurn.first().owner;
    }

    /**
     * Charges {@code owner} (the one {@link #peek()} named) one turn for the item just served; it stays waiting with
     * its next head. Returns its virtual time after the charge.
     */
    public double served(O owner, int nextHeadPriority, long nextHeadTie) {
        Turn t = charge(owner);
        t.priority = nextHeadPriority;
        t.tie = nextHeadTie;
        byTurn.add(t);
        return t.vt;
    }

    /** Charges {@code owner} one turn for the item just served, its last: it stops waiting and its virtual time is forgotten. */
    public void servedLast(O owner) {
        charge(owner);
        waiting.remove(owner);
    }

    /** Forgets {@code owner} (nothing waits for it any more), without a charge. */
    public void remove(O owner) {
        Turn t = waiting.remove(owner);
        if (t != null) {
            byTurn.remove(t);
        }
    }

    /** Whether {@code owner} is waiting. */
    public boolean isWaiting(O owner) {
        return waiting.containsKey(owner);
    }

    /** The virtual time of a waiting owner, or {@link #virtualNow()} for one not waiting (where it would join). */
    public double virtualTime(O owner) {
        Turn t = waiting.get(owner);
        return t == null ? virtualNow : t.vt;
    }

    /** The virtual time of the owner served last: where an owner that starts waiting joins. */
    public double virtualNow() {
        return virtualNow;
    }

    /** Owners waiting. */
    public int size() {
        return waiting.size();
    }

    public boolean isEmpty() {
        return waiting.isEmpty();
    }

    /** The order of turns (a total order: {@code joined} is unique), written out: it runs log n times per choice. */
    private static int compare(FairTurns<?>.Turn a, FairTurns<?>.Turn b) {
        int c = Double.compare(a.key(), b.key());
        if (c == 0) {
            c = Double.compare(a.vt, b.vt);
        }
        if (c == 0) {
            c = Long.compare(a.tie, b.tie);
        }
        return c != 0 ? c : Long.compare(a.joined, b.joined);
    }

    private Turn charge(O owner) {
        Turn t = waiting.get(owner);
        if (t == null) {
            throw new IllegalStateException("owner is not waiting: " + owner);
        }
        if (byTurn.first() == t) {
            byTurn.pollFirst(); // the usual case, the owner peek() named: no search
        } else {
            byTurn.remove(t);
        }
        virtualNow = Math.max(virtualNow, t.vt);
        t.vt += turn / Math.max(1, weights.applyAsInt(owner));
        return t;
    }
}
