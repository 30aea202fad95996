package io.ax.app.bench;

import java.util.List;

/**
 * {@code idle}: CPU of a scheduler with no tasks, as % of one core ({@code cpu_pct}), sampled from
 * {@code /proc} over {@code --duration} seconds (default 20) once it has been running for
 * {@value #SETTLE_MS} ms. With the embedded broker, {@code broker_cpu_pct} is this bench process over the same
 * window: the broker plus an otherwise idle bench JVM. Against {@code --bootstrap} the broker is elsewhere and
 * not reported.
 */
public final class IdleScenario implements Scenario {
    static final int DEFAULT_DURATION_S = 20;
    static final long SETTLE_MS = 5_000;

    @Override
    public String name() {
        return "idle";
    }

    @Override
    public List<ResultLine> run(BenchContext context) throws Exception {
        int durationS = context.options().durationOr(DEFAULT_DURATION_S);
        try (ChildScheduler scheduler = context.startScheduler("idle", context.newDir("idle-state"))) {
            Await.untilTime(context.clock(), scheduler.runningAtMs() + SETTLE_MS);
            ProcessCpu schedulerCpu = ProcessCpu.startWindow(scheduler.pid(), context.clock());
            ProcessCpu benchCpu = ProcessCpu.startWindow(ProcessHandle.current().pid(), context.clock());
            long endMs = context.clock().millis() + durationS * 1000L;
            try (Progress progress = context.progress("idle", () -> "sampling CPU, scheduler so far %.1f%%".formatted(
                    percent(schedulerCpu)))) {
                Await.untilTime(context.clock(), endMs);
            }
            ResultLine line = ResultLine.of("idle", 0).add("cpu_pct", schedulerCpu.percentOfOneCoreSince())
                    .add("duration_s", durationS);
            if (context.options().bootstrap() == null) {
                line.add("broker_cpu_pct", benchCpu.percentOfOneCoreSince());
            }
            return List.of(line);
        }
    }

    private static double percent(ProcessCpu cpu) {
        try {
            return cpu.percentOfOneCoreSince();
        } catch (java.io.IOException e) {
            return Double.NaN;
        }
    }
}
