package io.ax.app.bench;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The CPU the scheduler process and the bench process (the embedded broker, when the bench runs it, and the clients)
 * spent over one measured phase, from {@link ProcessCpu}: {@link #start} at the phase's start, {@link Window#end} at its
 * end, then per task. Readings are in clock ticks (10 ms), so a phase should use a second of CPU or more.
 *
 * @param schedulerMs the scheduler's CPU over the phase
 * @param benchMs     the same of this process
 */
record CpuPerTask(long schedulerMs, long benchMs) {
    /** A phase measured from now, on the scheduler process {@code schedulerPid} and this one. */
    static Window start(long schedulerPid) {
        return new Window(schedulerPid, cpuMs(schedulerPid), cpuMs(ProcessHandle.current().pid()));
    }

    /** A phase under way: the readings at its start. */
    record Window(long schedulerPid, long schedulerMsAtStart, long benchMsAtStart) {
        CpuPerTask end() {
            return new CpuPerTask(cpuMs(schedulerPid) - schedulerMsAtStart,
                    cpuMs(ProcessHandle.current().pid()) - benchMsAtStart);
        }
    }

    /** Adds {@code cpu_us_per_task<suffix>} (the scheduler's) and {@code bench_cpu_us_per_task<suffix>} over n tasks. */
    ResultLine addTo(ResultLine line, String suffix, int n) {
        return line.add("cpu_us_per_task" + suffix, schedulerMs * 1000.0 / n)
                .add("bench_cpu_us_per_task" + suffix, benchMs * 1000.0 / n);
    }

    private static long cpuMs(long pid) {
        try {
            return ProcessCpu.cpuMs(pid);
        } catch (IOException e) { // /proc of a live process: a failure here is the run's
            throw new UncheckedIOException(e);
        }
    }
}
