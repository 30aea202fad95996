package io.ax.app.bench;

import io.ax.client.AxClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * {@code ingest}: how fast the scheduler accepts requests, against the raw baseline of the same size measured
 * first in the same run. n requests due in a day are sent with {@link AxClient}; a request counts as accepted
 * when its PENDING event is visible to a read_committed reader of the state topic (so its stores and timer
 * index were written in a committed exactly-once transaction). {@code accepted_per_s} = n / (last PENDING
 * seen − first send); {@code ratio_vs_raw} = that / raw {@code produce_per_s}. Before that, for {@code --warmup}
 * seconds, batches of the same requests with other keys are ingested and not measured, so the JIT has compiled
 * the accept path as it has in a scheduler that has been running ({@code --warmup 0}: a cold JVM).
 * {@code cpu_us_per_task}: the scheduler process's CPU (user + system, {@link ProcessCpu}) over the measured batch, per
 * request; {@code bench_cpu_us_per_task} the same of the bench process (the embedded broker, when the bench runs it, and
 * the client). CPU per task is steadier than a rate on a busy box, and counts what the rate hides when the scheduler is
 * not the bottleneck.
 */
public final class IngestScenario implements Scenario {
    private static final int WARM_UP_BATCH = 50_000;

    @Override
    public String name() {
        return "ingest";
    }

    @Override
    public List<ResultLine> run(BenchContext context) throws Exception {
        int n = context.options().nOr(RawScenario.DEFAULT_N);
        ResultLine raw = RawScenario.measure(context, n);
        context.note(raw.toString());
        Path stateDir = context.newDir("ingest-state");
        try (ChildScheduler scheduler = context.startScheduler("ingest", stateDir)) {
            warmUp(context, Math.min(n, WARM_UP_BATCH));
            CpuPerTask.Window measuring = CpuPerTask.start(scheduler.pid());
            Ingest ingest = Ingest.run(context, "ingest", context.options().keys(TaskKeys.TASKS.prefix()), n,
                    context.clock().millis() + Duration.ofDays(1).toMillis());
            CpuPerTask cpu = measuring.end();
            double rawPerS = Double.parseDouble(raw.get("produce_per_s"));
            ResultLine line = ResultLine.of("ingest", n).add("accepted_per_s", ingest.acceptedPerS())
                    .add("ratio_vs_raw", ingest.acceptedPerS() / rawPerS).add("lost", n - ingest.accepted());
            return List.of(raw, cpu.addTo(line, "", n));
        }
    }

    private static void warmUp(BenchContext context, int batch) throws Exception {
        long untilMs = context.clock().millis() + context.options().warmupS() * 1000L;
        for (int round = 1; context.clock().millis() < untilMs; round++) {
            Ingest warm = Ingest.run(context, "ingest", context.options().keys("warm" + round + "-"), batch,
                    context.clock().millis() + Duration.ofDays(1).toMillis());
            context.note("warm-up batch %d: %d requests at %.0f accepted/s".formatted(round, batch, warm.acceptedPerS()));
        }
    }
}
