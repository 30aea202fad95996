package io.ax.fair;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Waiting items shared fairly between their owners ({@link FairTurns}), each owner's own in {@link Rank} order, then
 * arrival: the worker's lanes keep one per lane, the wheel builds one for a poll that cannot fire all that is due.
 * With one owner (or none: no owner is one owner) the order is exactly the rank order.
 *
 * <p>Memory: one entry per owner with items waiting; an owner's entry goes with its last waiting item. Not
 * thread-safe.
 *
 * @param <E> the item
 */
public final class FairQueue<E> {
    /** One waiting item: its owner (null is an owner too), priority, rank inside its owner, and arrival order. */
    public record Entry<E>(E element, String owner, int priority, long rank, long sequence) {
    }

    private static final Comparator<Entry<?>> BY_RANK = Comparator.<Entry<?>>comparingLong(Entry::rank)
            .thenComparingLong(Entry::sequence);

    private final FairTurns<String> turns;
    private final Map<String, PriorityQueue<Entry<E>>> owners = new HashMap<>();
    private int size;

    /** @param turns whose turn it is among the owners; the queue keeps it up to date, nothing else may use it */
    public FairQueue(FairTurns<String> turns) {
        this.turns = turns;
    }

    public void add(Entry<E> entry) {
        PriorityQueue<Entry<E>> waiting = owners.computeIfAbsent(entry.owner(), owner -> new PriorityQueue<>(BY_RANK));
        waiting.add(entry);
        offerHead(entry.owner(), waiting);
        size++;
    }

    /** The next to start, or null when none waits. */
    public Entry<E> poll() {
        if (size == 0) {
            return null;
        }
        String owner = turns.peek(); // null is an owner too
        PriorityQueue<Entry<E>> waiting = owners.get(owner);
        Entry<E> next = waiting.poll();
        if (waiting.isEmpty()) {
            owners.remove(owner);
            turns.servedLast(owner);
        } else {
            turns.served(owner, waiting.peek().priority(), waiting.peek().sequence());
        }
        size--;
        return next;
    }

    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    public void forEach(Consumer<E> action) {
        owners.values().forEach(waiting -> waiting.forEach(entry -> action.accept(entry.element())));
    }

    /** Removes the elements that match, in no particular order, and returns them; the owners keep their turns. */
    public List<E> removeIf(Predicate<E> which) {
        List<E> removed = new ArrayList<>();
        for (String owner : new ArrayList<>(owners.keySet())) {
            PriorityQueue<Entry<E>> waiting = owners.get(owner);
            if (waiting.removeIf(entry -> which.test(entry.element()) && removed.add(entry.element()))) {
                if (waiting.isEmpty()) {
                    owners.remove(owner);
                    turns.remove(owner);
                } else {
                    offerHead(owner, waiting);
                }
            }
        }
        size -= removed.size();
        return removed;
    }

    private void offerHead(String owner, PriorityQueue<Entry<E>> waiting) {
        Entry<E> head = waiting.peek();
        turns.offer(owner, head.priority(), head.sequence());
    }
}
