package io.ax.app.bench;

import io.ax.app.config.AxConfig;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
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
        List<String> args = List.of("run", "--config",
                writeSettings(settings, logFile.resolveSibling(logFile.getFileName() + ".properties")).toString());
        long startedAtMs = clock.millis();
        Process process = ChildJvm.launch("scheduler child JVM", jvmOpts, args, logFile, RUNNING_LINE, clock, timeout);
        return new ChildScheduler(process, logFile, startedAtMs, clock.millis());
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

    /** The child's log file. */
    public Path logFile() {
        return logFile;
    }
}
