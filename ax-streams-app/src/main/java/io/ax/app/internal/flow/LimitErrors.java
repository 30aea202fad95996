package io.ax.app.internal.flow;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Limits records the scheduler refused (bad key, bad JSON, a field out of range): counted, and the last few kept for
 * {@code GET /limits} and {@code ./ax limits show}. Thread-safe: the global stream thread writes, HTTP threads read.
 */
public final class LimitErrors {
    /** How many refused records are kept. */
    static final int KEPT = 20;

    /** One refused record: where it was and why. */
    public record Refused(String key, int partition, long offset, String reason) {
    }

    private final AtomicLong count = new AtomicLong();
    private final Deque<Refused> last = new ArrayDeque<>();

    void refused(Refused refused) {
        count.incrementAndGet();
        synchronized (last) {
            last.addLast(refused);
            if (last.size() > KEPT) {
                last.removeFirst();
            }
        }
    }

    public long count() {
        return count.get();
    }

    public List<Refused> last() {
        synchronized (last) {
            return List.copyOf(last);
        }
    }
}
