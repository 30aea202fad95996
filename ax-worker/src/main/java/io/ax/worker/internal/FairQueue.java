package io.ax.worker.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;

/**
 * One lane's waiting executions, shared fairly between owners (start-time fair queueing), each owner's own in rank
 * order (priority with aging, see {@link Lanes}).
 *
 * <p>Each owner with executions waiting has a virtual time. The next execution to start is the head of the owner
 * with the lowest {@code virtual time − head's priority × turn}; starting it adds {@code turn ÷ weight} to that
 * owner's virtual time. An owner that had nothing waiting joins at the virtual time of the execution started last,
 * so it neither gains from having been idle nor waits behind what others queued before it: an owner with ten
 * executions waiting behind another owner's million starts one of its ten within one turn of each other owner. With
 * one owner (or none: no owner is one owner) the order is exactly the rank order. Across owners, one priority level
 * is worth one turn: a priority-9 owner starts 9 executions (× weight) before an equal owner at priority 0 gets its
 * turn; so priority 0 is delayed, never starved. Weights are whole numbers ≥ 1 (default 1): weight 3 gets three
 * starts for one of a weight-1 owner while both wait.
 *
 * <p>Memory: one entry per owner with executions waiting; an owner's entry goes with its last waiting execution.
 * Not thread-safe: the {@link Lanes} lock guards it.
 */
final class FairQueue<E> {
    /** One waiting element: its owner (null is an owner too), priority, rank inside its owner, and arrival order. */
    record Entry<E>(E element, String owner, int priority, long rank, long sequence) {
    }

    private final class Owner {
        final String name;
        final PriorityQueue<Entry<E>> waiting = new PriorityQueue<>(Comparator.<Entry<E>>comparingLong(Entry::rank)
                .thenComparingLong(Entry::sequence));
        long virtualMs;

        Owner(String name, long virtualMs) {
            this.name = name;
            this.virtualMs = virtualMs;
        }

        long turnKey() {
            return virtualMs - waiting.peek().priority() * turnMs;
        }
    }

    private final Map<String, Owner> owners = new HashMap<>();
    private final TreeSet<Owner> byTurn = new TreeSet<>(Comparator.<Owner>comparingLong(Owner::turnKey)
            .thenComparingLong(o -> o.virtualMs)
            .thenComparingLong(o -> o.waiting.peek().rank())
            .thenComparingLong(o -> o.waiting.peek().sequence()));
    private final long turnMs;
    private final ToIntFunction<String> weights;
    private long virtualNowMs;
    private int size;

    /**
     * @param turnMs  virtual time of one start at weight 1, and the worth of one priority level across owners (the
     *                lane's priority aging; at least 1)
     * @param weights the weight of an owner (null for tasks without one), at least 1
     */
    FairQueue(long turnMs, ToIntFunction<String> weights) {
        this.turnMs = Math.max(1, turnMs);
        this.weights = weights;
    }

    void add(Entry<E> entry) {
        Owner owner = owners.get(entry.owner());
        if (owner == null) {
            owner = new Owner(entry.owner(), virtualNowMs);
            owners.put(entry.owner(), owner);
        } else {
            byTurn.remove(owner);
        }
        owner.waiting.add(entry);
        byTurn.add(owner);
        size++;
    }

    /** The next to start, or null when none waits. */
    Entry<E> poll() {
        Owner owner = byTurn.pollFirst();
        if (owner == null) {
            return null;
        }
        Entry<E> next = owner.waiting.poll();
        virtualNowMs = Math.max(virtualNowMs, owner.virtualMs);
        owner.virtualMs += turnMs / Math.max(1, weights.applyAsInt(owner.name));
        if (owner.waiting.isEmpty()) {
            owners.remove(owner.name);
        } else {
            byTurn.add(owner);
        }
        size--;
        return next;
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    void forEach(Consumer<E> action) {
        owners.values().forEach(owner -> owner.waiting.forEach(entry -> action.accept(entry.element())));
    }

    /** Removes the elements that match, in no particular order, and returns them. */
    List<E> removeIf(Predicate<E> which) {
        List<E> removed = new ArrayList<>();
        for (Owner owner : new ArrayList<>(owners.values())) {
            byTurn.remove(owner);
            owner.waiting.removeIf(entry -> which.test(entry.element()) && removed.add(entry.element()));
            if (owner.waiting.isEmpty()) {
                owners.remove(owner.name);
            } else {
                byTurn.add(owner);
            }
        }
        size -= removed.size();
        return removed;
    }
}
