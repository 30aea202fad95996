package io.ax.worker.idempotency;

import io.ax.worker.JobHandler;
import io.ax.worker.Result;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Remembers, in this process's memory, the executionIds whose handler succeeded, and answers a redelivered one
 * with {@link Result#alreadyDone()} (a success) without running the handler again. Concurrent deliveries of one execution run
 * one at a time. Only as good as the process: a restart forgets, and other processes never knew; use
 * {@link JdbcIdempotencyGuard} for a fleet. Remembers at most {@code capacity} executions (the oldest are
 * forgotten first). Thread-safe; share one guard between the handlers of a worker.
 *
 * <pre>{@code
 * InMemoryIdempotencyGuard guard = new InMemoryIdempotencyGuard(100_000);
 * AxWorker.builder().handler("email", guard.guard(context -> send(context)))...
 * }</pre>
 */
public final class InMemoryIdempotencyGuard {
    private final Map<String, Boolean> done;
    private final Map<String, Object> locks = new ConcurrentHashMap<>();

    /** @param capacity how many succeeded executionIds to remember, at least 1 */
    public InMemoryIdempotencyGuard(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be >= 1: " + capacity);
        }
        this.done = new LinkedHashMap<>(16, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                return size() > capacity;
            }
        };
    }

    /** Wraps {@code handler} so it runs at most once successfully per executionId. */
    public JobHandler guard(JobHandler handler) {
        Objects.requireNonNull(handler, "handler");
        return context -> {
            String executionId = context.executionId();
            Object lock = locks.computeIfAbsent(executionId, id -> new Object());
            try {
                synchronized (lock) {
                    if (isDone(executionId)) {
                        return Result.alreadyDone();
                    }
                    Result result = handler.handle(context);
                    if (result != null && result.isSuccess()) {
                        markDone(executionId);
                    }
                    return result;
                }
            } finally {
                locks.remove(executionId, lock);
            }
        };
    }

    /** Whether a handler succeeded for {@code executionId} (as far as this guard remembers). */
    public synchronized boolean isDone(String executionId) {
        return done.containsKey(executionId);
    }

    private synchronized void markDone(String executionId) {
        done.put(executionId, Boolean.TRUE);
    }
}
