package io.ax.app.bench;

import io.ax.app.AxMain;
import io.ax.app.config.AxConfig;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The scheduler under test, as a child JVM running {@code ax run} on this JVM's classpath, so that its CPU and
 * heap can be measured apart from the load generator and the broker, and so that it can be killed with
 * {@code kill -9} ({@link #killForcibly()}).
 *
 * <p>Its output goes to a log file; {@link #start} returns once it printed its "ax scheduler running" line
 * (the Kafka Streams instance reached RUNNING). {@link #close()} stops it (SIGTERM, then SIGKILL after 20 s).
 */
public final class ChildScheduler implements AutoCloseable {
    private static final String RUNNING_LINE = "ax scheduler running";

    private final Process process;
    private final Path logFile;
    private final long startedAtMs;
    private final long runningAtMs;

    private ChildScheduler(Process process, Path logFile, long startedAtMs, long runningAtMs) {
        this.process = process;
        this.logFile = logFile;
        this.startedAtMs = startedAtMs;
        this.runningAtMs = runningAtMs;
    }

    /**
     * Launches {@code ax run --config <file>} and waits until it is running. The settings go to a file beside the log
     * that only this user can read, not onto the command line, since they may hold passwords.
     *
     * @param settings ax settings, at least {@code bootstrap.servers}, {@code application.id}, {@code ax.state.dir} and
     *                 {@code ax.topic.prefix}, and any connection and security settings
     * @param jvmOpts  extra JVM options, e.g. {@code -Xmx2g}
     * @param logFile  where the child's stdout and stderr go (appended)
     * @throws IllegalStateException when it exits or is not running within {@code timeout} (it is killed then)
     */
    public static ChildScheduler start(Map<String, String> settings, List<String> jvmOpts, Path logFile,
                                       Clock clock, Duration timeout) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOpts);
        command.add("-cp");
        command.add(classpath());
        command.add(AxMain.class.getName());
        command.add("run");
        command.add("--config");
        command.add(writeSettings(settings, logFile.resolveSibling(logFile.getFileName() + ".properties")).toString());
        long startedAtMs = clock.millis();
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        CountDownLatch running = new CountDownLatch(1);
        Thread drain = new Thread(() -> copyOutput(process, logFile, running), "bench-child-log-" + process.pid());
        drain.setDaemon(true);
        drain.start();
        boolean ok = false;
        try {
            long deadlineMs = startedAtMs + timeout.toMillis();
            while (!running.await(100, TimeUnit.MILLISECONDS)) {
                if (!process.isAlive() || clock.millis() > deadlineMs) {
                    throw new IllegalStateException("scheduler child JVM " + (process.isAlive() ? "not running after "
                            + timeout : "exited with " + process.exitValue()) + "; its log: " + logFile + "\n" + tail(logFile));
                }
            }
            ok = true;
            return new ChildScheduler(process, logFile, startedAtMs, clock.millis());
        } finally {
            if (!ok) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /** The settings every bench scheduler gets: its own application id, state dir, topic prefix. */
    public static Map<String, String> settings(String applicationId, Path stateDir, String topicPrefix, int partitions) {
        return Map.of(AxConfig.APPLICATION_ID_CONFIG, applicationId,
                AxConfig.STATE_DIR_CONFIG, stateDir.toString(),
                AxConfig.TOPIC_PREFIX_CONFIG, topicPrefix,
                AxConfig.TOPIC_PARTITIONS_CONFIG, Integer.toString(partitions));
    }

    private static Path writeSettings(Map<String, String> settings, Path file) throws IOException {
        Properties properties = new Properties();
        properties.putAll(settings);
        Files.deleteIfExists(file);
        try {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (UnsupportedOperationException e) {
            Files.createFile(file); // not a POSIX file system: the scratch directory's own access rules apply
        }
        try (OutputStream out = Files.newOutputStream(file)) {
            properties.store(out, "ax bench: settings of a scheduler under test");
        }
        return file;
    }

    public long pid() {
        return process.pid();
    }

    /** When the JVM was launched, by the bench clock. */
    public long startedAtMs() {
        return startedAtMs;
    }

    /** When it printed its running line. */
    public long runningAtMs() {
        return runningAtMs;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** SIGKILL, as {@code kill -9}: no shutdown hook runs, nothing is committed or flushed. Waits for the exit. */
    public void killForcibly() throws InterruptedException {
        process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }

    /** SIGTERM (the scheduler closes cleanly), then SIGKILL if it has not exited within 20 s. */
    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                killForcibly();
            }
        }
    }

    /**
     * This JVM's classpath. Under Maven Surefire {@code java.class.path} may be a manifest-only booter jar; the
     * real path is in {@code surefire.test.class.path}. Under {@code java -jar}, the jar's manifest Class-Path
     * (lib/*.jar) is honoured for a jar on {@code -cp} too.
     */
    private static String classpath() {
        String surefire = System.getProperty("surefire.test.class.path");
        return surefire != null && !surefire.isBlank() ? surefire : System.getProperty("java.class.path");
    }

    private static void copyOutput(Process process, Path logFile, CountDownLatch running) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
             PrintWriter out = new PrintWriter(Files.newBufferedWriter(logFile, StandardCharsets.UTF_8,
                     java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND), true)) {
            String line;
            while ((line = in.readLine()) != null) {
                out.println(line);
                if (line.contains(RUNNING_LINE)) {
                    running.countDown();
                }
            }
        } catch (IOException e) {
            // the child died or the log dir went away; the waiting side notices the dead process
        }
    }

    private static String tail(Path logFile) {
        try {
            List<String> lines = Files.readAllLines(logFile, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    /** The child's log file. */
    public Path logFile() {
        return logFile;
    }
}
