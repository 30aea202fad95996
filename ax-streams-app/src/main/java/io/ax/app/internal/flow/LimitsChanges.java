package io.ax.app.internal.flow;

import java.util.concurrent.atomic.AtomicLong;

/**
 * How many times the global limits store of one scheduler instance has changed. {@link ApplyLimitRecord} (the global
 * thread) counts a change after writing it; a reader ({@link StoreFlowLimits}, on a stream thread) keeps what it read
 * and drops it when the count moved. Written after the store, read before it: a reader never keeps a value older than
 * the count it saw.
 */
public final class LimitsChanges {
    private final AtomicLong changes = new AtomicLong();

    /** The store was changed (called after the write). */
    void changed() {
        changes.incrementAndGet();
    }

    /** The number of changes so far. */
    long count() {
        return changes.get();
    }
}
