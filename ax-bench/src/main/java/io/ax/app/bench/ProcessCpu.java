package io.ax.app.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;

/**
 * CPU time of one process from Linux's {@code /proc/<pid>/stat} (utime + stime, fields 14 and 15, in clock
 * ticks of {@code getconf CLK_TCK}, 100 on Linux x86 and arm). {@link #percentOfOneCoreSince} turns two
 * readings into "% of one core" over the wall-clock time between them.
 */
public final class ProcessCpu {
    private static final long TICKS_PER_S = clockTicks();

    private final long pid;
    private final Clock clock;
    private final long startTicks;
    private final long startMs;

    private ProcessCpu(long pid, Clock clock) throws IOException {
        this.pid = pid;
        this.clock = clock;
        this.startMs = clock.millis();
        this.startTicks = cpuTicks(pid);
    }

    /** Starts a measurement window for {@code pid} now. */
    public static ProcessCpu startWindow(long pid, Clock clock) throws IOException {
        return new ProcessCpu(pid, clock);
    }

    /** CPU used since the window started, as a percentage of one core (200 = two cores busy). */
    public double percentOfOneCoreSince() throws IOException {
        long ticks = cpuTicks(pid) - startTicks;
        long elapsedMs = Math.max(1, clock.millis() - startMs);
        return ticks * 1000.0 / TICKS_PER_S * 100.0 / elapsedMs;
    }

    /** CPU time {@code pid} has used so far (user + system), ms. */
    public static long cpuMs(long pid) throws IOException {
        return cpuTicks(pid) * 1000 / TICKS_PER_S;
    }

    /**
     * CPU time the JIT compiler threads of {@code pid} have used so far (HotSpot's "C1 CompilerThread<n>" and
     * "C2 CompilerThread<n>"), ms. A compiler thread that ended is not counted (HotSpot keeps at least one of each).
     */
    public static long compilerMs(long pid) throws IOException {
        return compilerTicks(Path.of("/proc", Long.toString(pid))) * 1000 / TICKS_PER_S;
    }

    /** utime + stime of {@code pid}, clock ticks. */
    static long cpuTicks(long pid) throws IOException {
        return ticks(Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.US_ASCII));
    }

    /** utime + stime of the compiler threads under {@code process} (a {@code /proc/<pid>} directory), clock ticks. */
    static long compilerTicks(Path process) throws IOException {
        long ticks = 0;
        try (DirectoryStream<Path> threads = Files.newDirectoryStream(process.resolve("task"))) {
            for (Path thread : threads) {
                String stat;
                try {
                    stat = Files.readString(thread.resolve("stat"), StandardCharsets.US_ASCII);
                } catch (IOException e) {
                    // the thread ended while the directory was read (NoSuchFileException), or between the open and the
                    // read of its stat (ESRCH, "No such process"): a JIT compiler thread that the JVM stops when it has
                    // nothing to compile does, so its last ticks go uncounted
                    continue;
                }
                String comm = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                if (comm.startsWith("C1 CompilerThre") || comm.startsWith("C2 CompilerThre")) {
                    ticks += ticks(stat);
                }
            }
        }
        return ticks;
    }

    /** utime + stime of one {@code stat} line of a process or thread, clock ticks. */
    private static long ticks(String stat) {
        // Field 2 (comm) is in parentheses and may contain spaces: count fields after the last ')'.
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
        // fields[0] is field 3 (state), so field 14 (utime) is fields[11] and field 15 (stime) fields[12].
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }

    private static long clockTicks() {
        try {
            Process getconf = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String out = new String(getconf.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
            getconf.waitFor();
            return Long.parseLong(out);
        } catch (IOException | NumberFormatException e) {
            return 100;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 100;
        }
    }
}
