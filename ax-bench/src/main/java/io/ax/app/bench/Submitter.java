package io.ax.app.bench;

import io.ax.client.AxClient;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Submits one-shot tasks through {@link AxClient} without waiting for each acknowledgement (the producer
 * batches them, and blocks when its buffer is full), counting acknowledgements and failures. The request is
 * the bench's typical one: job type {@code bench}, an {@code at} trigger and a small JSON payload.
 *
 * <p>Thread-safe counters; one submitting thread.
 */
public final class Submitter {
    /** Job type of every bench task. */
    public static final String JOB_TYPE = "bench";
    /** A small payload, as a typical request carries. */
    public static final String PAYLOAD = "{\"orderId\":\"ord-000000123\",\"action\":\"remind\"}";

    /** Shapes task i's request beyond the bench's typical one (its priority, owner, job type …). */
    @FunctionalInterface
    public interface Shape {
        void shape(int index, io.ax.client.ScheduleBuilder schedule);
    }

    private final AxClient client;
    private final Shape shape;
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong acked = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private volatile Throwable firstFailure;

    public Submitter(AxClient client) {
        this(client, (Shape) null);
    }

    /** @param priorityOf task i's priority (null: the request's default) */
    public Submitter(AxClient client, java.util.function.IntUnaryOperator priorityOf) {
        this(client, priorityOf == null ? (Shape) null : (index, schedule) -> schedule.priority(priorityOf.applyAsInt(index)));
    }

    /** @param shape shapes task i's request (null: the typical one) */
    public Submitter(AxClient client, Shape shape) {
        this.client = client;
        this.shape = shape;
    }

    /** Sends task {@code taskId} due at {@code dueAtMs}. */
    public void submit(String taskId, long dueAtMs) {
        submit(taskId, dueAtMs, -1);
    }

    private void submit(String taskId, long dueAtMs, int index) {
        sent.incrementAndGet();
        var schedule = client.schedule(taskId).jobType(JOB_TYPE).at(Instant.ofEpochMilli(dueAtMs)).payload(PAYLOAD);
        if (shape != null && index >= 0) {
            shape.shape(index, schedule);
        }
        schedule.submit()
                .whenComplete((metadata, error) -> {
                    if (error == null) {
                        acked.incrementAndGet();
                    } else {
                        failed.incrementAndGet();
                        firstFailure = error;
                    }
                });
    }

    /** Sends tasks {@code keys.key(0 .. n-1)}, all due at {@code dueAtMs}, then flushes. */
    public void submitAll(TaskKeys keys, int n, long dueAtMs) {
        submitAll(keys, n, i -> dueAtMs);
    }

    /** Sends tasks {@code keys.key(0 .. n-1)}, task i due at {@code dueAtMsOf(i)}, then flushes. */
    public void submitAll(TaskKeys keys, int n, java.util.function.IntToLongFunction dueAtMsOf) {
        for (int i = 0; i < n; i++) {
            submit(keys.key(i), dueAtMsOf.applyAsLong(i), i);
        }
        client.flush();
        checkNoFailures();
    }

    public long sent() {
        return sent.get();
    }

    public long acked() {
        return acked.get();
    }

    /** Throws if any send failed: a benchmark of lost requests would measure the wrong thing. */
    public void checkNoFailures() {
        if (failed.get() > 0) {
            throw new IllegalStateException(failed.get() + " requests failed to send, first: " + firstFailure, firstFailure);
        }
    }
}
