package io.ax.app.bench;

import io.ax.app.cli.AxMain;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Launches {@code io.ax.app.cli.AxMain <args>} as a child JVM on this JVM's classpath (the scheduler's {@code ax run},
 * the broker's {@code ax broker}), copies its output to a log file and waits for the line that says it is ready.
 * Shared by {@link ChildScheduler} and {@link ChildBroker}.
 */
final class ChildJvm {
    private ChildJvm() {
    }

    /**
     * Starts the child and returns once a line of its output contains {@code readyLine}.
     *
     * @param what names the child in errors, e.g. "scheduler child JVM"
     * @throws IllegalStateException when it exits or is not ready within {@code timeout} (it is killed then)
     */
    static Process launch(String what, List<String> jvmOpts, List<String> axArgs, Path logFile, String readyLine,
                          Clock clock, Duration timeout) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOpts);
        command.add("-cp");
        command.add(classpath());
        command.add(AxMain.class.getName());
        command.addAll(axArgs);
        long startedAtMs = clock.millis();
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        CountDownLatch ready = new CountDownLatch(1);
        Thread drain = new Thread(() -> copyOutput(process, logFile, readyLine, ready), "bench-child-log-" + process.pid());
        drain.setDaemon(true);
        drain.start();
        boolean ok = false;
        try {
            long deadlineMs = startedAtMs + timeout.toMillis();
            while (!ready.await(100, TimeUnit.MILLISECONDS)) {
                if (!process.isAlive() || clock.millis() > deadlineMs) {
                    throw new IllegalStateException(what + " " + (process.isAlive() ? "not ready after " + timeout
                            : "exited with " + process.exitValue()) + "; its log: " + logFile + "\n" + tail(logFile));
                }
            }
            ok = true;
            return process;
        } finally {
            if (!ok) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * This JVM's classpath. Under Maven Surefire {@code java.class.path} may be a manifest-only booter jar; the
     * real path is in {@code surefire.test.class.path}. Under {@code java -jar}, the jar's manifest Class-Path
     * (lib/*.jar) is honoured for a jar on {@code -cp} too.
     */
    static String classpath() {
        String surefire = System.getProperty("surefire.test.class.path");
        return surefire != null && !surefire.isBlank() ? surefire : System.getProperty("java.class.path");
    }

    /** The last 30 lines of a child's log. */
    static String tail(Path logFile) {
        try {
            List<String> lines = Files.readAllLines(logFile, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    private static void copyOutput(Process process, Path logFile, String readyLine, CountDownLatch ready) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
             PrintWriter out = new PrintWriter(Files.newBufferedWriter(logFile, StandardCharsets.UTF_8,
                     StandardOpenOption.CREATE, StandardOpenOption.APPEND), true)) {
            String line;
            while ((line = in.readLine()) != null) {
                out.println(line);
                if (line.contains(readyLine)) {
                    ready.countDown();
                }
            }
        } catch (IOException e) {
            // the child died or the log dir went away; the waiting side notices the dead process
        }
    }
}
