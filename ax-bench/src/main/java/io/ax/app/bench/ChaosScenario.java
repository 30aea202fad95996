package io.ax.app.bench;

import io.ax.AxTopics;
import io.ax.app.config.AxConfig;
import io.ax.client.AxClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.IntPredicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.common.utils.Utils;

/**
 * {@code chaos}: every guarantee at once, under failures. Kafka runs as child processes ({@code --brokers 1}: one
 * broker on a persistent data dir; {@code --brokers 3}: a 3-node KRaft cluster, RF 3, min ISR 2), three scheduler
 * instances as child JVMs (their own state dirs and {@code ax.instance.name}), and a fleet of three workers in this
 * JVM whose effect is one row per execution in an embedded PostgreSQL, written through the JDBC idempotency guard.
 *
 * <p>Load: n tasks (default 20,000): a quarter all due at one instant (the burst, at 35% of the load), the rest a
 * steady stream over {@code --duration} s (default 150), each due {@value #LEAD_MS} ms after it is sent. Every tenth
 * task fails its first attempt (retryable), so retries wait in RETRY_WAITING across the failures. The failures, by
 * fraction of the load's duration D: at 0.15 D instance a dies by kill -9 and is restarted {@value #RESTART_AFTER_MS}
 * ms later; at 0.45 D a broker stops ({@link #brokerStop}: the single broker by SIGTERM, restarted at once on the same
 * port and data dir; in the cluster node 2 by kill -9, restarted {@value #NODE_DOWN_MS} ms later); at 0.7 D instance b dies by kill -9 and is
 * restarted likewise. So every kill is followed by a restart: a crashed process comes back, as under a supervisor.
 *
 * <p>Checks, once every task succeeded or progress stalled: {@link ChaosAudit} (a full read_committed re-read of
 * ax.dispatch and ax.state: lost, early, dup per (executionId, attempt), one execution per task, final states),
 * {@link ChaosDispatchLog} (dispatches visible before due), PostgreSQL (one effect per task, none duplicated).
 * Figures: lateness of first attempts (visible − due) p50/p90/p99/max, of the burst and of retries, and for each
 * event the longest wait of a steady task due from 2 s before to 10 s after it ({@code gap_ms}).
 *
 * <p>Results: {@code RESULT scenario=chaos ...} and one {@code RESULT scenario=chaos_event n=<tasks in window>
 * event=<name> at_s=... gap_ms=... p99_ms=...} per event. When a check fails (or with {@code -Dax.chaos.keepLogs=true})
 * the child JVMs' logs are copied to a directory that outlives the run (its path is printed). One class because it is one script: the timeline and
 * the figures read best in one place.
 */
public final class ChaosScenario implements Scenario {
    static final int DEFAULT_N = 20_000;
    static final int DEFAULT_DURATION_S = 150;
    static final long LEAD_MS = 2_000;
    static final long RESTART_AFTER_MS = 8_000;
    static final long NODE_DOWN_MS = 10_000;
    private static final int WORKERS = 3;
    private static final int WORKER_CONCURRENCY = 16;
    private static final long WINDOW_BEFORE_MS = 2_000;
    private static final long WINDOW_AFTER_MS = 10_000;
    private static final String LABEL = "chaos";
    private static final TaskKeys WARM_UP = new TaskKeys("warmup-");
    private static final IntPredicate FAILS_ONCE = i -> i % 10 == 7;
    /** {@code -Dax.chaos.keepLogs=true} (e.g. {@code AX_JAVA_OPTS}): keep the child logs of a passing run too. */
    static final String KEEP_LOGS_PROPERTY = "ax.chaos.keepLogs";

    @Override
    public String name() {
        return "chaos";
    }

    /**
     * How the broker is stopped: as asked, else kill -9 of one node of a cluster, and SIGTERM of a single broker. A
     * single broker killed with kill -9 under load and restarted left hanging transactions in Kafka 4.4 in each of 3 runs
     * (a Kafka failure the scheduler reports but cannot always end: topology-docs/OPERATIONS.md), so the default
     * single-broker run restarts it cleanly and {@code --broker-stop kill} shows that failure.
     */
    static String brokerStop(BenchOptions options) {
        if (options.brokerStop() != null) {
            return options.brokerStop();
        }
        return options.brokers() > 1 ? "kill" : "term";
    }

    @Override
    public boolean ownsBrokers() {
        return true;
    }

    @Override
    public List<ResultLine> run(BenchContext base) throws Exception {
        Clock clock = base.clock();
        int n = base.options().nOr(DEFAULT_N);
        int durationS = base.options().durationOr(DEFAULT_DURATION_S);
        int brokerCount = base.options().brokers();
        int burst = n / 4;
        int steady = n - burst;
        int rate = Math.max(1, (int) Math.ceil(steady / (double) durationS));
        Path logDir = base.newDir("logs");
        long runStartMs = clock.millis();
        base.note("chaos: %d tasks (%d steady at %d/s, %d in one burst), %d broker(s), 3 scheduler instances, %d workers"
                .formatted(n, steady, rate, burst, brokerCount, WORKERS));
        ChaosBrokers brokers = ChaosBrokers.start(brokerCount, base.newDir("kafka"), logDir, base.options().partitions(), clock);
        Instances instances = null;
        boolean passed = false;
        try {
            BenchContext context = base.withBootstrap(brokers.bootstrap());
            context.note("Kafka: " + brokerCount + " node(s) at " + brokers.bootstrap());
            Map<String, String> replication = brokerCount >= 3
                    ? Map.of(AxConfig.TOPIC_REPLICATION_CONFIG, "3", AxConfig.STREAMS_PREFIX + "replication.factor", "3")
                    : Map.of();
            instances = Instances.start(context, LABEL, replication);
            Run run = new Run(context, brokers, instances, n, steady, rate, durationS, logDir);
            List<ResultLine> lines = run.execute();
            passed = run.passed();
            lines.get(0).add("elapsed_s", (clock.millis() - runStartMs) / 1000.0);
            return lines;
        } finally {
            if (instances != null) {
                instances.close();
            }
            brokers.closeQuietly();
            if (!passed || Boolean.getBoolean(KEEP_LOGS_PROPERTY)) {
                keepLogs(base, logDir, passed);
            }
        }
    }

    /** Copies the brokers' logs ({@code logDir}) and the schedulers' (the scratch dir above it) where they outlive the run. */
    private static void keepLogs(BenchContext context, Path logDir, boolean passed) {
        try {
            Path kept = Files.createTempDirectory("ax-chaos-logs-");
            for (Path dir : List.of(logDir, logDir.getParent())) {
                try (Stream<Path> logs = Files.list(dir)) {
                    for (Path log : logs.filter(p -> p.getFileName().toString().endsWith(".log")).toList()) {
                        Files.copy(log, kept.resolve(log.getFileName()), StandardCopyOption.REPLACE_EXISTING);
                    }
                }
            }
            context.note((passed ? "child logs kept (" + KEEP_LOGS_PROPERTY + ") in "
                    : "a check failed or the run broke off: child logs kept in ") + kept);
        } catch (Exception e) {
            context.note("could not keep the child logs: " + e);
        }
    }

    /** One chaos run against started brokers and instances. */
    private static final class Run {
        private final BenchContext context;
        private final Clock clock;
        private final ChaosBrokers brokers;
        private final Instances instances;
        private final int n;
        private final int steady;
        private final int rate;
        private final long durationMs;
        private final Path logDir;
        private final AtomicLongArray dueMs;
        private final ChaosTimeline timeline;
        private boolean passed;
        /** What the cluster looked like when the run stopped making progress; null when it completed. */
        private Stuck stuck;

        Run(BenchContext context, ChaosBrokers brokers, Instances instances, int n, int steady, int rate, int durationS,
            Path logDir) {
            this.context = context;
            this.clock = context.clock();
            this.brokers = brokers;
            this.instances = instances;
            this.n = n;
            this.steady = steady;
            this.rate = rate;
            this.durationMs = durationS * 1000L;
            this.logDir = logDir;
            this.dueMs = new AtomicLongArray(n);
            this.timeline = new ChaosTimeline(context);
        }

        boolean passed() {
            return passed;
        }

        List<ResultLine> execute() throws Exception {
            AxTopics topics = context.topics(LABEL);
            TaskKeys keys = TaskKeys.TASKS;
            try (ChaosDispatchLog dispatch = ChaosDispatchLog.start(context.kafka(), topics.dispatch(), clock, keys, n, dueMs::get);
                 SuccessTracker successes = SuccessTracker.start(context.kafka(), topics.state(), clock, keys, n);
                 EffectFleet fleet = EffectFleet.start(context.newDir("postgres"), context.kafka(), topics,
                         context.name(LABEL) + "-workers", WORKERS, WORKER_CONCURRENCY, keys, n, FAILS_ONCE, clock);
                 AxClient client = context.client(topics)) {
                Submitter submitter = new Submitter(client);
                warmUp(submitter, fleet);
                long loadStartMs = clock.millis() + 500;
                long burstDueMs = loadStartMs + (long) (0.35 * durationMs);
                for (int i = steady; i < n; i++) { // the burst: the last quarter of the task numbers
                    dueMs.set(i, burstDueMs);
                    submitter.submit(keys.key(i), burstDueMs);
                }
                client.flush();
                submitter.checkNoFailures();
                context.note("%d burst tasks sent, due in %d ms".formatted(n - steady, burstDueMs - clock.millis()));
                timeline.start(loadStartMs, durationMs, brokers, instances);
                try (Progress progress = context.progress(LABEL, () -> "sent %d/%d, first attempts visible %d, SUCCESS %d, effects %s"
                        .formatted(submitter.sent() - 1, n, dispatch.firstAttempts(), successes.succeeded(), effectsOrError(fleet)))) {
                    Await.untilTime(clock, loadStartMs);
                    submitSteady(submitter, keys);
                    boolean done = Await.until(clock, Duration.ofSeconds(300 + n / 50), Duration.ofSeconds(120),
                            () -> dispatch.firstAttempts() + successes.succeeded() + effectsQuietly(fleet),
                            () -> dispatch.firstAttempts() >= n && successes.succeeded() >= n && effectsQuietly(fleet) >= n);
                    timeline.awaitEnd();
                    if (!done) {
                        context.note("not complete: first attempts %d, SUCCESS %d, effects %d of %d".formatted(
                                dispatch.firstAttempts(), successes.succeeded(), effectsQuietly(fleet), n));
                        Map<Integer, Integer> undispatched = undispatchedByPartition(dispatch, keys);
                        context.note("tasks with no first attempt visible, by partition of " + topics.requests() + ": "
                                + undispatched);
                        String openTransactions = ChaosDiagnosis.print(context.kafka(), context.name(LABEL), topics.prefix(),
                                context::note);
                        stuck = new Stuck(undispatched.entrySet().stream().filter(e -> e.getValue() > 0)
                                .map(e -> e.getKey() + ":" + e.getValue()).collect(Collectors.joining(",")),
                                openTransactions, instances.clientStates());
                    }
                    Thread.sleep(2_000); // late duplicates, if any, become visible before the re-read
                    submitter.checkNoFailures();
                }
                return verdict(dispatch, fleet, topics, keys);
            }
        }

        private void warmUp(Submitter submitter, EffectFleet fleet) throws Exception {
            submitter.submit(WARM_UP.key(0), clock.millis());
            if (!Await.until(clock, Duration.ofSeconds(120), () -> fleet.runs() >= 1)) {
                throw new IllegalStateException("chaos: the warm-up task did not run within 120 s; workers: " + fleet.workerFailures());
            }
            context.note("warm-up task ran through scheduler and worker");
        }

        private void submitSteady(Submitter submitter, TaskKeys keys) throws InterruptedException {
            Pacer pacer = new Pacer(clock, rate);
            int i = 0;
            while (i < steady) {
                for (int permits = pacer.awaitPermits(); permits > 0 && i < steady; permits--, i++) {
                    long due = clock.millis() + LEAD_MS;
                    dueMs.set(i, due); // published before the send: the dispatch log reads it when the dispatch arrives
                    submitter.submit(keys.key(i), due);
                }
            }
        }

        private List<ResultLine> verdict(ChaosDispatchLog dispatch, EffectFleet fleet, AxTopics topics, TaskKeys keys)
                throws Exception {
            ChaosAudit audit = ChaosAudit.read(context.kafka(), topics.dispatch(), topics.state(), keys, n, dueMs::get, FAILS_ONCE);
            long effects = fleet.effects();
            long missingEffects = n - fleet.tasksWithEffect();
            long effectsDup = fleet.duplicateEffects();
            long effectExecutions = fleet.tasksWithSeveralExecutions();
            LatencyRecorder all = new LatencyRecorder();
            LatencyRecorder burstLateness = new LatencyRecorder();
            for (int i = 0; i < n; i++) {
                long visible = dispatch.firstVisibleAtMs(i);
                if (visible > 0) {
                    all.record(visible - dueMs.get(i));
                    if (i >= steady) {
                        burstLateness.record(visible - dueMs.get(i));
                    }
                }
            }
            LatencyRecorder retries = dispatch.retryLateness();
            long early = audit.early() + dispatch.early();
            passed = audit.lost() == 0 && early == 0 && audit.dup() == 0 && audit.executions() == 0 && audit.attemptGaps() == 0
                    && audit.missingRetries() == 0 && audit.notFinal() == 0 && effectsDup == 0 && missingEffects == 0
                    && effectExecutions == 0;
            ResultLine line = ResultLine.of("chaos", n).add("brokers", brokers.count()).add("instances", Instances.COUNT)
                    .add("workers", WORKERS).add("kills", timeline.kills()).add("broker_kills", timeline.brokerKills())
                    .add("broker_stop", brokerStop(context.options()))
                    .add("restarts", timeline.restarts()).add("rate", rate).add("burst", n - steady)
                    .add("lost", audit.lost()).add("early", early).add("dup", audit.dup())
                    .add("exec_dup", audit.executions()).add("attempt_gaps", audit.attemptGaps())
                    .add("missing_retries", audit.missingRetries()).add("not_final", audit.notFinal())
                    .add("final", audit.finalStatesText()).add("retry_waiting", audit.retryWaiting())
                    .add("runs_dispatched", audit.runDispatches()).add("retries", audit.retries())
                    .add("effects", effects).add("effects_missing", missingEffects).add("effects_dup", effectsDup)
                    .add("handler_runs", fleet.runs())
                    .add("p50_ms", all.percentileMs(50)).add("p90_ms", all.percentileMs(90))
                    .add("p99_ms", all.percentileMs(99)).add("max_ms", all.maxMs())
                    .add("burst_p50_ms", burstLateness.percentileMs(50)).add("burst_p99_ms", burstLateness.percentileMs(99))
                    .add("burst_max_ms", burstLateness.maxMs())
                    .add("retry_p50_ms", retries.percentileMs(50)).add("retry_p99_ms", retries.percentileMs(99))
                    .add("retry_max_ms", retries.maxMs())
                    .add("hanging_txn_aborted", instances.logLinesContaining("Aborted a hanging"))
                    .add("stuck", stuck == null ? "no" : "yes");
            if (stuck != null) { // the gist of the diagnosis, in the line a CI report shows of a failed run
                line.add("stuck_undispatched_by_partition", stuck.undispatched())
                        .add("stuck_open_txn", stuck.openTransactions()).add("stuck_instances", stuck.instances());
            }
            line.add("passed", passed ? "yes" : "no");
            List<ResultLine> lines = new ArrayList<>();
            lines.add(line);
            for (ChaosTimeline.Event event : timeline.events()) {
                lines.add(eventLine(event, dispatch));
            }
            return lines;
        }

        /** The longest wait of a steady task due from 2 s before to 10 s after the event. */
        private ResultLine eventLine(ChaosTimeline.Event event, ChaosDispatchLog dispatch) {
            LatencyRecorder window = new LatencyRecorder();
            long notDispatched = 0;
            for (int i = 0; i < steady; i++) {
                long due = dueMs.get(i);
                if (due >= event.atMs() - WINDOW_BEFORE_MS && due <= event.atMs() + WINDOW_AFTER_MS) {
                    long visible = dispatch.firstVisibleAtMs(i);
                    if (visible > 0) {
                        window.record(visible - due);
                    } else {
                        notDispatched++;
                    }
                }
            }
            return ResultLine.of("chaos_event", window.count() + notDispatched).add("event", event.name())
                    .add("at_s", (event.atMs() - timeline.loadStartMs()) / 1000.0)
                    .add("gap_ms", window.maxMs()).add("p99_ms", window.percentileMs(99))
                    .add("p50_ms", window.percentileMs(50)).add("not_dispatched", notDispatched);
        }

        /** Tasks without a first attempt by partition ({@code p:count,...}), open transactions, instance states. */
        private record Stuck(String undispatched, String openTransactions, String instances) {
            Stuck {
                undispatched = ResultLine.word(undispatched);
                openTransactions = ResultLine.word(openTransactions);
                instances = ResultLine.word(instances);
            }
        }

        private Map<Integer, Integer> undispatchedByPartition(ChaosDispatchLog dispatch, TaskKeys keys) {
            Map<Integer, Integer> counts = new TreeMap<>();
            int partitions = context.options().partitions();
            for (int i = 0; i < n; i++) {
                if (dispatch.firstVisibleAtMs(i) == 0) {
                    byte[] key = keys.key(i).getBytes(StandardCharsets.UTF_8);
                    counts.merge(Utils.toPositive(Utils.murmur2(key)) % partitions, 1, Integer::sum);
                }
            }
            return counts;
        }

        private static String effectsOrError(EffectFleet fleet) {
            try {
                return Long.toString(fleet.effects());
            } catch (Exception e) {
                return "(" + e.getMessage() + ")";
            }
        }

        private static long effectsQuietly(EffectFleet fleet) {
            try {
                return fleet.effects();
            } catch (Exception e) {
                return 0;
            }
        }
    }
}
