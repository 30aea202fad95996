package io.ax.app.internal.timer;

import io.ax.app.internal.core.TimerKind;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.function.Consumer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;

/**
 * One partition's timers: the {@link TimerIndex} in RocksDB with the in-memory {@link TimingWheel} in front of it for
 * the near horizon. Not thread-safe (one stream task owns it).
 *
 * <p>A timer set within the wheel's horizon while the wheel has room ({@code maxWheelTimers}) is the wheel's alone:
 * no index key is written for it, nor deleted when it fires or is given up ({@link WheelTimer#indexed()} false). So is
 * one set beyond the wheel's horizon and within {@code farHorizonMs} after it while the <em>far level</em> has room (at
 * most {@code maxFarTimers}): a sorted set in memory, in fire order, whose timers move into the wheel as
 * they come within its horizon (before each poll, so at least the wheel's horizon before they are due). That is where an
 * execution's timeout lands (5 minutes ahead by default): set at every fire and given up at nearly every finish, it
 * costs no RocksDB write, and given up it leaves memory at once instead of waiting in the index to fire stale (a task
 * read for nothing). Both levels and the index are derived from the task store and rebuilt together at each assignment,
 * so nothing the index would have kept is lost with them. The others go to the index.
 *
 * <p>Invariant: every index key up to and including {@code watermark} is in the wheel (or has fired);
 * keys after it are only in the index, and a refill loads them in key order once they come within the
 * wheel's horizon. Scans start at the watermark, never at the beginning, so their cost does not grow with
 * the timers already fired (whose deleted keys lie below it); and no key is deleted ahead of the watermark
 * ({@link #unset}), so they do not walk over deleted keys either. {@code nextUnloadedDueMs} is a lower bound
 * of the due times after the watermark, so an idle tick costs no RocksDB access at all.
 *
 * <p>Losing the wheel loses nothing: the index and the wheel are derived from the task store
 * ({@code core.ArmedTimers}): {@link #rebuild} wipes both at each assignment and the task index's rebuild derives every
 * task's timers again.
 */
public final class Timers {
    private static final int MAX_SHARED_OWNERS = 10_000;
    /** The far level's order: fire time, then what makes a timer one (as the index key does: due time, task, kind). */
    private static final Comparator<WheelTimer> FAR_ORDER = Comparator.comparingLong(WheelTimer::fireAtMs)
            .thenComparingLong(WheelTimer::dueAtMs).thenComparing(WheelTimer::taskId).thenComparing(WheelTimer::kind);

    private final TimerIndex index;
    private final TimingWheel wheel;
    private final int maxWheelTimers;
    private final long farHorizonMs;
    private final int maxFarTimers;
    /** The far level: timers beyond the wheel's horizon, within {@code farHorizonMs} after it, held in memory alone. */
    private final java.util.TreeSet<WheelTimer> far = new java.util.TreeSet<>(FAR_ORDER);
    private final long dispatchAheadMs;
    /** Due timers kept aside, unfired, until the inputs that could change their outcome are read; see {@link #hold}. */
    private final Map<String, String> owners = new HashMap<>();
    private final PriorityQueue<WheelTimer> held = new PriorityQueue<>(Comparator.comparingLong(WheelTimer::dueAtMs));
    /** Due timers a punctuation handed out and had no time left for: fired first by the next one. */
    private final java.util.ArrayDeque<WheelTimer> deferred = new java.util.ArrayDeque<>();
    private long earliestSetFireMs = Long.MAX_VALUE;
    private Bytes watermark;
    private long nextUnloadedDueMs;
    /** Whether a task's timers are kept yet: until the rebuild reaches a task, it derives the task's timers itself. */
    private java.util.function.Predicate<String> covered = taskId -> true;

    /**
     * @param maxWheelTimers  refills stop when the wheel (and the held timers) hold this many, bounding memory when
     *                        a huge number are due at once
     * @param dispatchAheadMs OCCURRENCE and RETRY timers fire this much before they are due (opt-in dispatch-ahead
     *                        mode; 0 = never before due). TIMEOUT and PURGE timers always fire at their due time.
     */
    public Timers(TimerIndex index, TimingWheel wheel, int maxWheelTimers, long dispatchAheadMs) {
        this(index, wheel, maxWheelTimers, 0, 0, dispatchAheadMs);
    }

    /**
     * @param farHorizonMs timers due beyond the wheel's horizon and up to this much after it are held in memory alone,
     *                     at most {@code maxFarTimers} of them (the far level; 0: none)
     */
    public Timers(TimerIndex index, TimingWheel wheel, int maxWheelTimers, long farHorizonMs, int maxFarTimers, long dispatchAheadMs) {
        this.index = index;
        this.wheel = wheel;
        this.maxWheelTimers = maxWheelTimers;
        this.farHorizonMs = farHorizonMs;
        this.maxFarTimers = maxFarTimers;
        this.dispatchAheadMs = dispatchAheadMs;
    }

    private WheelTimer wheelTimer(long dueAtMs, int priority, String taskId, TimerKind kind, String owner, boolean indexed) {
        return new WheelTimer(fireAtMs(dueAtMs, kind), dueAtMs, priority, taskId, kind, owner, indexed);
    }

    /** One String per owner name among the timers loaded, not one per timer: a backlog is mostly a few owners. */
    private String shared(String owner) {
        if (owner == null) {
            return null;
        }
        String known = owners.putIfAbsent(owner, owner);
        if (known != null) {
            return known;
        }
        if (owners.size() > MAX_SHARED_OWNERS) {
            owners.clear();
        }
        return owner;
    }

    private long fireAtMs(long dueAtMs, TimerKind kind) {
        boolean dispatches = kind == TimerKind.OCCURRENCE || kind == TimerKind.RETRY;
        return dispatches ? dueAtMs - dispatchAheadMs : dueAtMs;
    }

    /**
     * Forgets the wheel and every timer of the index (on task assignment): the caller sets each task's timers again
     * ({@link #set}, from the task: {@code core.ArmedTimers}) as its rebuild reaches the task, and until then
     * {@code covered} says no for it and its timers' changes are left to that rebuild.
     */
    public void rebuild(long nowMs, java.util.function.Predicate<String> covered) {
        this.covered = covered;
        index.wipe();
        wheel.clear(nowMs);
        far.clear();
        held.clear();
        deferred.clear();
        watermark = null;
        nextUnloadedDueMs = Long.MIN_VALUE;
    }

    /** Sets a timer of a task without an owner. */
    public void set(long dueAtMs, int priority, String taskId, TimerKind kind) {
        set(dueAtMs, priority, taskId, kind, null);
    }

    /** Sets a timer with its task's owner (null: none), by which a backlog is shared ({@link TimingWheel}). */
    public void set(long dueAtMs, int priority, String taskId, TimerKind kind, String owner) {
        if (!covered.test(taskId)) {
            return; // the rebuild derives it when it reaches the task
        }
        long fireAtMs = fireAtMs(dueAtMs, kind);
        earliestSetFireMs = Math.min(earliestSetFireMs, fireAtMs);
        long horizonMs = wheel.horizonMs();
        if (fireAtMs <= horizonMs && wheel.size() + held.size() < maxWheelTimers) {
            // Within the horizon, with room: the wheel alone holds it (no index key to write, nor to delete).
            wheel.add(wheelTimer(dueAtMs, priority, taskId, kind, shared(owner), false));
            return;
        }
        if (fireAtMs > horizonMs && fireAtMs - horizonMs <= farHorizonMs && far.size() < maxFarTimers) {
            // Beyond the horizon, within the far level's, with room: memory alone again, until it moves into the wheel.
            far.add(wheelTimer(dueAtMs, priority, taskId, kind, shared(owner), false));
            return;
        }
        Bytes key = TimerIndex.key(dueAtMs, taskId, kind);
        index.put(key, priority, owner);
        if (watermark != null && key.compareTo(watermark) <= 0) {
            // Within the loaded window (so within the horizon): the wheel must hold it too.
            if (!wheel.add(wheelTimer(dueAtMs, priority, taskId, kind, shared(owner), true))) {
                throw new IllegalStateException("timer inside the loaded window is beyond the wheel horizon: " + dueAtMs);
            }
        } else {
            nextUnloadedDueMs = Math.min(nextUnloadedDueMs, dueAtMs);
        }
    }

    /**
     * Gives up a timer that must not take effect (its execution finished, its task was cancelled). The caller has
     * already changed the task so that the timer no longer matches it: whenever the timer fires, it fires stale
     * and is ignored. One the wheel alone holds leaves it at once; so does one within the loaded window, from the
     * index and the wheel. Ahead of the watermark
     * the key is left in the index until its due time, when it loads, fires stale and is deleted like every
     * fired timer: a deleted key ahead of the watermark would be walked over, one by one, by every later refill
     * scan (a RocksDB iterator skips tombstones to reach the next live key), so timers given up minutes ahead
     * would make each refill cost O(timers given up lately).
     */
    public void unset(long dueAtMs, String taskId, TimerKind kind) {
        if (!covered.test(taskId)) {
            return;
        }
        long fireAtMs = fireAtMs(dueAtMs, kind);
        WheelTimer removed = wheel.remove(fireAtMs, dueAtMs, taskId, kind);
        if (removed != null && !removed.indexed()) {
            return; // the wheel alone held it
        }
        if (removed == null && !far.isEmpty() && far.remove(new WheelTimer(fireAtMs, dueAtMs, 0, taskId, kind, null, false))) {
            return; // the far level alone held it
        }
        Bytes key = TimerIndex.key(dueAtMs, taskId, kind);
        if (watermark != null && key.compareTo(watermark) <= 0) {
            index.delete(key);
        }
    }

    /** Removes a fired timer from the index (a timer the wheel alone held has nothing there). */
    public void fired(WheelTimer timer) {
        if (timer.indexed()) {
            index.delete(TimerIndex.key(timer.dueAtMs(), timer.taskId(), timer.kind()));
        }
    }

    /**
     * Loads what came within the horizon, then fires through {@code handler} the timers due by
     * {@code nowMs}, at most {@code limit}. The handler calls {@link #fired} for each, current or stale.
     */
    public int fireDue(long nowMs, Consumer<WheelTimer> handler, int limit) {
        int fired = 0;
        for (int waiting = deferred.size(); waiting > 0 && fired < limit; waiting--) {
            handler.accept(deferred.poll()); // may defer it again
            fired++;
        }
        if (fired == limit || !deferred.isEmpty()) {
            return fired; // no room, or no time left (the handler deferred again): the wheel waits for the next call
        }
        descend();
        refill();
        return fired + wheel.poll(nowMs, handler, limit - fired);
    }

    /**
     * Puts back a due timer that a punctuation handed out but had no time left to fire ({@code ax.fire.budget.ms}): it
     * is the first the next {@link #fireDue} hands out, in the order deferred (the wheel's order: rank, then due
     * time). Its index key stays, so a rebuild finds it again.
     */
    public void defer(WheelTimer timer) {
        deferred.add(timer);
    }

    /**
     * Keeps a due timer aside instead of firing it: its outcome could still change by input not read yet (see
     * {@link io.ax.app.internal.timer.InputWatermarks}). Its index key stays, so a rebuild finds it again; a
     * timer given up meanwhile ({@link #unset}) fires stale when released, like any other.
     */
    public void hold(WheelTimer timer) {
        held.add(timer);
    }

    /** Fires, through {@code handler}, the held timers due by {@code upToMs}, earliest first, at most {@code limit}. */
    public int fireHeld(long upToMs, Consumer<WheelTimer> handler, int limit) {
        int fired = 0;
        while (fired < limit && !held.isEmpty() && held.peek().dueAtMs() <= upToMs) {
            handler.accept(held.poll());
            fired++;
        }
        return fired;
    }

    /**
     * The earliest time a timer of this partition can fire: from the wheel, or a timer in the index that a refill
     * has yet to load. Never later than the true next fire time; it may be earlier (then a punctuation finds
     * nothing to do). {@code Long.MAX_VALUE}: no timer at all.
     */
    public long nextFireMs() {
        if (!held.isEmpty() || !deferred.isEmpty()) {
            return Long.MIN_VALUE; // released as soon as the inputs are read, or deferred: look again at the next tick
        }
        long unloadedMs = nextUnloadedDueMs == Long.MIN_VALUE ? Long.MIN_VALUE : nextUnloadedDueMs - dispatchAheadMs;
        long farMs = far.isEmpty() ? Long.MAX_VALUE : far.first().fireAtMs();
        return Math.min(Math.min(wheel.nextFireMs(), farMs), unloadedMs);
    }

    /** Forgets the timers set so far (for {@link #takeEarliestSetFireMs}), once the caller took {@link #nextFireMs} into account. */
    public void forgetTimersSet() {
        earliestSetFireMs = Long.MAX_VALUE;
    }

    /**
     * The earliest fire time among timers set since the last call (or since {@link #forgetTimersSet}), then forgets
     * them: lets a caller lower its wake-up time after each record without scanning the wheel.
     */
    public long takeEarliestSetFireMs() {
        long earliest = earliestSetFireMs;
        earliestSetFireMs = Long.MAX_VALUE;
        return earliest;
    }

    /**
     * The backlog: timers that dispatch (OCCURRENCE, RETRY) due by {@code nowMs} and not fired yet, whether in the
     * wheel or still only in the index (when more were due than the wheel may hold), at most {@code max} counted, with
     * the most overdue of them. Timers given up but not yet due-and-fired count too: firing them is work still to do.
     * Bounded: reads at most {@code max} timers of the wheel and {@code max} index keys, from the watermark on.
     */
    public Overdue overdue(long nowMs, int max) {
        Overdue.Counter counter = new Overdue.Counter(nowMs, max);
        wheel.visitDue(nowMs, counter::offer, max);
        held.forEach(counter::offer);
        for (WheelTimer timer : far) { // due only if the wheel has not turned for a while: a few at most
            if (timer.fireAtMs() > nowMs || counter.full()) {
                break;
            }
            counter.offer(timer);
        }
        if (!counter.full() && nextUnloadedDueMs <= nowMs) {
            try (KeyValueIterator<Bytes, byte[]> timers = index.from(watermark)) {
                int read = 0;
                while (timers.hasNext() && read++ < max && !counter.full()) {
                    Bytes key = timers.next().key;
                    if (watermark != null && key.compareTo(watermark) <= 0) {
                        continue;
                    }
                    long dueAtMs = TimerIndex.dueAtMs(key);
                    if (dueAtMs > nowMs) {
                        break;
                    }
                    counter.offer(new WheelTimer(dueAtMs, dueAtMs, 0, TimerIndex.taskId(key), TimerIndex.kind(key)));
                }
            }
        }
        return counter.result();
    }

    /**
     * Moves the far level's timers that came within the wheel's horizon into the wheel, whatever its room: they were held
     * in memory already, so memory does not grow. The wheel turns every tick, so a timer moves at least the wheel's
     * horizon before it may fire.
     */
    private void descend() {
        long horizonMs = wheel.horizonMs();
        while (!far.isEmpty() && far.first().fireAtMs() <= horizonMs) {
            wheel.add(far.pollFirst());
        }
    }

    private void refill() {
        long horizonMs = wheel.horizonMs();
        if (nextUnloadedDueMs > horizonMs || wheel.size() + held.size() >= maxWheelTimers) {
            return;
        }
        long nextDue = Long.MAX_VALUE;
        try (KeyValueIterator<Bytes, byte[]> timers = index.from(watermark)) {
            while (timers.hasNext()) {
                KeyValue<Bytes, byte[]> timer = timers.next();
                if (watermark != null && timer.key.compareTo(watermark) <= 0) {
                    continue;
                }
                long dueAtMs = TimerIndex.dueAtMs(timer.key);
                if (dueAtMs > horizonMs || wheel.size() + held.size() >= maxWheelTimers) {
                    nextDue = dueAtMs;
                    break;
                }
                wheel.add(wheelTimer(dueAtMs, TimerIndex.priority(timer.value), TimerIndex.taskId(timer.key),
                        TimerIndex.kind(timer.key), shared(TimerIndex.owner(timer.value)), true));
                watermark = timer.key;
            }
        }
        nextUnloadedDueMs = nextDue;
    }
}
