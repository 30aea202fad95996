package io.ax.app.bench;

import io.ax.app.broker.BrokerWarmUp;
import io.ax.app.broker.EmbeddedKafkaBroker;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code ax bench <scenario>}: runs one scenario against an embedded broker started here (default) or an
 * existing cluster, prints progress as it goes and one {@code RESULT ...} line per result at the end. The
 * scheduler under test always runs as a child JVM ({@link ChildScheduler}); the broker, client, worker and
 * the read_committed trackers run in this process.
 */
public final class Bench {
    /** Every scenario by name, in the order the help lists them. */
    public static final Map<String, Supplier<Scenario>> SCENARIOS = scenarios();

    private Bench() {
    }

    private static Map<String, Supplier<Scenario>> scenarios() {
        Map<String, Supplier<Scenario>> all = new LinkedHashMap<>();
        all.put("raw", RawScenario::new);
        all.put("ingest", IngestScenario::new);
        all.put("burst", BurstScenario::new);
        all.put("priority", PriorityScenario::new);
        all.put("fairness", FairnessScenario::new);
        all.put("fanin", FanInScenario::new);
        all.put("steady", SteadyScenario::new);
        all.put("capacity", CapacityScenario::new);
        all.put("query", QueryScenario::new);
        all.put("recovery", RecoveryScenario::new);
        all.put("failover", FailoverScenario::new);
        all.put("idle", IdleScenario::new);
        all.put("startup", StartupScenario::new);
        all.put("cost", CostScenario::new);
        all.put("chaos", ChaosScenario::new);
        return all;
    }

    /**
     * Runs {@code scenario} and prints its RESULT lines to {@code results}; returns them.
     *
     * @param schedulerSettings extra ax settings for the scheduler child JVMs ({@code --config} and {@code -D} of
     *                          {@code ax run}); the connection and security settings among them apply to the bench's
     *                          own clients too ({@link BenchContext#kafka()})
     * @throws IllegalArgumentException for an unknown scenario
     */
    public static List<ResultLine> run(String scenario, BenchOptions options, Map<String, String> schedulerSettings,
                                       Clock clock, PrintStream results, PrintStream progress) throws Exception {
        return run(scenario, options, schedulerSettings, Map.of(), clock, results, progress);
    }

    /**
     * As {@link #run(String, BenchOptions, Map, Clock, PrintStream, PrintStream)}, with extra properties for the
     * embedded broker ({@code --broker-set key=value}; ignored with {@code --bootstrap}).
     */
    public static List<ResultLine> run(String scenario, BenchOptions options, Map<String, String> schedulerSettings,
                                       Map<String, String> brokerSettings, Clock clock, PrintStream results,
                                       PrintStream progress) throws Exception {
        Supplier<Scenario> factory = SCENARIOS.get(scenario);
        if (factory == null) {
            throw new IllegalArgumentException("unknown scenario '" + scenario + "'; one of " + SCENARIOS.keySet());
        }
        Scenario chosen = factory.get();
        if (chosen.ownsBrokers() && options.bootstrap() != null) {
            throw new IllegalArgumentException(scenario + " runs its own brokers (child processes it kills): --bootstrap is not supported");
        }
        String runId = Long.toString(clock.millis() % 100_000_000L, 36).toLowerCase(Locale.ROOT);
        Path workDir = Files.createTempDirectory("ax-bench-");
        EmbeddedKafkaBroker broker = null;
        try {
            String bootstrap = options.bootstrap();
            if (bootstrap == null && !chosen.ownsBrokers()) {
                progress.println("[bench] starting an embedded Kafka broker in this process...");
                EmbeddedKafkaBroker.Options brokerOptions = EmbeddedKafkaBroker.Options.defaults()
                        .withDefaultPartitions(options.partitions());
                for (Map.Entry<String, String> setting : brokerSettings.entrySet()) {
                    brokerOptions = brokerOptions.withProperty(setting.getKey(), setting.getValue());
                }
                broker = EmbeddedKafkaBroker.start(brokerOptions);
                bootstrap = broker.bootstrapServers();
                // as ./ax broker does: a new broker's transaction code is cold (BrokerWarmUp)
                progress.println("[bench] broker " + BrokerWarmUp.runAndTell(bootstrap));
            }
            progress.println("[bench] " + scenario + " against " + (bootstrap == null ? "its own brokers" : bootstrap)
                    + ", scratch dir " + workDir);
            BenchContext context = new BenchContext(bootstrap, options, schedulerSettings, clock, progress, workDir, runId);
            List<ResultLine> lines = chosen.run(context);
            lines.forEach(line -> results.println(line));
            results.flush();
            if (lines.stream().anyMatch(Bench::brokeAGuarantee) || Boolean.getBoolean(KEEP_LOGS_PROPERTY)) {
                keepChildLogs(workDir, progress, lines.stream().anyMatch(Bench::brokeAGuarantee)
                        ? "a result shows early, lost or duplicate dispatches" : KEEP_LOGS_PROPERTY);
            }
            return lines;
        } catch (Exception | Error e) {
            keepChildLogs(workDir, progress, "the run failed (" + e.getClass().getSimpleName() + ")");
            throw e;
        } finally {
            if (broker != null) {
                broker.close();
            }
            BenchFiles.deleteRecursively(workDir);
        }
    }

    /** Set ({@code -Dax.bench.keepLogs=true}, e.g. through {@code AX_JAVA_OPTS}) to keep the child JVMs' logs of every run. */
    static final String KEEP_LOGS_PROPERTY = "ax.bench.keepLogs";

    /** A result line whose {@code early}, {@code lost} or {@code dup} (any prefix) is not 0. */
    static boolean brokeAGuarantee(ResultLine line) {
        return line.values().entrySet().stream().anyMatch(e -> (e.getKey().endsWith("early") || e.getKey().endsWith("lost")
                || e.getKey().endsWith("dup")) && !"0".equals(e.getValue()));
    }

    /**
     * Copies the child JVMs' logs ({@code *.log} in the scratch dir) where they outlive the run, so that a failed check
     * can be read afterwards (issue 26: a capacity run that reported lost tasks on a loaded box left nothing to read).
     */
    private static void keepChildLogs(Path workDir, PrintStream progress, String why) {
        try (java.util.stream.Stream<Path> files = Files.list(workDir)) {
            List<Path> logs = files.filter(p -> p.getFileName().toString().endsWith(".log")).toList();
            if (logs.isEmpty()) {
                return;
            }
            Path kept = Files.createTempDirectory("ax-bench-logs-");
            for (Path log : logs) {
                Files.copy(log, kept.resolve(log.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
            progress.println("[bench] " + why + ": child logs kept in " + kept);
        } catch (java.io.IOException | RuntimeException e) {
            progress.println("[bench] could not keep the child logs: " + e);
        }
    }
}
