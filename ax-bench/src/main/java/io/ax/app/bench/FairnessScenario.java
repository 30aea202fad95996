package io.ax.app.bench;

import io.ax.AxTopics;
import io.ax.worker.AxWorker;
import io.ax.worker.Result;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code fairness}: two owners and two job types on one scheduler and a worker fleet in this JVM. Owner {@code big}
 * submits n tasks (default 200,000) all due at one instant D; owner {@code small} submits 100 due evenly over the
 * seconds the big owner's backlog takes to drain from D on (n / 10,000 per second, 2 s to 30 s). Every 100th task of the big owner and every 10th of
 * the small one is of job type {@value #LIMITED}, which has a cluster-wide limit of {@code limit} executions in flight
 * (default {@value #DEFAULT_LIMIT}; {@code -Dax.bench.fairness.limit}); the rest are {@value #FREE}, unlimited.
 * Everything is ingested before D. Measured, as a read_committed worker sees the dispatch topic: each owner's dispatch
 * lateness ({@code small_owner_p99_ms}, {@code big_owner_p99_ms}: visible − due), and, by the workers, the most
 * {@value #LIMITED} executions running at once ({@code limited_max_in_flight}, never above {@code limit}); with {@code
 * early lost dup}. Owners share the backlog in turns, at firing and at the gate of the limited type, so the small
 * owner's lateness stays far below the big owner's.
 */
public final class FairnessScenario implements Scenario {
    static final int DEFAULT_N = 200_000;
    static final int DEFAULT_LIMIT = 50;
    static final String LIMITED = "charge-card";
    static final String FREE = "email";
    static final String BIG = "big";
    static final String SMALL = "small";
    private static final int SMALL_N = 100;
    private static final TaskKeys CALIBRATION = new TaskKeys("calibrate-");
    private static final TaskKeys KEYS = new TaskKeys("fair-");
    private static final long LEAD_MS = 5_000;
    private static final long LIMITED_HANDLER_MS = 5;

    @Override
    public String name() {
        return "fairness";
    }

    @Override
    public List<ResultLine> run(BenchContext context) throws Exception {
        Clock clock = context.clock();
        int big = context.options().nOr(DEFAULT_N);
        int n = big + SMALL_N;
        int limit = Integer.getInteger("ax.bench.fairness.limit", DEFAULT_LIMIT);
        AxTopics topics = context.topics("fairness");
        Path stateDir = context.newDir("fairness-state");
        try (ChildScheduler scheduler = context.startScheduler("fairness", stateDir)) {
            try (io.ax.client.AxClient client = context.client(topics)) {
                client.setLimit("type:" + LIMITED, io.ax.FlowLimit.none().withMaxInFlight(limit)).join();
            }
            int calibrationN = Math.max(1_000, Math.min(big / 10, 20_000));
            double ingestPerS = Ingest.run(context, "fairness", CALIBRATION, calibrationN,
                    clock.millis() + Duration.ofDays(1).toMillis()).flowingPerS();
            context.note("calibration: %.0f accepted/s".formatted(ingestPerS));
            long dueMs = clock.millis() + (long) (n * 1000.0 / (0.7 * ingestPerS)) + LEAD_MS;
            // The small owner's tasks come due over the seconds the big owner's backlog takes to fire (at ~10,000/s).
            long spreadMs = Math.max(2_000, Math.min(30_000, big / 10));
            java.util.function.IntToLongFunction dueOf = i -> i < big ? dueMs : dueMs + (i - big) * spreadMs / SMALL_N;
            AtomicInteger running = new AtomicInteger();
            AtomicInteger maxRunning = new AtomicInteger();
            List<AxWorker> workers = startWorkers(context, topics, running, maxRunning);
            java.util.function.IntPredicate smallLimited = i -> i >= big && (i - big) % 10 == 0;
            java.util.function.IntPredicate bigLimited = i -> i < big && i % 100 == 0;
            try (DispatchTracker dispatch = DispatchTracker.start(context.kafka(), topics.dispatch(), clock, KEYS, n, dueOf::applyAsLong);
                 GatedTimeline smallTimeline = GatedTimeline.start(context.kafka(), topics.state(), clock, KEYS, n, smallLimited,
                         dueOf::applyAsLong);
                 GatedTimeline bigTimeline = GatedTimeline.start(context.kafka(), topics.state(), clock, KEYS, n, bigLimited,
                         dueOf::applyAsLong)) {
                Ingest ingest = Ingest.run(context, "fairness", KEYS, n, dueOf, (i, schedule) -> {
                    boolean small = i >= big;
                    schedule.owner(small ? SMALL : BIG);
                    schedule.jobType((small ? smallLimited.test(i) : bigLimited.test(i)) ? LIMITED : FREE);
                });
                context.note("ingested %d tasks at %.0f/s, %d ms before the big owner's are due".formatted(
                        ingest.accepted(), ingest.acceptedPerS(), dueMs - ingest.lastSeenMs()));
                try (Progress progress = context.progress("fairness", () -> "dispatched %d/%d, %d ms after due, %s in flight"
                        .formatted(dispatch.dispatched(), n, clock.millis() - dueMs, running.get()))) {
                    Await.untilTime(clock, dueMs);
                    // The limited type's tail runs at most `limit` at a time, each slot going round the gate, the worker and
                    // back: give it time, and give up only when nothing at all was dispatched for two minutes.
                    Await.until(clock, Duration.ofSeconds(300 + n / 200), Duration.ofSeconds(120), dispatch::dispatched,
                            () -> dispatch.dispatched() >= n);
                    Thread.sleep(1_000); // let duplicates, if any, show up
                }
                LatencyRecorder smallLateness = dispatch.visibleLatenessOf(SMALL);
                LatencyRecorder bigLateness = dispatch.visibleLatenessOf(BIG);
                return List.of(ResultLine.of("fairness", n)
                        .add("small_owner_p50_ms", smallLateness.percentileMs(50))
                        .add("small_owner_p99_ms", smallLateness.percentileMs(99))
                        .add("big_owner_p50_ms", bigLateness.percentileMs(50))
                        .add("big_owner_p99_ms", bigLateness.percentileMs(99))
                        // the limited type's share of each owner: the gated tail (the owners' p99 above mix both types)
                        .add("small_limited_p50_ms", dispatch.visibleLatenessOf(SMALL, LIMITED).percentileMs(50))
                        .add("small_limited_max_ms", dispatch.visibleLatenessOf(SMALL, LIMITED).maxMs())
                        .add("big_limited_p50_ms", dispatch.visibleLatenessOf(BIG, LIMITED).percentileMs(50))
                        .add("big_limited_max_ms", dispatch.visibleLatenessOf(BIG, LIMITED).maxMs())
                        // where the limited type's lateness goes: event times on ax.state − due (medians)
                        .add("small_limited_partition_held_p50_ms", smallTimeline.stage("partition_held").percentileMs(50))
                        .add("small_limited_gate_held_p50_ms", smallTimeline.stage("gate_held").percentileMs(50))
                        .add("small_limited_triggered_p50_ms", smallTimeline.stage("triggered").percentileMs(50))
                        .add("big_limited_partition_held_p50_ms", bigTimeline.stage("partition_held").percentileMs(50))
                        .add("big_limited_triggered_p50_ms", bigTimeline.stage("triggered").percentileMs(50))
                        .add("limit", limit)
                        .add("limited_max_in_flight", maxRunning.get())
                        .add("early", dispatch.early())
                        .add("lost", n - dispatch.dispatched())
                        .add("dup", dispatch.dup()));
            } finally {
                workers.forEach(AxWorker::close);
            }
        }
    }

    /**
     * Two workers, each able to run 4 × the limit of the limited type at once (so only the scheduler's limit holds it
     * back), counting how many of its executions run at once.
     */
    private static List<AxWorker> startWorkers(BenchContext context, AxTopics topics, AtomicInteger running,
                                               AtomicInteger maxRunning) {
        int limit = Integer.getInteger("ax.bench.fairness.limit", DEFAULT_LIMIT);
        List<AxWorker> workers = new ArrayList<>();
        for (int w = 1; w <= 2; w++) {
            AxWorker worker = AxWorker.builder().connectionProperties(context.kafka()).topics(topics)
                    .groupId(context.name("fairness-workers")).workerId("fairness-worker-" + w)
                    // Enough handlers that the unlimited type's backlog does not hold the workers' partitions (and so the
                    // limited type's dispatches behind them) paused for long: the limit is the scheduler's to hold.
                    .handler(FREE, 32, job -> Result.success())
                    .maxWaitingPerJobType(100_000)
                    .handler(LIMITED, 4 * limit, job -> {
                        maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
                        try {
                            Thread.sleep(LIMITED_HANDLER_MS);
                        } finally {
                            running.decrementAndGet();
                        }
                        return Result.success();
                    })
                    .build();
            worker.start();
            workers.add(worker);
        }
        return workers;
    }
}
