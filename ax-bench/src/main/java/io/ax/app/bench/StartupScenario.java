package io.ax.app.bench;

import io.ax.AxTopics;
import io.ax.client.AxClient;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * {@code startup}: how soon a scheduler started on new topics fires on time. A scheduler child is started; once it prints
 * that it is running (and the bench's client and dispatch reader are up), {@code --n} tasks (default 300) are sent at
 * {@code --rate} per second (default 100), each due {@value #FIRST_DUE_MS} ms after it was sent: the first one is "a task
 * due 1 s after the scheduler reports RUNNING", the rest a new user's first seconds. This is done {@value #ROUNDS} times
 * in a row on the same broker, each round with a new scheduler JVM on new topics: round 1 on the broker as the bench
 * found it (the embedded broker just started: its own transaction code not yet compiled, as a new user's is), rounds 2
 * and 3 on a broker that has served the rounds before (as a broker in service has: a scheduler restarted, or a second
 * one started). One line per round, {@code round=1..3}. Reported: {@code running_s} (launch to the running line),
 * {@code first_sent_ms} (the running line to the first task sent: the bench's clients start then),
 * {@code first_late_ms} (the first task's lateness: its dispatch seen read_committed, minus its due time),
 * {@code first_fired_ms} (its {@code firedAtMs} minus its due time: the scheduler's decision, before the transaction
 * that carries it commits), {@code fired_p50_ms fired_p99_ms} of all, p50 / p99 / max lateness of all,
 * and early / lost / dup.
 */
public final class StartupScenario implements Scenario {
    static final int DEFAULT_N = 300;
    static final int DEFAULT_RATE = 100;
    static final long FIRST_DUE_MS = 1_000;
    static final int ROUNDS = 3;
    private static final TaskKeys TASKS = new TaskKeys("startup-");
    private static final Duration DISPATCH_TIMEOUT = Duration.ofSeconds(60);

    @Override
    public String name() {
        return "startup";
    }

    @Override
    public List<ResultLine> run(BenchContext context) throws Exception {
        List<ResultLine> lines = new java.util.ArrayList<>();
        for (int round = 1; round <= ROUNDS; round++) {
            lines.add(round(context, round));
        }
        return lines;
    }

    private static ResultLine round(BenchContext context, int round) throws Exception {
        Clock clock = context.clock();
        int n = context.options().nOr(DEFAULT_N);
        int rate = context.options().rateOr(DEFAULT_RATE);
        String label = "startup" + round;
        AxTopics topics = context.topics(label);
        AtomicLongArray dueMs = new AtomicLongArray(n);
        context.note("startup round " + round + ": topics " + topics.prefix() + "*, " + n + " tasks at " + rate
                + "/s once the scheduler runs");
        // The scheduler creates the topics, so the tracker and the client start once it runs (first_sent_ms after its
        // running line); from then on task i is sent at i / rate and is due 1 s after it was sent.
        try (ChildScheduler scheduler = context.startScheduler(label, context.newDir(label + "-state"));
             AxClient client = context.client(topics);
             DispatchTracker dispatched = DispatchTracker.start(context.kafka(), topics.dispatch(), clock, TASKS, n, dueMs::get)) {
            Submitter submitter = new Submitter(client);
            long runningAtMs = scheduler.runningAtMs();
            long firstSentAtMs = clock.millis();
            for (int i = 0; i < n; i++) {
                long sendAtMs = firstSentAtMs + i * 1_000L / rate;
                Await.untilTime(clock, sendAtMs);
                dueMs.set(i, sendAtMs + FIRST_DUE_MS);
                submitter.submit(TASKS.key(i), dueMs.get(i));
            }
            long firstSentMs = firstSentAtMs - runningAtMs;
            boolean all;
            try (Progress progress = context.progress(label, () -> dispatched.dispatched() + "/" + n + " dispatched")) {
                all = Await.until(clock, DISPATCH_TIMEOUT, () -> dispatched.dispatched() >= n);
            }
            submitter.checkNoFailures();
            if (!all) {
                context.note("startup round " + round + ": " + (n - dispatched.dispatched()) + " of " + n
                        + " not dispatched within " + DISPATCH_TIMEOUT);
            }
            ResultLine line = ResultLine.of("startup", n).add("round", round).add("rate", rate)
                    .add("running_s", (runningAtMs - scheduler.startedAtMs()) / 1000.0)
                    .add("first_sent_ms", firstSentMs).add("first_late_ms", dispatched.firstTaskLatenessMs())
                    .add("first_fired_ms", dispatched.firstTaskFiredLatenessMs())
                    .add("fired_p50_ms", dispatched.firedLateness().percentileMs(50))
                    .add("fired_p99_ms", dispatched.firedLateness().percentileMs(99));
            dispatched.visibleLateness().addTo(line, "");
            return line.add("early", dispatched.early()).add("lost", n - dispatched.dispatched()).add("dup", dispatched.dup());
        }
    }
}
