package io.ax.app.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * The CPU the scheduler process and the bench process (the embedded broker, when the bench runs it, and the clients)
 * spent over one measured phase, from {@link ProcessCpu}: {@link #start} at the phase's start, {@link Window#end} at its
 * end, then per task. Readings are in clock ticks (10 ms), so a phase should use a second of CPU or more. The share of
 * each process's CPU its JIT compiler threads took is given too: a run whose JITs were still compiling (C2 recompiling
 * the hot paths a rare branch threw away) is slower for it, and says so.
 *
 * @param schedulerMs    the scheduler's CPU over the phase
 * @param benchMs        the same of this process
 * @param schedulerJitMs the part of {@code schedulerMs} its JIT compiler threads used
 * @param benchJitMs     the same of {@code benchMs}
 * @param brokerRequests the requests the broker in this process served over the phase, by API ({@link BrokerRequests})
 */
record CpuPerTask(long schedulerMs, long benchMs, long schedulerJitMs, long benchJitMs, Map<String, Long> brokerRequests) {
    /** A phase measured from now, on the scheduler process {@code schedulerPid} and this one. */
    static Window start(long schedulerPid) {
        long self = ProcessHandle.current().pid();
        return new Window(schedulerPid, cpuMs(schedulerPid), cpuMs(self), compilerMs(schedulerPid), compilerMs(self),
                BrokerRequests.counts());
    }

    /** A phase under way: the readings at its start. */
    record Window(long schedulerPid, long schedulerMsAtStart, long benchMsAtStart, long schedulerJitMsAtStart,
                  long benchJitMsAtStart, Map<String, Long> brokerRequestsAtStart) {
        CpuPerTask end() {
            long self = ProcessHandle.current().pid();
            return new CpuPerTask(cpuMs(schedulerPid) - schedulerMsAtStart, cpuMs(self) - benchMsAtStart,
                    compilerMs(schedulerPid) - schedulerJitMsAtStart, compilerMs(self) - benchJitMsAtStart,
                    BrokerRequests.delta(brokerRequestsAtStart, BrokerRequests.counts()));
        }
    }

    /**
     * Adds {@code cpu_us_per_task<suffix>} (the scheduler's) and {@code bench_cpu_us_per_task<suffix>} over n tasks, and
     * {@code jit_pct<suffix>} and {@code bench_jit_pct<suffix>}: the percentage of each process's CPU in the phase its
     * JIT compiler threads used; {@code broker_req_per_task<suffix>}, the requests the embedded broker served in the phase
     * per task (every client's: 0 when no broker runs in this process), and {@code broker_req<suffix>}, the same by API
     * ({@link BrokerRequests#perTaskWord}).
     */
    ResultLine addTo(ResultLine line, String suffix, int n) {
        return line.add("cpu_us_per_task" + suffix, schedulerMs * 1000.0 / n)
                .add("bench_cpu_us_per_task" + suffix, benchMs * 1000.0 / n)
                .add("jit_pct" + suffix, percent(schedulerJitMs, schedulerMs))
                .add("bench_jit_pct" + suffix, percent(benchJitMs, benchMs))
                .add("broker_req_per_task" + suffix,
                        brokerRequests.values().stream().mapToLong(Long::longValue).sum() / (double) n)
                .add("broker_req" + suffix, BrokerRequests.perTaskWord(brokerRequests, n));
    }

    private static double percent(long part, long whole) {
        return whole <= 0 ? 0.0 : 100.0 * part / whole;
    }

    private static long cpuMs(long pid) {
        try {
            return ProcessCpu.cpuMs(pid);
        } catch (IOException e) { // /proc of a live process: a failure here is the run's
            throw new UncheckedIOException(e);
        }
    }

    private static long compilerMs(long pid) {
        try {
            return ProcessCpu.compilerMs(pid);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
