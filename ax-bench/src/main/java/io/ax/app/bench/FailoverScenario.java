package io.ax.app.bench;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code failover}: N scheduler instances (child JVMs, one application, their own state dirs and instance names;
 * {@code --instances}, default 2) share the partitions, holding P pending timers (default 100,000, due in a day) under a
 * steady load of R tasks/s (default 500, each due ~2 s after it is sent) for D s (default 60). During the measured load
 * all instances but the last die by {@code kill -9}, one after another, at D·k/(N+1) (k = 1 … N−1: with two instances
 * a third of the way in); each dead instance's partitions, their stores and their timers move to the others after the
 * session timeout. Result: {@code gap_ms}, the longest a task due around a failover waited to be dispatched (visible −
 * due; the firing gap), {@code late_1s} tasks more than 1 s late and their {@code late_1s_p50_ms}, with
 * {@code dispatch_p99_ms}, handler-start {@code p50_ms p99_ms max_ms}, {@code instances}, {@code standbys} and
 * {@code session_timeout_ms} (ax's defaults 1 and 6000 unless {@code -D streams.num.standby.replicas=N} /
 * {@code -D streams.consumer.session.timeout.ms=MS} override them) and {@code early lost dup}.
 */
public final class FailoverScenario implements Scenario {
    static final int DEFAULT_PENDING = 100_000;
    static final int DEFAULT_RATE = 500;
    static final int DEFAULT_DURATION_S = 60;
    static final int DEFAULT_INSTANCES = 2;
    /** ax's {@code streams.consumer.heartbeat.interval.ms} (AxConfig), reported unless {@code -D} overrides it. */
    static final long DEFAULT_HEARTBEAT_MS = 500;
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
        int count = context.options().instancesOr(DEFAULT_INSTANCES);
        List<ChildScheduler> instances = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                instances.add(context.startScheduler("failover", "i" + i, context.newDir("failover-" + i), java.util.Map.of(),
                        List.of()));
            }
            Ingest.run(context, "failover", PENDING, pending, clock.millis() + Duration.ofDays(1).toMillis());
            long[] killedAtMs = new long[count - 1];
            Thread killer = new Thread(() -> {
                try {
                    long startMs = clock.millis();
                    for (int k = 1; k < count; k++) {
                        long killAtMs = startMs + durationS * 1000L * k / (count + 1);
                        Thread.sleep(Math.max(0, killAtMs - clock.millis()));
                        ChildScheduler victim = instances.get(k - 1);
                        killedAtMs[k - 1] = clock.millis();
                        victim.killForcibly();
                        context.note("killed instance i" + (k - 1) + " (kill -9, pid " + victim.pid() + ") at "
                                + java.time.Instant.ofEpochMilli(killedAtMs[k - 1]) + ", " + (count - k) + " left");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "bench-failover-kill");
            SteadyRun.Outcome outcome = SteadyRun.run(context, "failover", rate, durationS, killer::start);
            killer.join();
            ResultLine line = outcome.addTo(ResultLine.of("failover", outcome.n()), "")
                    .add("gap_ms", outcome.dispatch().visibleLateness().maxMs());
            // Each kill's own victims: tasks more than 1 s late that were due from 2 s before it to 2 s before the next.
            for (int k = 0; k < killedAtMs.length; k++) {
                long toMs = k + 1 < killedAtMs.length ? killedAtMs[k + 1] - 2_000 : Long.MAX_VALUE;
                LatencyRecorder around = outcome.dispatch().lateDueBetween(killedAtMs[k] - 2_000, toMs);
                line.add("kill" + (k + 1) + "_gap_ms", around.maxMs()).add("kill" + (k + 1) + "_late_1s", around.count())
                        .add("kill" + (k + 1) + "_late_1s_p50_ms", around.percentileMs(50));
            }
            return List.of(line
                    .add("late_1s", outcome.dispatch().lateOverOneSecond().count())
                    .add("late_1s_p50_ms", outcome.dispatch().lateOverOneSecond().percentileMs(50))
                    .add("instances", count)
                    .add("kills", count - 1)
                    // ax's defaults unless -D overrides them: one standby, a 6 s session timeout
                    .add("standbys", Long.parseLong(context.schedulerSetting("streams.num.standby.replicas", "1")))
                    .add("session_timeout_ms", Long.parseLong(context.schedulerSetting("streams.consumer.session.timeout.ms", "6000")))
                    .add("heartbeat_ms", Long.parseLong(context.schedulerSetting("streams.consumer.heartbeat.interval.ms",
                            Long.toString(DEFAULT_HEARTBEAT_MS))))
                    .add("pending", pending)
                    .add("submit_per_s", outcome.submitPerS()));
        } finally {
            for (ChildScheduler instance : instances) {
                instance.close();
            }
        }
    }
}
