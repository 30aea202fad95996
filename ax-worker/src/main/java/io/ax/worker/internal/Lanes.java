package io.ax.worker.internal;

import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * One lane per job type: a queue and a limit on how many of its executions run at once. Executions run on one
 * shared pool whose size is the sum of the limits, so a lane at its limit never takes a thread from another
 * lane: a slow job type cannot delay a fast one. A lane whose queue reaches {@code queueCapacity} makes
 * {@link #isFull()} true, and the loop then pauses fetching (backpressure) until it drains.
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
        final ArrayDeque<Execution> queue = new ArrayDeque<>();
        int running;

        Lane(int limit) {
            this.limit = limit;
        }
    }

    private record Held(Execution execution, long releaseAtMs) {
    }

    private final Map<String, Lane> lanes = new LinkedHashMap<>();
    private final PriorityQueue<Held> held = new PriorityQueue<>(Comparator.comparingLong(Held::releaseAtMs));
    private final Clock clock;
    private final ExecutorService threads;
    private final int queueCapacity;
    private final Consumer<Execution> body;
    private boolean closed;

    /** @param body runs one execution on a pool thread; must not throw except for a VirtualMachineError */
    Lanes(Map<String, Integer> limits, int queueCapacity, ExecutorService threads, Clock clock, Consumer<Execution> body) {
        limits.forEach((jobType, limit) -> lanes.put(jobType, new Lane(limit)));
        this.queueCapacity = queueCapacity;
        this.threads = threads;
        this.clock = clock;
        this.body = body;
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
        lane.queue.add(execution);
        maybeStart(lane);
    }

    /** Whether some job type has {@code queueCapacity} executions waiting. */
    synchronized boolean isFull() {
        for (Lane lane : lanes.values()) {
            if (lane.queue.size() >= queueCapacity) {
                return true;
            }
        }
        return false;
    }

    /** Removes the waiting (not started, or held) executions that match; they will not run here. */
    synchronized List<Execution> dropWaiting(Predicate<Execution> which) {
        List<Execution> dropped = new ArrayList<>();
        held.removeIf(h -> which.test(h.execution()) && dropped.add(h.execution()));
        lanes.values().forEach(lane -> lane.queue.removeIf(execution -> which.test(execution) && dropped.add(execution)));
        return dropped;
    }

    /** Starts nothing more; waiting executions stay queued until {@link #dropWaiting dropped}. */
    synchronized void close() {
        closed = true;
    }

    private void maybeStart(Lane lane) {
        while (!closed && lane.running < lane.limit && !lane.queue.isEmpty()) {
            Execution execution = lane.queue.poll();
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
                lane.queue.addFirst(execution);
                return;
            }
        }
    }

    private synchronized void finished(Lane lane) {
        lane.running--;
        maybeStart(lane);
    }
}
