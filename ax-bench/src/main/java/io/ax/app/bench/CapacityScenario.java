package io.ax.app.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * {@code capacity}: what P pending timers (default 10,000,000, all due in a day) cost the scheduler, and whether
 * they slow firing. First a steady load (default 1,000/s for 30 s) on an empty scheduler gives the baseline
 * ({@code empty_p99_ms}, and {@code empty_heap_mb}); then a second scheduler is loaded with P timers:
 * {@code heap_mb} (its used heap after a full GC, via jcmd), {@code disk_bytes_per_timer} (its state dir / P),
 * {@code load_per_s}, and the same steady load on top: {@code p99_ms} (handler start − due) with
 * {@code dispatch_p99_ms early lost dup}.
 */
public final class CapacityScenario implements Scenario {
    static final int DEFAULT_PENDING = 10_000_000;
    static final int DEFAULT_DURATION_S = 30;
    private static final TaskKeys PENDING = new TaskKeys("pending-");

    @Override
    public String name() {
        return "capacity";
    }

    @Override
    public List<ResultLine> run(BenchContext context) throws Exception {
        int pending = context.options().pendingOr(DEFAULT_PENDING);
        int rate = context.options().rateOr(SteadyScenario.DEFAULT_RATE);
        int durationS = context.options().durationOr(DEFAULT_DURATION_S);

        double emptyHeapMb;
        SteadyRun.Outcome empty;
        try (ChildScheduler scheduler = context.startScheduler("capacity-empty", context.newDir("capacity-empty-state"))) {
            emptyHeapMb = HeapProbe.usedAfterGcMb(scheduler.pid());
            empty = SteadyRun.run(context, "capacity-empty", rate, durationS);
        }
        context.note("empty store: heap %.1f MB, p99 %d ms".formatted(emptyHeapMb, empty.handlerLateness().percentileMs(99)));

        Path stateDir = context.newDir("capacity-state");
        try (ChildScheduler scheduler = context.startScheduler("capacity", stateDir)) {
            Ingest load = Ingest.run(context, "capacity", PENDING, pending,
                    context.clock().millis() + Duration.ofDays(1).toMillis());
            if (load.accepted() < pending) {
                throw new IllegalStateException("capacity: only " + load.accepted() + " of " + pending + " timers accepted");
            }
            double heapMb = HeapProbe.usedAfterGcMb(scheduler.pid());
            long diskBytes = BenchFiles.sizeBytes(stateDir);
            context.note("%d timers: heap %.1f MB, state dir %d bytes".formatted(pending, heapMb, diskBytes));
            SteadyRun.Outcome loaded = SteadyRun.run(context, "capacity", rate, durationS);
            ResultLine line = ResultLine.of("capacity", pending).add("heap_mb", heapMb)
                    .add("disk_bytes_per_timer", (double) diskBytes / pending)
                    .add("p99_ms", loaded.handlerLateness().percentileMs(99))
                    .add("empty_p99_ms", empty.handlerLateness().percentileMs(99))
                    .add("empty_heap_mb", emptyHeapMb)
                    .add("load_per_s", load.acceptedPerS())
                    .add("dispatch_p99_ms", loaded.dispatch().visibleLateness().percentileMs(99))
                    .add("empty_dispatch_p99_ms", empty.dispatch().visibleLateness().percentileMs(99))
                    .add("steady_n", loaded.n());
            return List.of(line.add("early", loaded.dispatch().early() + loaded.handlerLateness().early()
                            + empty.dispatch().early() + empty.handlerLateness().early())
                    .add("lost", loaded.n() - loaded.dispatch().dispatched() + empty.n() - empty.dispatch().dispatched())
                    .add("dup", loaded.dispatch().dup() + empty.dispatch().dup()));
        }
    }
}
