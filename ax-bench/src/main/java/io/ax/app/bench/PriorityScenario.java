package io.ax.app.bench;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * {@code priority}: n tasks (default 200,000) all due at one instant D, priority {@code i % 10}, so the scheduler
 * fires a backlog of mixed priorities as fast as it can. A calibration batch measures the ingest rate first, so that D
 * lies after the whole batch is ingested. From D, the dispatch topic is read as a read_committed worker would: the
 * visible lateness of each priority ({@code p<P>_p50_ms}, {@code p<P>_p99_ms}: visible − D), {@code fires_per_s},
 * {@code early lost dup}. With ax's priority aging ({@code ax.priority.aging.ms}, 1 s) priority 9 goes first and
 * priority 0 last, each lower level at most one aging later than the next (set it with {@code -D}).
 */
public final class PriorityScenario implements Scenario {
    static final int DEFAULT_N = 200_000;
    private static final TaskKeys CALIBRATION = new TaskKeys("calibrate-");
    private static final long LEAD_MS = 5_000;

    @Override
    public String name() {
        return "priority";
    }

    @Override
    public List<ResultLine> run(BenchContext context) throws Exception {
        Clock clock = context.clock();
        int n = context.options().nOr(DEFAULT_N);
        Path stateDir = context.newDir("priority-state");
        try (ChildScheduler scheduler = context.startScheduler("priority", stateDir)) {
            int calibrationN = Math.max(1_000, Math.min(n / 10, 20_000));
            Ingest calibration = Ingest.run(context, "priority", CALIBRATION, calibrationN,
                    clock.millis() + Duration.ofDays(1).toMillis());
            double ingestPerS = calibration.flowingPerS();
            context.note("calibration: %.0f accepted/s".formatted(ingestPerS));
            Burst burst = Burst.run(context, "priority", TaskKeys.TASKS, n, ingestPerS, LEAD_MS, i -> i % 10, 0);
            DispatchTracker dispatch = burst.dispatch();
            ResultLine line = ResultLine.of("priority", n).add("fires_per_s", burst.firesPerS());
            for (int priority = 9; priority >= 0; priority--) {
                LatencyRecorder lateness = dispatch.visibleLateness(priority);
                line = line.add("p" + priority + "_p50_ms", lateness.percentileMs(50))
                        .add("p" + priority + "_p99_ms", lateness.percentileMs(99));
            }
            line = line.add("early", dispatch.early()).add("lost", n - dispatch.dispatched()).add("dup", dispatch.dup())
                    .add("lead_ms", burst.leadMs());
            return List.of(line);
        }
    }
}
