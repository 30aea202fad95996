package io.ax.app.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Kafka broker as a child process running {@code ax broker} on this JVM's classpath, so that it can be killed
 * ({@code kill -9}, {@link #killForcibly()}) or stopped (SIGTERM, {@link #close()}) and started again on the same
 * port and data directory ({@link #restart()}): a single node ({@code ax broker --port P --dir D}), or node I of an
 * N-node cluster ({@code ax broker --brokers N --node-id I --port P --dir D}, clients on P..P+N-1).
 *
 * <p>Its output goes to a log file (appended across restarts). Not thread-safe: one thread kills and restarts it.
 */
public final class ChildBroker implements AutoCloseable {
    private static final Duration START_TIMEOUT = Duration.ofMinutes(2);
    private static final List<String> JVM_OPTS = List.of("-Xmx512m", "-XX:TieredStopAtLevel=1");

    private final List<String> args;
    private final String readyLine;
    private final Path logFile;
    private final Clock clock;
    private Process process;

    private ChildBroker(List<String> args, String readyLine, Path logFile, Clock clock) {
        this.args = List.copyOf(args);
        this.readyLine = readyLine;
        this.logFile = logFile;
        this.clock = clock;
    }

    /** Starts {@code ax broker --port port --dir dir --partitions partitions} and waits until it is ready. */
    public static ChildBroker single(int port, Path dir, int partitions, Path logFile, Clock clock)
            throws IOException, InterruptedException {
        ChildBroker broker = new ChildBroker(List.of("broker", "--port", Integer.toString(port), "--dir", dir.toString(),
                "--partitions", Integer.toString(partitions)), "Kafka broker ready", logFile, clock);
        broker.restart();
        return broker;
    }

    /**
     * Starts node {@code nodeId} of the {@code nodes}-node cluster whose first client port is {@code basePort} and
     * waits until it is a live broker, which needs a majority of the nodes: start the others concurrently.
     */
    public static ChildBroker node(int nodes, int nodeId, int basePort, Path dir, int partitions, Path logFile, Clock clock)
            throws IOException, InterruptedException {
        ChildBroker broker = new ChildBroker(List.of("broker", "--brokers", Integer.toString(nodes),
                "--node-id", Integer.toString(nodeId), "--port", Integer.toString(basePort), "--dir", dir.toString(),
                "--partitions", Integer.toString(partitions)), "Kafka node " + nodeId + " of " + nodes + " ready",
                logFile, clock);
        broker.restart();
        return broker;
    }

    /** Starts the broker again with the same arguments (port, data directory); it must not be running. */
    public void restart() throws IOException, InterruptedException {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException("broker child still running, pid " + process.pid());
        }
        process = ChildJvm.launch("broker child JVM", JVM_OPTS, new ArrayList<>(args), logFile, readyLine, clock, START_TIMEOUT);
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process != null && process.isAlive();
    }

    public Path logFile() {
        return logFile;
    }

    /** SIGKILL, as {@code kill -9}: nothing is flushed or closed. Waits for the exit. */
    public void killForcibly() throws InterruptedException {
        process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }

    /** Sends SIGTERM (a controlled shutdown) without waiting for the exit. */
    public void terminate() {
        if (isAlive()) {
            process.destroy();
        }
    }

    /** SIGTERM (a controlled shutdown), then SIGKILL if it has not exited within 30 s. */
    @Override
    public void close() throws InterruptedException {
        if (isAlive()) {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS) && process.isAlive()) {
                killForcibly();
            }
        }
    }
}
