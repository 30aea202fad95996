package io.ax.app.internal.metrics;

import io.ax.schema.ReportStatus;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The workers this instance heard from through their reports ({@code workerId} on {@code ax.results}), kept in memory
 * only: so a worker that never announces itself (one not built on the SDK) is still listed by {@code GET /workers}, with
 * when it last reported and the executions it reported STARTED and not yet finished. The task processor calls
 * {@link #saw} for each report that names a worker: one map update, no record and no store operation, so a task pays
 * nothing measurable (its cost budget is unchanged). Bounded: at most {@value #MAX_WORKERS} workers (the one heard from
 * longest ago leaves first) and {@value #MAX_EXECUTIONS} executions each; a worker not heard from for
 * {@code forgetAfterMs} is dropped. Each instance sees the reports of its own partitions, so the listing merges every
 * instance's view. Lost on restart (the next report refills it). Thread-safe: stream threads write, HTTP threads read.
 */
public final class ReportedWorkers {
    static final int MAX_WORKERS = 1_000;
    static final int MAX_EXECUTIONS = 20;

    /** One worker as its reports show it: when it last reported, how many reports, the executions started and not ended. */
    public record Reported(String workerId, long lastReportMs, long reports, List<Execution> inFlight) {
    }

    /** An execution a worker reported STARTED (or a heartbeat of), and not yet finished. */
    public record Execution(String executionId, String taskId) {
    }

    private static final class Entry {
        long lastReportMs;
        long reports;
        final LinkedHashMap<String, String> inFlight = new LinkedHashMap<>(); // executionId → taskId
    }

    private final long forgetAfterMs;
    private final Map<String, Entry> workers = new LinkedHashMap<>(16, 0.75f, true);

    public ReportedWorkers(long forgetAfterMs) {
        this.forgetAfterMs = forgetAfterMs;
    }

    /** A report of {@code workerId} (null: none named) about {@code executionId} of {@code taskId}, read at {@code nowMs}. */
    public synchronized void saw(String workerId, String executionId, String taskId, ReportStatus status, long nowMs) {
        if (workerId == null || workerId.isEmpty()) {
            return;
        }
        Entry entry = workers.get(workerId);
        if (entry == null) {
            if (workers.size() >= MAX_WORKERS) {
                String eldest = workers.keySet().iterator().next();
                workers.remove(eldest);
            }
            entry = new Entry();
            workers.put(workerId, entry);
        }
        entry.lastReportMs = Math.max(entry.lastReportMs, nowMs);
        entry.reports++;
        if (status == ReportStatus.SUCCEEDED || status == ReportStatus.FAILED) {
            entry.inFlight.remove(executionId);
        } else if (!entry.inFlight.containsKey(executionId)) {
            if (entry.inFlight.size() >= MAX_EXECUTIONS) {
                entry.inFlight.remove(entry.inFlight.keySet().iterator().next());
            }
            entry.inFlight.put(executionId, taskId);
        }
    }

    /** Every worker heard from within {@code forgetAfterMs} before {@code nowMs}, the latest first; older ones are dropped. */
    public synchronized List<Reported> snapshot(long nowMs) {
        workers.values().removeIf(entry -> nowMs - entry.lastReportMs >= forgetAfterMs);
        List<Reported> all = new ArrayList<>();
        workers.forEach((id, entry) -> {
            List<Execution> executions = new ArrayList<>();
            entry.inFlight.forEach((executionId, taskId) -> executions.add(new Execution(executionId, taskId)));
            all.add(new Reported(id, entry.lastReportMs, entry.reports, List.copyOf(executions)));
        });
        all.sort(Comparator.comparingLong(Reported::lastReportMs).reversed());
        return all;
    }
}
