package io.ax.app.internal.metrics;

import java.util.List;
import java.util.Map;

/**
 * One partition's gauges as its stream thread last computed them ({@link PartitionMetrics#refresh}).
 *
 * @param pending       tasks waiting for their due time (PENDING, RETRY_WAITING)
 * @param overdue       timers due and not fired (at most the scan bound)
 * @param oldestOverdue the most overdue task, or null
 * @param inFlight      executions TRIGGERED or RUNNING, by job type label
 * @param runningLong   of those, the ones in flight longer than the threshold, by job type label
 * @param longest       the longest-running of those, longest first, at most the listed bound
 */
record PartitionSnapshot(long pending, long overdue, Named oldestOverdue, Map<String, Long> inFlight,
                         Map<String, Long> runningLong, List<Named> longest) {
    static final PartitionSnapshot EMPTY = new PartitionSnapshot(0, 0, null, Map.of(), Map.of(), List.of());

    /** A figure about one execution (seconds), with what an alert needs to name it; {@code label}: its job type, or its partition. */
    record Named(String label, String taskId, String executionId, String owner, double seconds) {
    }
}
