package io.ax.worker.internal;

import io.ax.fair.FairQueue;
import io.ax.fair.FairTurns;
import io.ax.fair.Rank;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;
import org.apache.kafka.common.TopicPartition;

/**
 * One lane per job type: a queue and a limit on how many of its executions run at once. Executions run on one
 * shared pool whose size is the sum of the limits, so a lane at its limit never takes a thread from another
 * lane: a slow job type cannot delay a fast one.
 *
 * <p>Backpressure is by job type. A lane with {@code maxWaitingPerJobType} executions waiting is <em>backlogged</em>,
 * but the loop keeps taking its dispatches, so that the records behind them on the same partitions, of other job
 * types, keep flowing. What backlogged lanes hold beyond {@code maxWaitingPerJobType}, all lanes together, is the
 * overflow; once it reaches {@code maxOverflow}, {@link #partitionsToPause()} names the partitions that the
 * backlogged lanes' waiting executions came from, and the loop pauses those, and only those, until the overflow is
 * below the bound again. Hence:
 * <ul>
 *   <li>Bounded memory: at most {@code maxWaitingPerJobType} waiting per job type, plus {@code maxOverflow}, plus
 *       what one poll returns from each partition before it is paused.
 *   <li>Ordering: a lane starts its waiting executions highest priority first, with aging: each waits by the rank
 *       {@code queued at − priority × priorityAging}, lowest first, ties in the order they were queued (offset
 *       order within a partition). A priority-9 dispatch so overtakes the lower ones queued up to 9 × the aging
 *       before it, and no more: priority 0 is delayed, never starved (default aging 1 s);
 *       across job types there is none: a fast type overtakes a backlogged one, on the same partition too. Owners
 *       share a lane fairly, by weight ({@link FairQueue}): one owner's thousands waiting do not delay another
 *       owner's few by more than a turn of each; with a single owner the order is the rank order above.
 *   <li>Commit safety: a polled record stays pending in the {@link OffsetTracker} until it is done, and a partition
 *       commits only below its lowest pending offset, so a dispatch waiting in a backlog holds its partition's
 *       commit back and is never committed past. The price: a crash redelivers what was done after it (the
 *       idempotency guard answers those).
 *   <li>A backlog beyond {@code maxWaitingPerJobType} plus the overflow does hold other job types back, on the
 *       partitions it comes from only: taking more without a place to spill it to would mean unbounded memory.
 * </ul>
 *
 * <p>An execution dispatched ahead of its due time (the scheduler's opt-in dispatch-ahead mode), or one to run
 * again later ({@link #submit(Execution, long)}), is held aside until then and only then queued: waiting takes
 * neither a thread nor a place of its lane's limit, so holding hundreds of early dispatches does not delay the
 * ones already due. The poll loop queues the held executions whose time came ({@link #releaseDue()}) on each
 * round, by the worker's clock, and polls no longer than until the next one ({@link #nextReleaseAtMs()}): no timer
 * thread reads the wall clock, so tests drive holds with a settable clock. (The runner still checks the due time
 * before it starts a handler.)
 *
 * <p>Thread-safe: the loop submits and releases, handler threads finish.
 */
final class Lanes {
    private static final class Lane {
        final int limit;
        final FairQueue<Execution> queue;
        int running;

        Lane(int limit, FairQueue<Execution> queue) {
            this.limit = limit;
            this.queue = queue;
        }
    }

    private record Held(Execution execution, long releaseAtMs) {
    }

    private final Map<String, Lane> lanes = new LinkedHashMap<>();
    private final PriorityQueue<Held> held = new PriorityQueue<>(Comparator.comparingLong(Held::releaseAtMs));
    private final Clock clock;
    private final ExecutorService threads;
    private final BacklogLimits backlogLimits;
    private final Consumer<Execution> body;
    private final long priorityAgingMs;
    private long sequence;
    private boolean closed;

    /**
     * @param priorityAgingMs how much earlier queueing one priority level is worth (see Ordering above)
     * @param body            runs one execution on a pool thread; must not throw except for a VirtualMachineError
     */
    Lanes(Map<String, Integer> limits, BacklogLimits backlogLimits, ExecutorService threads, Clock clock,
          long priorityAgingMs, Consumer<Execution> body) {
        this(limits, backlogLimits, threads, clock, priorityAgingMs, owner -> 1, body);
    }

    /** @param ownerWeights each owner's weight in its lanes' fair share ({@link FairQueue}), at least 1 */
    Lanes(Map<String, Integer> limits, BacklogLimits backlogLimits, ExecutorService threads, Clock clock,
          long priorityAgingMs, ToIntFunction<String> ownerWeights, Consumer<Execution> body) {
        // One turn and one priority level are each worth the aging: a priority-9 owner starts 9 (× weight) before an
        // equal priority-0 owner gets its turn, so priority 0 is delayed, never starved (FairTurns).
        long turnMs = Math.max(1, priorityAgingMs);
        limits.forEach((jobType, limit) -> lanes.put(jobType, new Lane(limit,
                new FairQueue<>(FairTurns.weighted(turnMs, turnMs, ownerWeights)))));
        this.backlogLimits = backlogLimits;
        this.threads = threads;
        this.clock = clock;
        this.body = body;
        this.priorityAgingMs = priorityAgingMs;
    }

    /** Queues {@code execution}, or holds it until its due time when that is ahead. */
    synchronized void submit(Execution execution) {
        submit(execution, Long.MIN_VALUE);
    }

    /** Queues {@code execution} once both its due time and {@code notBeforeMs} have come; holds it until then. */
    synchronized void submit(Execution execution, long notBeforeMs) {
        long releaseAtMs = Math.max(execution.task().getDueAtMs(), notBeforeMs);
        if (releaseAtMs > clock.millis() && !closed) {
            held.add(new Held(execution, releaseAtMs));
        } else {
            queue(execution); // closing: it stays queued until dropped
        }
    }

    /** Queues the held executions whose time has come by the clock. */
    synchronized void releaseDue() {
        long nowMs = clock.millis();
        while (!held.isEmpty() && held.peek().releaseAtMs() <= nowMs) {
            queue(held.poll().execution());
        }
    }

    /** When the next held execution is to be queued, or {@link Long#MAX_VALUE} when none is held. */
    synchronized long nextReleaseAtMs() {
        return held.isEmpty() ? Long.MAX_VALUE : held.peek().releaseAtMs();
    }

    /** Executions held until their time, not yet queued. */
    synchronized int held() {
        return held.size();
    }

    /**
     * Queues a held execution now, before its time, because it was cancelled (the runner then reports it without
     * running it). Does nothing for one not held (queued already, or dropped).
     */
    synchronized void release(Execution execution) {
        if (held.removeIf(h -> h.execution() == execution)) {
            queue(execution);
        }
    }

    private void queue(Execution execution) {
        Lane lane = lanes.get(execution.jobType());
        int priority = execution.task().getPriority();
        long rank = Rank.of(clock.millis(), priority, priorityAgingMs);
        lane.queue.add(new FairQueue.Entry<>(execution, execution.task().getOwner(), priority, rank, sequence++));
        maybeStart(lane);
    }

    /** Handlers of {@code jobType} running now (0 for a job type without a lane). */
    synchronized int running(String jobType) {
        Lane lane = lanes.get(jobType);
        return lane == null ? 0 : lane.running;
    }

    /** Executions of {@code jobType} queued for a free slot of its lane. */
    synchronized int waiting(String jobType) {
        Lane lane = lanes.get(jobType);
        return lane == null ? 0 : lane.queue.size();
    }

    /**
     * The partitions to pause: none while the overflow of the backlogged lanes is below {@code maxOverflow}, else
     * those that the backlogged lanes' waiting executions came from.
     */
    synchronized Set<TopicPartition> partitionsToPause() {
        int maxWaiting = backlogLimits.maxWaitingPerJobType();
        int overflow = 0;
        for (Lane lane : lanes.values()) {
            overflow += Math.max(0, lane.queue.size() - maxWaiting);
        }
        if (overflow < backlogLimits.maxOverflow()) {
            return Set.of();
        }
        Set<TopicPartition> partitions = new HashSet<>();
        for (Lane lane : lanes.values()) {
            if (lane.queue.size() >= maxWaiting) {
                lane.queue.forEach(execution -> partitions.add(execution.partition()));
            }
        }
        return partitions;
    }

    /** Removes the waiting (not started, or held) executions that match; they will not run here. */
    synchronized List<Execution> dropWaiting(Predicate<Execution> which) {
        List<Execution> dropped = new ArrayList<>();
        held.removeIf(h -> which.test(h.execution()) && dropped.add(h.execution()));
        lanes.values().forEach(lane -> dropped.addAll(lane.queue.removeIf(which)));
        return dropped;
    }

    /** Starts nothing more; waiting executions stay queued until {@link #dropWaiting dropped}. */
    synchronized void close() {
        closed = true;
    }

    private void maybeStart(Lane lane) {
        while (!closed && lane.running < lane.limit && !lane.queue.isEmpty()) {
            FairQueue.Entry<Execution> queued = lane.queue.poll();
            Execution execution = queued.element();
            lane.running++;
            try {
                threads.execute(() -> {
                    try {
                        body.accept(execution);
                    } finally {
                        finished(lane);
                    }
                });
            } catch (RejectedExecutionException e) {
                lane.running--;
                lane.queue.add(queued); // its rank puts it first of its owner again
                return;
            }
        }
    }

    private synchronized void finished(Lane lane) {
        lane.running--;
        maybeStart(lane);
    }
}
