package io.ax.app.bench;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code failover}: two scheduler instances (child JVMs, one application, their own state dirs) share the
 * partitions, holding P pending timers (default 100,000, due in a day) under a steady load of R tasks/s (default
 * 500, each due ~2 s after it is sent) for D s (default 60). A third of the way into the measured load the first
 * instance dies by {@code kill -9}; its partitions, their stores and their timers move to the other one after the
 * session timeout. Result: {@code gap_ms}, the longest a task due around the failover waited to be dispatched
 * (visible − due; the firing gap), with {@code dispatch_p99_ms}, handler-start {@code p50_ms p99_ms max_ms},
 * {@code standbys} and {@code session_timeout_ms} (ax's defaults 1 and 6000 unless {@code -D streams.num.standby.replicas=N}
 * / {@code -D streams.consumer.session.timeout.ms=MS} override them) and
 * {@code early lost dup}.
 */
public final class FailoverScenario implements Scenario {
    static final int DEFAULT_PENDING = 100_000;
    static final int DEFAULT_RATE = 500;
    static final int DEFAULT_DURATION_S = 60;
    private static final TaskKeys PENDING = new TaskKeys("pending-");

    @Override
    public String name() {
        return "failover";
    }

    @Override
    public List<ResultLine> run(BenchContext context) throws Exception {
        Clock clock = context.clock();
        int pending = context.options().pendingOr(DEFAULT_PENDING);
        int rate = context.options().rateOr(DEFAULT_RATE);
        int durationS = context.options().durationOr(DEFAULT_DURATION_S);
        ChildScheduler first = context.startScheduler("failover", context.newDir("failover-a"));
        try (ChildScheduler second = context.startScheduler("failover", context.newDir("failover-b"))) {
            Ingest.run(context, "failover", PENDING, pending, clock.millis() + Duration.ofDays(1).toMillis());
            AtomicLong killedAtMs = new AtomicLong();
            Thread killer = new Thread(() -> {
                try {
                    Thread.sleep(durationS * 1000L / 3);
                    first.killForcibly();
                    killedAtMs.set(clock.millis());
                    context.note("killed the first instance (kill -9, pid " + first.pid() + ")");
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "bench-failover-kill");
            SteadyRun.Outcome outcome = SteadyRun.run(context, "failover", rate, durationS, killer::start);
            killer.join();
            return List.of(outcome.addTo(ResultLine.of("failover", outcome.n()), "")
                    .add("gap_ms", outcome.dispatch().visibleLateness().maxMs())
                    // ax's defaults unless -D overrides them: one standby, a 6 s session timeout
                    .add("standbys", Long.parseLong(context.schedulerSetting("streams.num.standby.replicas", "1")))
                    .add("session_timeout_ms", Long.parseLong(context.schedulerSetting("streams.consumer.session.timeout.ms", "6000")))
                    .add("pending", pending)
                    .add("submit_per_s", outcome.submitPerS()));
        } finally {
            first.close();
        }
    }
}
