package io.ax.app.bench;

import io.ax.AxTopics;
import io.ax.KafkaConnection;
import io.ax.app.config.AxConfig;
import io.ax.client.AxClient;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What every scenario runs against: the broker's address, the options, the clock, where progress goes, and a
 * scratch directory (deleted by {@link Bench} afterwards). Every Kafka client of the bench connects with
 * {@link #kafka()}: the bootstrap servers and the connection and security settings among the scheduler settings
 * ({@link KafkaConnection}), which the scheduler child JVMs get too. Names topics, application ids and state dirs so that
 * runs and scenarios never collide: {@code bench-<label>-<runId>}.
 */
public final class BenchContext {
    private static final Duration CHILD_START_TIMEOUT = Duration.ofMinutes(3);

    private final String bootstrap;
    private final BenchOptions options;
    private final Map<String, String> schedulerSettings;
    private final Map<String, Object> kafka;
    private final Clock clock;
    private final PrintStream progress;
    private final Path workDir;
    private final String runId;
    private final long startMs;

    public BenchContext(String bootstrap, BenchOptions options, Map<String, String> schedulerSettings, Clock clock,
                        PrintStream progress, Path workDir, String runId) {
        this(bootstrap, options, schedulerSettings, clock, progress, workDir, runId, clock.millis());
    }

    private BenchContext(String bootstrap, BenchOptions options, Map<String, String> schedulerSettings, Clock clock,
                         PrintStream progress, Path workDir, String runId, long startMs) {
        this.bootstrap = bootstrap;
        this.options = options;
        this.schedulerSettings = Map.copyOf(schedulerSettings);
        Map<String, Object> connection = KafkaConnection.select(schedulerSettings);
        if (bootstrap != null) {
            connection.put(AxConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        }
        this.kafka = Map.copyOf(connection);
        this.clock = clock;
        this.progress = progress;
        this.workDir = workDir;
        this.runId = runId;
        this.startMs = startMs;
    }

    public String bootstrap() {
        return bootstrap;
    }

    /** The settings every Kafka client of the bench starts from: where the cluster is and how to log in. */
    public Map<String, Object> kafka() {
        return kafka;
    }

    /** This context against another cluster (a scenario that runs its own brokers, {@link Scenario#ownsBrokers()}). */
    public BenchContext withBootstrap(String otherBootstrap) {
        return new BenchContext(otherBootstrap, options, schedulerSettings, clock, progress, workDir, runId, startMs);
    }

    public BenchOptions options() {
        return options;
    }

    public Clock clock() {
        return clock;
    }

    /** A name unique to this run: {@code bench-<label>-<runId>}. */
    public String name(String label) {
        return "bench-" + label + "-" + runId;
    }

    /** The topics of the scheduler started under {@code label}. */
    public AxTopics topics(String label) {
        return new AxTopics(name(label) + ".");
    }

    /** A fresh directory under the scratch directory. */
    public Path newDir(String label) throws IOException {
        return Files.createDirectories(workDir.resolve(label));
    }

    /**
     * Starts a scheduler child JVM named {@code label} (application id {@code bench-<label>-<runId>}, topics
     * {@link #topics(String)}) on {@code stateDir} and waits until it is running. Two calls with the same
     * label and state dir are the same scheduler restarted.
     */
    public ChildScheduler startScheduler(String label, Path stateDir) throws IOException, InterruptedException {
        Map<String, String> settings = new HashMap<>(schedulerSettings);
        settings.put(AxConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        settings.putAll(ChildScheduler.settings(name(label), stateDir, topics(label).prefix(), options.partitions()));
        note("starting scheduler '" + label + "' (child JVM, state " + stateDir + ")");
        ChildScheduler child = ChildScheduler.start(settings, options.childJvmOpts(),
                workDir.resolve(label + ".log"), clock, CHILD_START_TIMEOUT);
        note("scheduler '" + label + "' running, pid " + child.pid() + ", in "
                + (child.runningAtMs() - child.startedAtMs()) + " ms");
        return child;
    }

    /**
     * Starts instance {@code instance} of the scheduler named {@code label} ({@code ax.instance.name}, its own state
     * dir, log file {@code <label>-<instance>.log}) with {@code extraSettings} on top of the run's and {@code extraJvmOpts}
     * before the run's JVM options, and waits until it is running. The same label, instance and state dir again is that instance restarted.
     */
    public ChildScheduler startScheduler(String label, String instance, Path stateDir, Map<String, String> extraSettings,
                                         List<String> extraJvmOpts) throws IOException, InterruptedException {
        Map<String, String> settings = new HashMap<>(schedulerSettings);
        settings.putAll(extraSettings);
        settings.put(AxConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        settings.putAll(ChildScheduler.settings(name(label), stateDir, topics(label).prefix(), options.partitions()));
        settings.put(AxConfig.INSTANCE_NAME_CONFIG, instance);
        note("starting scheduler '" + label + "' instance " + instance + " (child JVM, state " + stateDir + ")");
        List<String> jvmOpts = new ArrayList<>(extraJvmOpts);
        jvmOpts.addAll(options.childJvmOpts());
        ChildScheduler child = ChildScheduler.start(settings, jvmOpts,
                workDir.resolve(label + "-" + instance + ".log"), clock, CHILD_START_TIMEOUT);
        note("scheduler '" + label + "' instance " + instance + " running, pid " + child.pid() + ", in "
                + (child.runningAtMs() - child.startedAtMs()) + " ms");
        return child;
    }

    /** An ax setting given to the scheduler child JVMs ({@code -D key=value}), or {@code otherwise}. */
    public String schedulerSetting(String key, String otherwise) {
        return schedulerSettings.getOrDefault(key, otherwise);
    }

    /** A client on {@code topics} with the client's default producer settings. */
    public AxClient client(AxTopics topics) {
        return AxClient.builder().connectionProperties(kafka).topics(topics).clock(clock).build();
    }

    /** Prints {@code status} about once a second until closed. */
    public Progress progress(String scenario, Supplier<String> status) {
        return Progress.every1s(progress, clock, startMs, () -> scenario + ": " + status.get());
    }

    /** One line of narration on the progress stream. */
    public void note(String message) {
        progress.printf("[bench %6.1fs] %s%n", (clock.millis() - startMs) / 1000.0, message);
    }
}
