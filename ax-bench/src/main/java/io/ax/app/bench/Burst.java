package io.ax.app.bench;

import io.ax.AxTopics;
import java.time.Clock;
import java.time.Duration;

/**
 * One burst: n tasks ingested, all due at {@code dueMs}, and their dispatches as read after it; with a scheduler pid,
 * the scheduler's and the bench's CPU while the tasks were taken in ({@code ingestCpu}) and from their due time until
 * the last dispatch was read ({@code fireCpu}); null without one.
 */
record Burst(Ingest ingest, DispatchTracker dispatch, long dueMs, CpuPerTask ingestCpu, CpuPerTask fireCpu) {
    double firesPerS() {
        return dispatch.dispatched() * 1000.0 / Math.max(1, dispatch.lastVisibleAtMs() - dueMs);
    }

    long leadMs() {
        return dueMs - ingest.lastSeenMs();
    }

    static Burst run(BenchContext context, TaskKeys keys, int n, double ingestPerS, long leadMs) throws Exception {
        return run(context, "burst", keys, n, ingestPerS, leadMs, null, 0);
    }

    /** A burst whose CPU is measured on the scheduler process {@code schedulerPid}. */
    static Burst measured(BenchContext context, TaskKeys keys, int n, double ingestPerS, long leadMs, long schedulerPid)
            throws Exception {
        return run(context, "burst", keys, n, ingestPerS, leadMs, null, schedulerPid);
    }

    /**
     * @param label      the scenario's name (its topics, its progress lines)
     * @param priorityOf task i's priority (null: the request's default)
     * @param schedulerPid the scheduler's pid, whose CPU is measured (0: none)
     */
    static Burst run(BenchContext context, String label, TaskKeys keys, int n, double ingestPerS, long leadMs,
                     java.util.function.IntUnaryOperator priorityOf, long schedulerPid) throws Exception {
        Clock clock = context.clock();
        AxTopics topics = context.topics(label);
        long dueMs = clock.millis() + (long) (n * 1000.0 / (0.7 * ingestPerS)) + leadMs;
        context.note("%d tasks (%s*) due in %d ms".formatted(n, keys.prefix(), dueMs - clock.millis()));
        try (DispatchTracker dispatch = DispatchTracker.start(context.kafka(), topics.dispatch(), clock,
                keys, n, i -> dueMs)) {
            CpuPerTask.Window ingesting = schedulerPid > 0 ? CpuPerTask.start(schedulerPid) : null;
            Ingest ingest = Ingest.run(context, label, keys, n, dueMs, priorityOf);
            CpuPerTask ingestCpu = ingesting == null ? null : ingesting.end();
            CpuPerTask fireCpu = null;
            context.note("ingested %d tasks at %.0f/s, %d ms before they are due".formatted(
                    ingest.accepted(), ingest.acceptedPerS(), dueMs - ingest.lastSeenMs()));
            try (Progress progress = context.progress(label, () -> "dispatched %d/%d, %d ms after due".formatted(
                    dispatch.dispatched(), n, clock.millis() - dueMs))) {
                Await.untilTime(clock, dueMs);
                CpuPerTask.Window firing = schedulerPid > 0 ? CpuPerTask.start(schedulerPid) : null;
                Await.until(clock, Duration.ofSeconds(60 + n / 2_000), Duration.ofSeconds(30), dispatch::dispatched,
                        () -> dispatch.dispatched() >= n);
                fireCpu = firing == null ? null : firing.end();
                Thread.sleep(1_000); // let duplicates, if any, show up
            }
            return new Burst(ingest, dispatch, dueMs, ingestCpu, fireCpu);
        }
    }
}
