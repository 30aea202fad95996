package io.ax.app.internal.store;

import java.util.Map;

/**
 * One partition's counters of tasks as its index last wrote them ({@link TaskIndex#flush}), readable from any thread:
 * what {@code GET /stats} sums, without reading the index store (a read of its memtable sorts it, see
 * {@link AxRocksDBConfig}).
 */
@FunctionalInterface
public interface IndexCounts {
    /** The counts of {@code dimension} ({@link TaskIndex#BY_STATE}, {@link TaskIndex#BY_JOB_TYPE}) by value; none at zero. */
    Map<String, Long> of(byte dimension);
}
