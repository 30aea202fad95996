package io.ax.app.bench;

import io.ax.AxTopics;
import io.ax.client.AxClient;
import java.time.Clock;
import java.time.Duration;

/**
 * One bulk submission of n tasks all due at one instant through {@link AxClient}, waited on until every
 * PENDING is visible on the state topic (or it stalls for a minute). Shared by ingest, burst, capacity and
 * recovery.
 *
 * @param accepted     tasks seen PENDING
 * @param firstSendMs  when the first request was sent
 * @param firstSeenMs  when the first PENDING became visible
 * @param lastSeenMs   when the last PENDING became visible
 */
record Ingest(int n, int accepted, long firstSendMs, long firstSeenMs, long lastSeenMs) {
    /** Accepted tasks / (last PENDING seen − first send). */
    double acceptedPerS() {
        return accepted * 1000.0 / Math.max(1, lastSeenMs - firstSendMs);
    }

    /**
     * The rate once requests flow: (accepted − 1) / (last PENDING seen − first PENDING seen), without the
     * pipeline's fixed latency, which dominates small batches.
     */
    double flowingPerS() {
        return Math.max(1, accepted - 1) * 1000.0 / Math.max(1, lastSeenMs - firstSeenMs);
    }

    static Ingest run(BenchContext context, String label, TaskKeys keys, int n, long dueAtMs) throws Exception {
        return run(context, label, keys, n, dueAtMs, null);
    }

    /** @param priorityOf task i's priority (null: the request's default) */
    static Ingest run(BenchContext context, String label, TaskKeys keys, int n, long dueAtMs,
                      java.util.function.IntUnaryOperator priorityOf) throws Exception {
        return run(context, label, keys, n, i -> dueAtMs, priorityOf == null ? null
                : (index, schedule) -> schedule.priority(priorityOf.applyAsInt(index)));
    }

    /** Task i due at {@code dueAtMsOf(i)}, its request shaped by {@code shape} (null: the typical one). */
    static Ingest run(BenchContext context, String label, TaskKeys keys, int n, java.util.function.IntToLongFunction dueAtMsOf,
                      Submitter.Shape shape) throws Exception {
        Clock clock = context.clock();
        AxTopics topics = context.topics(label);
        try (AxClient client = context.client(topics);
             PendingTracker pending = PendingTracker.start(context.kafka(), topics.state(), clock, keys, n)) {
            Submitter submitter = new Submitter(client, shape);
            try (Progress progress = context.progress(label, () -> "sent %d/%d, acked %d, PENDING visible %d"
                    .formatted(submitter.sent(), n, submitter.acked(), pending.accepted()))) {
                return submitAndAwait(clock, label, keys, n, dueAtMsOf, submitter, pending);
            }
        }
    }

    private static Ingest submitAndAwait(Clock clock, String label, TaskKeys keys, int n,
                                         java.util.function.IntToLongFunction dueAtMsOf, Submitter submitter,
                                         PendingTracker pending) throws InterruptedException {
        long firstSendMs = clock.millis();
        submitter.submitAll(keys, n, dueAtMsOf);
        Await.until(clock, Duration.ofSeconds(120 + n / 500), Duration.ofSeconds(60), pending::accepted,
                () -> pending.accepted() >= n);
        if (pending.rejected() > 0) {
            throw new IllegalStateException(label + ": " + pending.rejected() + " requests were REJECTED");
        }
        return new Ingest(n, pending.accepted(), firstSendMs, pending.firstAcceptedAtMs(), pending.lastAcceptedAtMs());
    }
}
