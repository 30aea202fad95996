package io.ax.app.bench;

import java.util.List;

/**
 * {@code steady}: R tasks/s (default 1,000), each due ~2 s after it is sent, for D s (default 60), with a no-op
 * worker in this process ({@link SteadyRun}). Result: {@code dispatch_p99_ms} (visible on the dispatch topic −
 * due), {@code fired_p50_ms fired_p99_ms} (the dispatch's {@code firedAtMs} − due: the scheduler's decision, before
 * the commit that makes it visible), {@code p50_ms p99_ms max_ms} (handler start − due), {@code early lost dup},
 * {@code seconds_over_150ms} (the seconds of due time holding a dispatch visible over 150 ms late; {@code --timeline}
 * prints each second, {@link LatenessBySecond}),
 * {@code submit_per_s}, {@code cpu_us_per_task} (the scheduler process's CPU from the first measured request until the
 * last was handled, per task: its whole life, request, fire and two reports; {@code bench_cpu_us_per_task} the bench
 * process's: the embedded broker when the bench runs it, the client, the worker, the readers; {@link CpuPerTask}).
 */
public final class SteadyScenario implements Scenario {
    static final int DEFAULT_RATE = 1_000;
    static final int DEFAULT_DURATION_S = 60;

    @Override
    public String name() {
        return "steady";
    }

    @Override
    public List<ResultLine> run(BenchContext context) throws Exception {
        int rate = context.options().rateOr(DEFAULT_RATE);
        int durationS = context.options().durationOr(DEFAULT_DURATION_S);
        try (ChildScheduler scheduler = context.startScheduler("steady", context.newDir("steady-state"))) {
            java.util.concurrent.atomic.AtomicReference<CpuPerTask.Window> measuring = new java.util.concurrent.atomic.AtomicReference<>();
            SteadyRun.Outcome outcome = SteadyRun.run(context, "steady", rate, durationS,
                    () -> measuring.set(CpuPerTask.start(scheduler.pid())));
            ResultLine line = outcome.addTo(ResultLine.of("steady", outcome.n()), "").add("submit_per_s", outcome.submitPerS());
            return List.of(measuring.get().end().addTo(line, "", outcome.n()));
        }
    }
}
