package io.ax.app.bench;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.core.ConsoleAppender;
import io.ax.KafkaConnection;
import io.ax.app.config.AxConfig;
import io.ax.codec.AvroTrust;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ax bench <scenario>}: measures the scheduler (a child JVM) on an embedded broker or a given cluster.
 * Progress goes to stderr; the results to stdout, one {@code RESULT scenario=... n=... key=value ...} line each.
 *
 * <p>The main class of the {@code ax-bench} jar, apart from the scheduler's {@code AxMain} so that the scheduler
 * jar does not ship the harness: the {@code ./ax} launcher runs {@code java -jar ax-bench/target/ax-bench.jar}
 * with the arguments after {@code bench}.
 */
@Command(name = "ax bench", mixinStandardHelpOptions = true, version = "ax 0.1.0",
        description = {"Benchmark the scheduler; it runs as a child JVM, on an embedded broker unless --bootstrap is given.",
                "Scenarios: raw (producer/consumer baseline), ingest (accept rate vs raw), burst (n due at one instant),",
                "steady (R/s, lateness), capacity (P pending timers: heap, disk, lateness), query (HTTP listing of 20 FAILED among P pending), recovery (kill -9, restart,",
                "restore), failover (two instances, or --instances N, all but one killed under load: the firing gap), idle (CPU), startup (tasks due 1 s after a new scheduler runs: lateness), cost (records per topic, bytes,",
                "RocksDB operations and CPU per task, for a one-shot task, an owned and limited one, a periodic occurrence),",
                "chaos (3 instances, a worker fleet on PostgreSQL, kill -9 of two instances and of a broker: every guarantee checked). Progress on stderr; results on stdout as 'RESULT scenario=<name> n=<N> key=value ...'."})
public final class BenchCommand implements Callable<Integer> {
    static {
        AvroTrust.ensureAxSchemasTrusted();
    }

    @Parameters(index = "0", paramLabel = "SCENARIO", description = "raw, ingest, burst, steady, capacity, query, recovery, failover, idle, startup, cost or chaos.")
    String scenario;

    @Option(names = "--bootstrap", description = "An existing Kafka cluster (default: bootstrap.servers from --config, -D or"
            + " AX_KAFKA_BOOTSTRAP_SERVERS, else an embedded broker in this process).")
    String bootstrap;

    @Option(names = "--config", description = "A .properties file as for ax run: settings of the scheduler under test and"
            + " the Kafka connection settings (security.protocol, sasl.*, ssl.*) that the bench's own clients use too.")
    Path configFile;

    @Option(names = {"--n", "--tasks"}, description = "Tasks or records (raw, ingest: 100000; burst: 1000000; chaos: 20000; cost: 2000 per shape; startup: 300).")
    Integer n;

    @Option(names = "--rate", description = "Tasks per second (steady, capacity: 1000; failover: 500; startup: 100).")
    Integer rate;

    @Option(names = "--duration", description = "Seconds of load (steady, failover: 60; capacity: 30; chaos: 150) or of CPU sampling (idle: 20).")
    Integer duration;

    @Option(names = "--pending", description = "Pending timers held (capacity: 10000000, recovery: 200000, failover: 100000).")
    Integer pending;

    @Option(names = "--warmup", defaultValue = "60",
            description = "Seconds of unmeasured load of the same kind before ingest, burst and steady measurements, so the scheduler's JIT is warm as in a running scheduler (default: ${DEFAULT-VALUE}; 0: a cold JVM).")
    int warmup;

    @Option(names = "--partitions", defaultValue = "6", description = "Partitions of ax's topics (default: ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--brokers", defaultValue = "1",
            description = "chaos: Kafka nodes, child processes (1: one broker, restarted once; 3: a 3-node cluster, one node killed and restarted; default: ${DEFAULT-VALUE}).")
    int brokers;

    @Option(names = "--instances",
            description = "failover: scheduler instances (2-5, default 2); all but the last die by kill -9, one after another.")
    Integer instances;

    @Option(names = "--broker-stop",
            description = "chaos: how the broker is stopped before its restart: kill (kill -9) or term (SIGTERM, a controlled"
                    + " shutdown); default: term for one broker, kill for a cluster (see topology-docs/OPERATIONS.md, hanging transactions).")
    String brokerStop;

    @Option(names = "--random-ids", description = "ingest, burst, steady: task ids scattered over the byte order as UUIDs"
            + " are (task-9e3779b1), instead of consecutive (task-17), whose keys RocksDB inserts next to each other.")
    boolean randomIds;

    @Option(names = "--timeline", description = "steady, capacity, failover: after the measured run, one line per second of due"
            + " time on stderr: tasks due, how many fired and how many visible over 150 ms late, the latest of each.")
    boolean timeline;

    @Option(names = "--child-jvm-opt", description = "A JVM option for the scheduler's child JVM, e.g. -Xmx2g (repeatable).")
    List<String> childJvmOpts = new ArrayList<>();

    @Option(names = {"-D", "--set"}, description = "An ax setting for the scheduler under test, key=value (as ax run -D;"
            + " wins over --config). Connection settings given here apply to the bench's clients too.")
    Map<String, String> settings = new HashMap<>();

    @Option(names = "--broker-set", description = "A property of the embedded broker, key=value (e.g. "
            + "group.streams.min.session.timeout.ms=6000); ignored with --bootstrap.")
    Map<String, String> brokerSettings = new HashMap<>();

    public static void main(String[] args) {
        System.exit(execute(args));
    }

    /** Runs {@code ax bench <args>} as the command line does (parse, run, print usage on a mistake); its exit code. */
    public static int execute(String... args) {
        return execute(System.out, args);
    }

    /** {@link #execute(String...)} with the RESULT lines printed to {@code out} (so that two runs in one JVM keep theirs apart). */
    public static int execute(java.io.PrintStream out, String... args) {
        BenchCommand command = new BenchCommand();
        command.out = out;
        CommandLine commandLine = new CommandLine(command);
        if (out != System.out) {
            // A caller that reads the RESULT lines from its own stream (the tests) also gets the failure there, so that
            // an assertion on the exit code shows why the run failed, not only that it did.
            commandLine.setExecutionExceptionHandler((failure, line, parsed) -> {
                failure.printStackTrace(System.err);
                out.print("FAILED ");
                failure.printStackTrace(out); // its message first, then the frames and every cause
                return line.getCommandSpec().exitCodeOnExecutionException();
            });
        }
        return commandLine.execute(args);
    }

    private java.io.PrintStream out = System.out;

    @Override
    public Integer call() throws Exception {
        quietLogs();
        Map<String, String> merged = KafkaConnection.load(configFile, settings, System.getenv());
        String cluster = bootstrap != null ? bootstrap : merged.get(AxConfig.BOOTSTRAP_SERVERS_CONFIG);
        BenchOptions options = new BenchOptions(cluster, n, rate, duration, pending, partitions, childJvmOpts, warmup, brokers,
                brokerStop, instances, randomIds, timeline);
        Bench.run(scenario, options, merged, brokerSettings, Clock.systemUTC(), out, System.err);
        return 0;
    }

    /**
     * The bench prints its own progress; the clients' and worker's INFO lines would drown it. What is still logged goes
     * to stderr with the progress, so that stdout holds the RESULT lines alone.
     */
    private static synchronized void quietLogs() {
        // While SLF4J initializes in another thread it hands out substitute loggers: then leave the levels alone (two
        // bench runs in one JVM, as BenchSmokeIT runs them, may start together).
        if (!(LoggerFactory.getILoggerFactory() instanceof ch.qos.logback.classic.LoggerContext)) {
            return;
        }
        Logger root = (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
        root.iteratorForAppenders().forEachRemaining(appender -> {
            if (appender instanceof ConsoleAppender<?> console) {
                console.stop();
                console.setTarget("System.err");
                console.start();
            }
        });
        ((Logger) LoggerFactory.getLogger("io.ax")).setLevel(Level.WARN);
        ((Logger) LoggerFactory.getLogger("org.apache.kafka")).setLevel(Level.ERROR);
        ((Logger) LoggerFactory.getLogger("kafka")).setLevel(Level.ERROR);
        ((Logger) LoggerFactory.getLogger("io.zonky")).setLevel(Level.WARN); // chaos: embedded PostgreSQL narrates its start
    }
}
