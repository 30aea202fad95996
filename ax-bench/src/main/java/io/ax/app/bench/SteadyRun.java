package io.ax.app.bench;

import io.ax.AxTopics;
import io.ax.client.AxClient;
import io.ax.worker.AxWorker;
import io.ax.worker.Result;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * An open-loop steady load on a running scheduler: {@code rate} tasks per second for {@code duration}, each due
 * {@value #LEAD_MS} ms after it is sent, paced by a {@link Pacer} on the clock, with a no-op {@link AxWorker}
 * in this process. Measures dispatch visibility lateness ({@link DispatchTracker}) and handler start lateness
 * (handler start − due, on the worker's threads). One task runs through the whole loop first, so start-up
 * (group joins, first transactions) is not measured.
 */
final class SteadyRun {
    static final long LEAD_MS = 2_000;
    private static final TaskKeys WARM_UP = new TaskKeys("warmup-");

    /** What one run saw. */
    record Outcome(int n, double submitPerS, DispatchTracker dispatch, LatencyRecorder handlerLateness, int handled) {
        /**
         * Adds {@code dispatch_p99_ms fired_p50_ms fired_p99_ms p50_ms p99_ms max_ms early lost dup seconds_over_150ms}, keys
         * prefixed by {@code prefix} ({@code fired_p99_ms}: the scheduler's fire time − due; the rest of {@code dispatch_p99_ms}
         * is the commit; {@code seconds_over_150ms}: the seconds of due time holding a dispatch visible over 150 ms late).
         */
        ResultLine addTo(ResultLine line, String prefix) {
            line.add(prefix + "dispatch_p99_ms", dispatch.visibleLateness().percentileMs(99));
            line.add(prefix + "fired_p50_ms", dispatch.firedLateness().percentileMs(50))
                    .add(prefix + "fired_p99_ms", dispatch.firedLateness().percentileMs(99));
            handlerLateness.addTo(line, prefix);
            // In the opt-in dispatch-ahead mode dispatches are visible early by design; handler_early must stay 0.
            return line.add(prefix + "early", dispatch.early() + handlerLateness.early())
                    .add(prefix + "handler_early", handlerLateness.early())
                    .add(prefix + "lost", n - dispatch.dispatched()).add(prefix + "dup", dispatch.dup())
                    .add(prefix + "seconds_over_" + LatenessBySecond.LATE_MS + "ms", dispatch.bySecond().secondsLate());
        }
    }

    private SteadyRun() {
    }

    /**
     * Runs the load against the scheduler started under {@code label}, after {@code warmupS} seconds of the same load
     * with other task keys that are not measured; closes its worker, client and tracker.
     */
    static Outcome run(BenchContext context, String label, int ratePerS, int durationS) throws Exception {
        return run(context, label, ratePerS, durationS, () -> { });
    }

    /** As {@link #run(BenchContext, String, int, int)}, calling {@code atMeasurementStart} as the measured load begins. */
    static Outcome run(BenchContext context, String label, int ratePerS, int durationS, Runnable atMeasurementStart)
            throws Exception {
        int warmupS = context.options().warmupS();
        if (warmupS > 0) {
            Outcome warmUp = run(context, label, context.options().keys("warm-"), ratePerS, warmupS, () -> { });
            // Whether the scheduler kept up while its code was compiled: a cold JVM that fell seconds behind starts the
            // measured run right after catching up, with the compilations and the stores' compactions still under way.
            context.note(label + ": warm-up (not measured): " + warmUpSummary(warmUp));
            if (!InputLag.awaitZero(context.kafka(), context.name(label), context.topics(label).coPartitioned(),
                    context.clock(), Duration.ofSeconds(60))) {
                context.note("the scheduler still had unread input 60 s after the warm-up; measuring anyway");
            }
        }
        Outcome measured = run(context, label, context.options().keys(TaskKeys.TASKS.prefix()), ratePerS, durationS, atMeasurementStart);
        if (context.options().timeline()) {
            context.note(label + ": lateness by second of due time, from the first measured task's");
            measured.dispatch().bySecond().lines().forEach(line -> context.note(label + ": " + line));
        }
        return measured;
    }

    /** The warm-up's lateness, as a note: visible p50 / p99 / max and its seconds over the threshold. */
    static String warmUpSummary(Outcome warmUp) {
        LatencyRecorder visible = warmUp.dispatch().visibleLateness();
        return "visible lateness p50 %d ms, p99 %d ms, max %d ms; %d of its seconds over %d ms".formatted(
                visible.percentileMs(50), visible.percentileMs(99), visible.maxMs(), warmUp.dispatch().bySecond().secondsLate(),
                LatenessBySecond.LATE_MS);
    }

    private static Outcome run(BenchContext context, String label, TaskKeys keys, int ratePerS, int durationS,
                               Runnable atStart) throws Exception {
        Clock clock = context.clock();
        AxTopics topics = context.topics(label);
        int n = Math.multiplyExact(ratePerS, durationS);
        AtomicLongArray dueMs = new AtomicLongArray(n);
        LatencyRecorder handlerLateness = new LatencyRecorder();
        AtomicInteger handled = new AtomicInteger();
        AtomicInteger warmedUp = new AtomicInteger();
        AxWorker worker = AxWorker.builder().connectionProperties(context.kafka()).topics(topics).clock(clock)
                .groupId(context.name(label) + "-workers").concurrency(8)
                .handler(Submitter.JOB_TYPE, job -> {
                    long startedMs = clock.millis();
                    if (keys.indexOf(job.taskId(), n) >= 0) {
                        handlerLateness.record(startedMs - job.dueAt().toEpochMilli());
                        handled.incrementAndGet();
                    } else if (WARM_UP.indexOf(job.taskId(), 1) == 0) {
                        warmedUp.incrementAndGet();
                    }
                    return Result.success();
                }).build();
        try (worker; AxClient client = context.client(topics);
             DispatchTracker dispatch = DispatchTracker.start(context.kafka(), topics.dispatch(), clock,
                     keys, n, dueMs::get);
             InputsCommitted inputs = InputsCommitted.of(context.kafka(), context.name(label), topics.coPartitioned(), clock)) {
            worker.start();
            Submitter submitter = new Submitter(client);
            submitter.submit(WARM_UP.key(0), clock.millis());
            if (!Await.until(clock, Duration.ofSeconds(90), () -> warmedUp.get() > 0)) {
                throw new IllegalStateException(label + ": the warm-up task did not run within 90 s");
            }
            try (Progress progress = context.progress(label, () -> "sent %d/%d, dispatched %d, handled %d".formatted(
                    submitter.sent() - 1, n, dispatch.dispatched(), handled.get()))) {
                atStart.run();
                double submitPerS = submitPaced(clock, submitter, keys, dueMs, n, ratePerS);
                // stragglers: as long as dispatches keep coming or the scheduler keeps committing its inputs (15 s
                // without either ends it), at most 90 s
                Await.until(clock, Duration.ofSeconds(90), Duration.ofSeconds(15),
                        () -> dispatch.dispatched() + handled.get() + inputs.committed(),
                        () -> dispatch.dispatched() >= n && handled.get() >= n);
                Thread.sleep(500); // let duplicates, if any, show up
                submitter.checkNoFailures();
                return new Outcome(n, submitPerS, dispatch, handlerLateness, handled.get());
            }
        }
    }

    private static double submitPaced(Clock clock, Submitter submitter, TaskKeys keys, AtomicLongArray dueMs, int n, int ratePerS)
            throws InterruptedException {
        Pacer pacer = new Pacer(clock, ratePerS);
        long startMs = clock.millis();
        int i = 0;
        while (i < n) {
            for (int permits = pacer.awaitPermits(); permits > 0 && i < n; permits--, i++) {
                long due = clock.millis() + LEAD_MS;
                dueMs.set(i, due); // published before the send, so the tracker reads it when the dispatch arrives
                submitter.submit(keys.key(i), due);
            }
        }
        return n * 1000.0 / Math.max(1, clock.millis() - startMs);
    }
}
