package io.ax.worker.internal;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Counts the reports of one execution that await acknowledgement and calls back once, when the execution is
 * {@link #seal() sealed} and every expected report is acknowledged, with the first error if any. Thread-safe.
 */
final class Acks {
    private final AtomicInteger pending = new AtomicInteger(1); // 1 = not sealed yet
    private final Consumer<Exception> whenAllAcked;
    private volatile Exception failure;

    Acks(Consumer<Exception> whenAllAcked) {
        this.whenAllAcked = whenAllAcked;
    }

    /** One more report to wait for; pass the returned callback to the sink. */
    Consumer<Exception> expect() {
        pending.incrementAndGet();
        return error -> {
            if (error != null && failure == null) {
                failure = error;
            }
            arrive();
        };
    }

    /** No more reports will be expected. */
    void seal() {
        arrive();
    }

    private void arrive() {
        if (pending.decrementAndGet() == 0) {
            whenAllAcked.accept(failure);
        }
    }
}
