package io.ax.app.bench;

import java.io.IOException;

/**
 * The CPU the scheduler process and the bench process (the embedded broker, when the bench runs it, and the clients)
 * used over one measured phase, from {@link ProcessCpu}: {@link #start} at the phase's start, {@link #end} at its end,
 * then per task. Readings are in clock ticks (10 ms), so a phase should use a second of CPU or more.
 *
 * @param schedulerPid  the scheduler child's pid
 * @param schedulerMs   the scheduler's CPU at the start, then (after {@link #end}) over the phase
 * @param benchMs       the same of this process
 * @param ended         whether {@link #end} has been called
 */
record CpuPerTask(long schedulerPid, long schedulerMs, long benchMs, boolean ended) {
    static CpuPerTask start(long schedulerPid) throws IOException {
        return new CpuPerTask(schedulerPid, ProcessCpu.cpuMs(schedulerPid), ProcessCpu.cpuMs(ProcessHandle.current().pid()), false);
    }

    CpuPerTask end() throws IOException {
        if (ended) {
            throw new IllegalStateException("ended already");
        }
        return new CpuPerTask(schedulerPid, ProcessCpu.cpuMs(schedulerPid) - schedulerMs,
                ProcessCpu.cpuMs(ProcessHandle.current().pid()) - benchMs, true);
    }

    /** Adds {@code cpu_us_per_task<suffix>} (the scheduler's) and {@code bench_cpu_us_per_task<suffix>} over n tasks. */
    ResultLine addTo(ResultLine line, String suffix, int n) {
        if (!ended) {
            throw new IllegalStateException("not ended");
        }
        return line.add("cpu_us_per_task" + suffix, schedulerMs * 1000.0 / n)
                .add("bench_cpu_us_per_task" + suffix, benchMs * 1000.0 / n);
    }
}
