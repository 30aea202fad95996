package io.ax.app.bench;

import io.ax.AxTopics;
import io.ax.client.AxClient;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * {@code recovery}: how long firing stops when a scheduler holding P pending timers (default 200,000, due in a
 * day) dies by {@code kill -9}. A canary task due 1 s later is accepted, the child JVM is killed
 * ({@link ChildScheduler#killForcibly()}) and a new one started at once:
 * <ul>
 *   <li>{@code resume_s}: with the local state dir kept, from the restart until the canary's dispatch is
 *       visible to a read_committed reader;</li>
 *   <li>{@code restore_s}: the same again (another canary, another kill -9) after deleting the state dir, so
 *       Kafka Streams restores the stores from their changelogs.</li>
 * </ul>
 * {@code resume_running_s}/{@code restore_running_s}: restart until the child printed that it is running.
 */
public final class RecoveryScenario implements Scenario {
    static final int DEFAULT_PENDING = 200_000;
    private static final TaskKeys PENDING = new TaskKeys("pending-");
    private static final TaskKeys CANARY = new TaskKeys("canary-");
    private static final long CANARY_DELAY_MS = 1_000;
    private static final Duration CANARY_TIMEOUT = Duration.ofMinutes(5);

    @Override
    public String name() {
        return "recovery";
    }

    @Override
    public List<ResultLine> run(BenchContext context) throws Exception {
        Clock clock = context.clock();
        int pending = context.options().pendingOr(DEFAULT_PENDING);
        AxTopics topics = context.topics("recovery");
        Path stateDir = context.newDir("recovery-state");
        ChildScheduler scheduler = context.startScheduler("recovery", stateDir);
        try {
            Ingest load = Ingest.run(context, "recovery", PENDING, pending, clock.millis() + Duration.ofDays(1).toMillis());
            long stateBytes = BenchFiles.sizeBytes(stateDir);
            AtomicLongArray canaryDueMs = new AtomicLongArray(2);
            try (AxClient client = context.client(topics);
                 PendingTracker canaryPending = PendingTracker.start(context.kafka(), topics.state(), clock, CANARY, 2);
                 DispatchTracker canaries = DispatchTracker.start(context.kafka(), topics.dispatch(), clock, CANARY, 2,
                         canaryDueMs::get)) {
                Canaries probe = new Canaries(context, stateDir, new Submitter(client), canaryDueMs, canaryPending, canaries);
                Restart resume = probe.killAndRestart(0, scheduler, false);
                scheduler = resume.scheduler();
                Restart restore = probe.killAndRestart(1, scheduler, true);
                scheduler = restore.scheduler();
                return List.of(ResultLine.of("recovery", pending).add("resume_s", resume.untilCanaryS())
                        .add("restore_s", restore.untilCanaryS())
                        .add("resume_running_s", resume.untilRunningS()).add("restore_running_s", restore.untilRunningS())
                        .add("state_mb", stateBytes / 1048576.0).add("load_per_s", load.acceptedPerS())
                        .add("early", canaries.early()).add("lost", 2 - canaries.dispatched()).add("dup", canaries.dup()));
            }
        } finally {
            scheduler.close();
        }
    }

    /** A restarted scheduler, and how long after the restart it was running and its canary was dispatched (-1: never). */
    private record Restart(ChildScheduler scheduler, double untilRunningS, double untilCanaryS) {
    }

    /** Kills and restarts the scheduler, timing how long until a canary timer fires. */
    private record Canaries(BenchContext context, Path stateDir, Submitter submitter, AtomicLongArray dueMs,
                            PendingTracker accepted, DispatchTracker dispatched) {
        Restart killAndRestart(int canary, ChildScheduler running, boolean wipeState) throws Exception {
            Clock clock = context.clock();
            long dueAtMs = clock.millis() + CANARY_DELAY_MS;
            dueMs.set(canary, dueAtMs);
            submitter.submit(CANARY.key(canary), dueAtMs);
            if (!Await.until(clock, Duration.ofSeconds(60), () -> accepted.accepted() > canary)) {
                throw new IllegalStateException("recovery: canary " + canary + " not accepted within 60 s");
            }
            running.killForcibly();
            if (dispatched.dispatched() > canary) {
                throw new IllegalStateException("recovery: canary " + canary + " fired before the kill; nothing to time");
            }
            context.note("killed the scheduler (kill -9) holding canary " + canary
                    + (wipeState ? "; deleting its state dir" : "; keeping its state dir"));
            if (wipeState) {
                BenchFiles.deleteRecursively(stateDir);
            }
            long restartMs = clock.millis();
            ChildScheduler restarted = context.startScheduler("recovery", stateDir);
            double untilRunningS = (restarted.runningAtMs() - restartMs) / 1000.0;
            boolean fired;
            try (Progress progress = context.progress("recovery", () -> "waiting for canary " + canary)) {
                fired = Await.until(clock, CANARY_TIMEOUT, () -> dispatched.dispatched() > canary);
            }
            double untilCanaryS = fired ? (dispatched.lastVisibleAtMs() - restartMs) / 1000.0 : -1;
            context.note("canary %d dispatched %.1f s after the restart (running after %.1f s)".formatted(
                    canary, untilCanaryS, untilRunningS));
            return new Restart(restarted, untilRunningS, untilCanaryS);
        }
    }
}
