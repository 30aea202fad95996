package io.ax.app.internal.timer;

import io.ax.app.internal.core.TimerKind;
import io.ax.fair.FairQueue;
import io.ax.fair.FairTurns;
import io.ax.fair.Rank;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * A hashed timing wheel for the timers of the near horizon. Pure, Kafka-free, single-threaded:
 * <b>not thread-safe</b>.
 *
 * <p>Time is cut into ticks of {@code tickMs}; a timer due at {@code dueAtMs} belongs to tick
 * {@code ceil(dueAtMs / tickMs)} (rounded <em>up</em>, so it never fires early) and lives in slot
 * {@code tick & (wheelSize - 1)}. The wheel only admits timers whose tick lies in
 * {@code [currentTick, currentTick + wheelSize)}, so each slot holds timers of exactly one tick and needs
 * no round counters; later timers stay in the durable index until a refill loads them.
 *
 * <p>Worked example, tick 10 ms, 8 slots, currentTick 100 (time 1000 ms): a timer due at 1003 ms has tick
 * 101 and goes to slot 101 &amp; 7 = 5; {@code poll(1009)} (tick 100) fires nothing, {@code poll(1010)}
 * (tick 101) fires it. The horizon is tick 107, i.e. due times up to 1070 ms; a timer due at 1071 ms (tick
 * 108) is refused. A timer due before the current tick (overdue) goes to the current slot and fires on
 * the next poll.
 *
 * <p>Ordering: a poll fires the timers of every tick it has reached by the rank {@code dueAt − priority ×
 * priorityAging} ({@link Rank}), lowest first, ties in insertion order: higher priority first, with aging. More are due than a poll
 * fires only when a backlog builds (a burst, a scheduler behind its clock, a restart behind many due timers), and
 * then a priority-9 timer goes before the lower ones due up to 9 × the aging before it, and no more, so priority 0
 * is delayed, never starved. What a poll leaves stays due in the current tick's slot.
 *
 * <p>Owners: when more are due than a poll fires, the owners of the timers due share the poll in turns (start-time
 * fair queueing, {@link FairTurns}, as the worker's lanes and the flow gates do, here with equal weights and a
 * virtual time that starts at 0 in each poll): the next timer is the best-ranked of the owner with the lowest {@code
 * turns taken × aging − its best priority × aging}, so each owner fires one in turn (a priority level is worth one
 * turn), and an owner with ten due fires them among the first of the poll even when another owner has a hundred
 * thousand due before them. With one owner (no owner is one owner too) the order is the rank order.
 *
 * <p>{@link #poll} fires at most {@code limit} timers, so one crowded tick cannot starve the caller; the
 * rest fire on the next poll. Its cost: at most {@code wheelSize} slots read, plus a sort of the timers due (during
 * a backlog, those left over: nearly sorted already, so close to linear), never the timers not yet due.
 */
public final class TimingWheel {
    /** The default of {@code ax.priority.aging.ms}. */
    public static final long DEFAULT_PRIORITY_AGING_MS = 1_000;

    private final Comparator<WheelTimer> byRank;
    private final long priorityAgingMs;

    private final long tickMs;
    private final int mask;
    private final List<List<WheelTimer>> slots;
    private long currentTick;
    private int size;

    /**
     * @param tickMs    length of a tick, ms (>= 1)
     * @param wheelSize number of slots, a power of two
     * @param startMs   the wheel's start time; ticks before it count as already passed
     */
    public TimingWheel(long tickMs, int wheelSize, long startMs) {
        this(tickMs, wheelSize, startMs, DEFAULT_PRIORITY_AGING_MS);
    }

    /** @param priorityAgingMs how much earlier a due time one priority level is worth among due timers (see Ordering) */
    public TimingWheel(long tickMs, int wheelSize, long startMs, long priorityAgingMs) {
        if (tickMs < 1) {
            throw new IllegalArgumentException("tickMs must be >= 1: " + tickMs);
        }
        if (wheelSize < 2 || Integer.bitCount(wheelSize) != 1) {
            throw new IllegalArgumentException("wheelSize must be a power of two >= 2: " + wheelSize);
        }
        this.tickMs = tickMs;
        this.mask = wheelSize - 1;
        this.slots = new ArrayList<>(wheelSize);
        for (int i = 0; i < wheelSize; i++) {
            slots.add(new ArrayList<>());
        }
        this.currentTick = Math.floorDiv(startMs, tickMs);
        this.priorityAgingMs = priorityAgingMs;
        this.byRank = Comparator.comparingLong(this::rankOf);
    }

    /** The latest due time the wheel admits now (inclusive), ms. Grows as the wheel turns. */
    public long horizonMs() {
        return (currentTick + mask) * tickMs;
    }

    /**
     * When the earliest timer held can fire: the start of its tick (at or after the current one), or
     * {@code Long.MAX_VALUE} when the wheel is empty. Scans at most {@code wheelSize} slots.
     */
    public long nextFireMs() {
        if (size == 0) {
            return Long.MAX_VALUE;
        }
        for (long tick = currentTick; tick <= currentTick + mask; tick++) {
            if (!slots.get(slotOf(tick)).isEmpty()) {
                return tick * tickMs;
            }
        }
        throw new IllegalStateException("wheel holds " + size + " timers in no slot");
    }

    /** Timers held. */
    public int size() {
        return size;
    }

    /**
     * Adds a timer if it lies within the horizon.
     *
     * @return false if {@code fireAtMs > horizonMs()}: the caller keeps it elsewhere and adds it later
     */
    public boolean add(WheelTimer timer) {
        long tick = tickOf(timer.fireAtMs());
        if (tick > currentTick + mask) {
            return false;
        }
        slots.get(slotOf(Math.max(tick, currentTick))).add(timer);
        size++;
        return true;
    }

    /**
     * Fires, through {@code handler}, timers whose tick has been reached by {@code nowMs}: every fired timer
     * has {@code fireAtMs <= nowMs}. Time going backwards fires nothing.
     *
     * @param limit the most timers to fire in this call
     * @return the number fired
     */
    public int poll(long nowMs, Consumer<WheelTimer> handler, int limit) {
        long nowTick = Math.floorDiv(nowMs, tickMs);
        if (currentTick > nowTick) {
            return 0;
        }
        if (size == 0) {
            currentTick = nowTick + 1;
            return 0;
        }
        // Every reached tick's timers in one list, so a backlog spread over many ticks fires by rank, not by tick.
        List<WheelTimer> due = null; // an idle tick (nothing reached) allocates nothing
        for (long tick = currentTick; tick <= Math.min(nowTick, currentTick + mask); tick++) {
            List<WheelTimer> slot = slots.get(slotOf(tick));
            if (!slot.isEmpty()) {
                if (due == null) {
                    due = new ArrayList<>(slot.size());
                }
                due.addAll(slot);
                slot.clear();
            }
        }
        if (due == null) {
            currentTick = nowTick + 1;
            return 0;
        }
        due.sort(byRank); // stable: ties keep insertion order
        if (due.size() > limit) {
            due = inTurns(due, limit);
        }
        int n = Math.min(limit, due.size());
        size -= n;
        if (n < due.size()) {
            // The rest stays due in the current tick's slot, where overdue timers added meanwhile join it.
            currentTick = nowTick;
            slots.get(slotOf(currentTick)).addAll(due.subList(n, due.size()));
        } else {
            currentTick = nowTick + 1;
        }
        due.subList(0, n).forEach(handler);
        return n;
    }

    /**
     * Removes one held timer with these due time, task and kind (any priority), if the wheel holds one: a timer
     * still held sits in the slot of its tick, or of the current tick when it was added overdue.
     *
     * @return the timer removed, or null when the wheel held none
     */
    public WheelTimer remove(long fireAtMs, long dueAtMs, String taskId, TimerKind kind) {
        long tick = tickOf(fireAtMs);
        if (tick > currentTick + mask) {
            return null;
        }
        List<WheelTimer> slot = slots.get(slotOf(Math.max(tick, currentTick)));
        for (Iterator<WheelTimer> it = slot.iterator(); it.hasNext(); ) {
            WheelTimer timer = it.next();
            if (timer.dueAtMs() == dueAtMs && timer.kind() == kind && timer.taskId().equals(taskId)) {
                it.remove();
                size--;
                return timer;
            }
        }
        return null;
    }

    /**
     * Hands {@code visitor} the timers held whose tick has been reached by {@code nowMs} and that have not fired (a
     * backlog: more were due than a punctuation may fire), at most {@code limit}; returns how many it visited. Reads
     * only the slots from the current tick to {@code nowMs}'s.
     */
    public int visitDue(long nowMs, Consumer<WheelTimer> visitor, int limit) {
        long nowTick = Math.min(Math.floorDiv(nowMs, tickMs), currentTick + mask);
        int visited = 0;
        for (long tick = currentTick; tick <= nowTick && visited < limit && size > 0; tick++) {
            for (WheelTimer timer : slots.get(slotOf(tick))) {
                if (visited == limit) {
                    break;
                }
                visitor.accept(timer);
                visited++;
            }
        }
        return visited;
    }

    /**
     * {@code ranked} reordered so that its first {@code limit} are those the owners' turns pick (see Owners in the
     * class comment), in the order picked, the others after them in rank order (the next poll orders them again).
     * With a single owner: {@code ranked}. The turns are a {@link FairQueue} made for this poll: equal turns of the
     * aging, a priority level worth the aging, virtual time starting at 0 (nothing is remembered between polls).
     */
    private List<WheelTimer> inTurns(List<WheelTimer> ranked, int limit) {
        String firstOwner = ranked.get(0).owner();
        boolean oneOwner = true;
        for (WheelTimer timer : ranked) {
            if (!Objects.equals(timer.owner(), firstOwner)) {
                oneOwner = false;
                break;
            }
        }
        if (oneOwner) {
            return ranked;
        }
        FairQueue<WheelTimer> turns = new FairQueue<>(FairTurns.equal(Math.max(1, priorityAgingMs), Math.max(0, priorityAgingMs)));
        for (int i = 0; i < ranked.size(); i++) {
            WheelTimer timer = ranked.get(i);
            turns.add(new FairQueue.Entry<>(timer, timer.owner(), timer.priority(), rankOf(timer), i));
        }
        List<WheelTimer> picked = new ArrayList<>(ranked.size());
        boolean[] taken = new boolean[ranked.size()];
        while (picked.size() < limit) {
            FairQueue.Entry<WheelTimer> next = turns.poll();
            picked.add(next.element());
            taken[(int) next.sequence()] = true;
        }
        for (int i = 0; i < ranked.size(); i++) {
            if (!taken[i]) {
                picked.add(ranked.get(i));
            }
        }
        return picked;
    }

    private long rankOf(WheelTimer timer) {
        return Rank.of(timer.dueAtMs(), timer.priority(), priorityAgingMs);
    }

    /** Drops every timer; the next poll starts from {@code startMs}. */
    public void clear(long startMs) {
        slots.forEach(List::clear);
        size = 0;
        currentTick = Math.floorDiv(startMs, tickMs);
    }

    /** The first tick at or after {@code fireAtMs} (the time a timer may fire: its due time, or earlier when dispatched ahead). */
    private long tickOf(long fireAtMs) {
        return Math.floorDiv(fireAtMs + tickMs - 1, tickMs);
    }

    private int slotOf(long tick) {
        return (int) (tick & mask);
    }
}
