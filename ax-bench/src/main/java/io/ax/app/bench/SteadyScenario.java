package io.ax.app.bench;

import java.util.List;

/**
 * {@code steady}: R tasks/s (default 1,000), each due ~2 s after it is sent, for D s (default 60), with a no-op
 * worker in this process ({@link SteadyRun}). Result: {@code dispatch_p99_ms} (visible on the dispatch topic −
 * due), {@code fired_p50_ms fired_p99_ms} (the dispatch's {@code firedAtMs} − due: the scheduler's decision, before
 * the commit that makes it visible), {@code p50_ms p99_ms max_ms} (handler start − due), {@code early lost dup},
 * {@code submit_per_s}.
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
            SteadyRun.Outcome outcome = SteadyRun.run(context, "steady", rate, durationS);
            return List.of(outcome.addTo(ResultLine.of("steady", outcome.n()), "")
                    .add("submit_per_s", outcome.submitPerS()));
        }
    }
}
