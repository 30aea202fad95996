package io.ax.worker.internal;

import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * One lane per job type: a queue and a limit on how many of its executions run at once. Executions run on one
 * shared pool whose size is the sum of the limits, so a lane at its limit never takes a thread from another
 * lane: a slow job type cannot delay a fast one. A lane whose queue reaches {@code queueCapacity} makes
 * {@link #isFull()} true, and the loop then pauses fetching (backpressure) until it drains.
 *
 * <p>An execution dispatched ahead of its due time (the scheduler's opt-in dispatch-ahead mode) is held aside
 * until then and only then queued: waiting for its due time takes neither a thread nor a place of its lane's
 * limit, so holding hundreds of early dispatches does not delay the ones already due. (The runner still checks
 * the due time before it starts a handler, by the worker's clock.)
 *
 * <p>Thread-safe: the loop submits, handler threads finish.
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

    private final Map<String, Lane> lanes = new LinkedHashMap<>();
    private final Set<Execution> notDue = new HashSet<>();
    private final ScheduledExecutorService dueTimer;
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
        this.dueTimer = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "ax-worker-due-timer");
            thread.setDaemon(true);
            return thread;
        });
    }

    synchronized void submit(Execution execution) {
        long untilDueMs = execution.task().getDueAtMs() - clock.millis();
        if (untilDueMs > 0 && !closed) {
            notDue.add(execution);
            try {
                dueTimer.schedule(() -> release(execution), untilDueMs, TimeUnit.MILLISECONDS);
                return;
            } catch (RejectedExecutionException e) {
                notDue.remove(execution); // closing: queue it; the runner holds it until due
            }
        }
        queue(execution);
    }

    /** Executions held until their due time, not yet queued. */
    synchronized int notDue() {
        return notDue.size();
    }

    /**
     * Queues a held execution: at its due time, or earlier when it was cancelled (the runner then reports it
     * without running it). Does nothing for one not held (queued already, or dropped).
     */
    synchronized void release(Execution execution) {
        if (notDue.remove(execution)) {
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

    /** Removes the waiting (not started, or held until due) executions that match; they will not run here. */
    synchronized List<Execution> dropWaiting(Predicate<Execution> which) {
        List<Execution> dropped = new ArrayList<>();
        notDue.removeIf(execution -> which.test(execution) && dropped.add(execution));
        lanes.values().forEach(lane -> lane.queue.removeIf(execution -> which.test(execution) && dropped.add(execution)));
        return dropped;
    }

    /** Starts nothing more; waiting executions stay queued until {@link #dropWaiting dropped}. */
    synchronized void close() {
        closed = true;
        dueTimer.shutdownNow();
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
