package io.ax.app.bench;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * {@code burst}: n tasks (default 1,000,000) all due at one instant D. A calibration batch (n/10, 1,000 to
 * 20,000 tasks due in a day, other keys) measures the scheduler's ingest rate once requests flow. Then, for
 * {@code --warmup} seconds, smaller bursts with other keys are ingested and fired the same way (as far ahead of their due
 * time, {@link #LEAD_MS}), so the
 * JIT has compiled the fire path as it has in a scheduler that has been running (a cold JVM spends much of a
 * burst compiling it). For each burst, D = now + n / (0.7 × the last ingest rate) + a lead, so the batch is
 * ingested before it is due. From D, the dispatch topic is read as a read_committed worker would:
 * {@code fires_per_s} = dispatched / (last visible − D), lateness {@code p50_ms p99_ms max_ms} (visible − D),
 * {@code early lost dup}; {@code lead_ms} = D − when the last PENDING was visible (negative: ingest was not
 * over at D, so lateness includes it); {@code warmup_fires_per_s} is the last warm-up burst's rate.
 * {@code cpu_us_per_task_ingest} and {@code _fire}: the scheduler process's CPU per task while the measured burst was
 * taken in and from D until its last dispatch was read; {@code bench_cpu_us_per_task_*} the same of the bench process
 * (the embedded broker when the bench runs it, the client, the readers) ({@link CpuPerTask}).
 */
public final class BurstScenario implements Scenario {
    static final int DEFAULT_N = 1_000_000;
    /**
     * How long before its due time a burst is done ingesting, at least: the measured burst's and the warm-up bursts' alike,
     * so the warm-ups' timers lie beyond the wheel's horizon (5.12 s by default) as the measured burst's do and take the
     * same way to their fire (the far level or the timer index, then the wheel). With warm-ups due within the horizon
     * (1 s, until the sixteenth session) that way was compiled during the measured burst: the scheduler's C2 compiler took
     * 0.8 s of CPU in the burst's few seconds on a 2-core box.
     */
    private static final long LEAD_MS = 5_000;

    @Override
    public String name() {
        return "burst";
    }

    @Override
    public List<ResultLine> run(BenchContext context) throws Exception {
        Clock clock = context.clock();
        int n = context.options().nOr(DEFAULT_N);
        Path stateDir = context.newDir("burst-state");
        try (ChildScheduler scheduler = context.startScheduler("burst", stateDir)) {
            int smallN = Math.max(1_000, Math.min(n / 10, 20_000));
            Ingest calibration = Ingest.run(context, "burst", context.options().keys("calibrate-"), smallN,
                    clock.millis() + Duration.ofDays(1).toMillis());
            double ingestPerS = calibration.flowingPerS();
            context.note("calibration: %.0f accepted/s".formatted(ingestPerS));
            Burst warm = null;
            long warmUntilMs = clock.millis() + context.options().warmupS() * 1000L;
            for (int round = 1; clock.millis() < warmUntilMs; round++) {
                warm = Burst.run(context, context.options().keys("warm" + round + "-"), smallN, ingestPerS, LEAD_MS);
                ingestPerS = warm.ingest().flowingPerS();
                context.note("warm-up burst %d: %d tasks, %.0f fires/s".formatted(round, smallN, warm.firesPerS()));
            }
            Burst burst = Burst.measured(context, context.options().keys(TaskKeys.TASKS.prefix()), n, ingestPerS, LEAD_MS, scheduler.pid());
            ResultLine line = ResultLine.of("burst", n).add("fires_per_s", burst.firesPerS());
            line = burst.dispatch().visibleLateness().addTo(line, "")
                    .add("early", burst.dispatch().early()).add("lost", n - burst.dispatch().dispatched())
                    .add("dup", burst.dispatch().dup())
                    .add("ingest_per_s", burst.ingest().acceptedPerS()).add("lead_ms", burst.leadMs());
            line = burst.ingestCpu().addTo(line, "_ingest", n);
            line = burst.fireCpu().addTo(line, "_fire", n);
            if (warm != null) {
                line = line.add("warmup_fires_per_s", warm.firesPerS());
            }
            return List.of(line);
        }
    }
}
