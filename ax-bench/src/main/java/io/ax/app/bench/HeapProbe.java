package io.ax.app.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Heap in use by another JVM after a full GC, through the JDK's {@code jcmd}: {@code GC.run}, then
 * {@code GC.heap_info}, whose first line reads e.g. {@code garbage-first heap   total 262144K, used 51234K}.
 * (For collectors that report generations instead, the generations' "used" figures are summed.)
 */
public final class HeapProbe {
    private static final Pattern WHOLE_HEAP = Pattern.compile("heap\\s+total \\d+K, used (\\d+)K");
    private static final Pattern GENERATION = Pattern.compile("generation\\s+total \\d+K, used (\\d+)K");

    private HeapProbe() {
    }

    /** Runs a GC in {@code pid} and returns its used heap, MiB. */
    public static double usedAfterGcMb(long pid) throws IOException, InterruptedException {
        jcmd(pid, "GC.run");
        return parseUsedKb(jcmd(pid, "GC.heap_info")) / 1024.0;
    }

    // visible for testing
    static long parseUsedKb(String heapInfo) {
        Matcher whole = WHOLE_HEAP.matcher(heapInfo);
        if (whole.find()) {
            return Long.parseLong(whole.group(1));
        }
        long sum = 0;
        Matcher generation = GENERATION.matcher(heapInfo);
        boolean any = false;
        while (generation.find()) {
            sum += Long.parseLong(generation.group(1));
            any = true;
        }
        if (!any) {
            throw new IllegalStateException("no heap figures in jcmd GC.heap_info output:\n" + heapInfo);
        }
        return sum;
    }

    private static String jcmd(long pid, String command) throws IOException, InterruptedException {
        String jcmd = Paths.get(System.getProperty("java.home"), "bin", "jcmd").toString();
        Process process = new ProcessBuilder(jcmd, Long.toString(pid), command).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("jcmd " + pid + " " + command + " did not finish in 60 s");
        }
        if (process.exitValue() != 0) {
            throw new IllegalStateException("jcmd " + pid + " " + command + " failed (" + process.exitValue() + "): " + out);
        }
        return out;
    }
}
