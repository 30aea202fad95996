package io.ax.worker.internal;

/**
 * How much waiting work the worker keeps in memory (see {@link Lanes}): a job type with
 * {@code maxWaitingPerJobType} executions waiting for a handler is backlogged; backlogged job types together may
 * hold {@code maxOverflow} more before the partitions they come from are paused.
 */
public record BacklogLimits(int maxWaitingPerJobType, int maxOverflow) {
    public BacklogLimits {
        if (maxWaitingPerJobType < 1) {
            throw new IllegalArgumentException("maxWaitingPerJobType must be >= 1: " + maxWaitingPerJobType);
        }
        if (maxOverflow < 0) {
            throw new IllegalArgumentException("maxOverflow must be >= 0: " + maxOverflow);
        }
    }
}
