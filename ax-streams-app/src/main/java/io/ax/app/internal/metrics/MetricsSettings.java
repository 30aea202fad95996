package io.ax.app.internal.metrics;

/**
 * How the scheduler's metrics are bounded and refreshed ({@code ax.metrics.*}).
 *
 * @param maxJobTypes       distinct {@code job_type} label values per instance; later ones count as {@code _other}
 * @param refreshMs         how often each partition recomputes its gauges (pending, overdue, in flight), ms
 * @param longRunningMs     an execution in flight longer than this counts in {@code ax_executions_running_long}, ms
 * @param longRunningListed the longest-running such executions named by {@code ax_long_running_execution_seconds}
 * @param scanMax           most timers (overdue) and executions (in flight) one partition reads per refresh; a gauge
 *                          reads this value when there are more
 * @param lateFireMs        an attempt fired later than this after its due time is named by {@code ax_last_late_fire_seconds}
 */
public record MetricsSettings(int maxJobTypes, long refreshMs, long longRunningMs, int longRunningListed, int scanMax,
                              long lateFireMs) {
    public static final MetricsSettings DEFAULTS = new MetricsSettings(100, 5_000, 3_600_000, 10, 100_000, 2_000);
}
