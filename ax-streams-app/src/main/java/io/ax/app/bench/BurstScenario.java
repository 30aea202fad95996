package io.ax.app.bench;

import io.ax.AxTopics;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * {@code burst}: n tasks (default 1,000,000) all due at one instant D. A calibration batch (n/10, 1,000 to
 * 20,000 tasks due in a day, other keys) warms the scheduler up and measures its ingest rate once requests
 * flow, and D is set so the real batch is ingested before it: D = now + n / (0.7 × that rate) + 5 s. From D, the dispatch topic is read
 * as a read_committed worker would: {@code fires_per_s} = dispatched / (last visible − D), lateness
 * {@code p50_ms p99_ms max_ms} (visible − D), {@code early lost dup}; {@code lead_ms} = D − when the last
 * PENDING was visible (negative: ingest was not over at D, so lateness includes it).
 */
public final class BurstScenario implements Scenario {
    static final int DEFAULT_N = 1_000_000;
    private static final TaskKeys CALIBRATION = new TaskKeys("calibrate-");

    @Override
    public String name() {
        return "burst";
    }

    @Override
    public List<ResultLine> run(BenchContext context) throws Exception {
        Clock clock = context.clock();
        int n = context.options().nOr(DEFAULT_N);
        AxTopics topics = context.topics("burst");
        Path stateDir = context.newDir("burst-state");
        try (ChildScheduler scheduler = context.startScheduler("burst", stateDir)) {
            int calibrationN = Math.max(1_000, Math.min(n / 10, 20_000));
            Ingest calibration = Ingest.run(context, "burst", CALIBRATION, calibrationN,
                    clock.millis() + Duration.ofDays(1).toMillis());
            long dueMs = clock.millis() + (long) (n * 1000.0 / (0.7 * calibration.flowingPerS())) + 5_000;
            context.note("calibration: %.0f accepted/s; %d tasks due in %d ms".formatted(
                    calibration.flowingPerS(), n, dueMs - clock.millis()));
            try (DispatchTracker dispatch = DispatchTracker.start(context.bootstrap(), topics.dispatch(), clock,
                    TaskKeys.TASKS, n, i -> dueMs)) {
                Ingest ingest = Ingest.run(context, "burst", TaskKeys.TASKS, n, dueMs);
                context.note("ingested %d tasks at %.0f/s, %d ms before they are due".formatted(
                        ingest.accepted(), ingest.acceptedPerS(), dueMs - ingest.lastSeenMs()));
                try (Progress progress = context.progress("burst", () -> "dispatched %d/%d, %d ms after due".formatted(
                        dispatch.dispatched(), n, clock.millis() - dueMs))) {
                    Await.untilTime(clock, dueMs);
                    Await.until(clock, Duration.ofSeconds(60 + n / 2_000), Duration.ofSeconds(30), dispatch::dispatched,
                            () -> dispatch.dispatched() >= n);
                    Thread.sleep(1_000); // let duplicates, if any, show up
                }
                int dispatched = dispatch.dispatched();
                long spanMs = Math.max(1, dispatch.lastVisibleAtMs() - dueMs);
                ResultLine line = ResultLine.of("burst", n).add("fires_per_s", dispatched * 1000.0 / spanMs);
                return List.of(dispatch.visibleLateness().addTo(line, "")
                        .add("early", dispatch.early()).add("lost", n - dispatched).add("dup", dispatch.dup())
                        .add("ingest_per_s", ingest.acceptedPerS()).add("lead_ms", dueMs - ingest.lastSeenMs()));
            }
        }
    }
}
