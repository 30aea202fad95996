package io.ax.app.internal.metrics;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Records of a compacted input the scheduler refused and did not store (the limits topic: bad key, bad JSON, a field
 * out of range; the calendars topic: a name that is not one, bytes that are not a calendar, a calendar that breaks its
 * bounds): counted, and the last few kept with where they were and why, for {@code GET /limits}, {@code GET /calendars}
 * and {@code ./ax limits show}. Keys and reasons are quoted short by the caller. Thread-safe: the global stream thread
 * writes, HTTP threads read.
 */
public final class RefusedRecords {
    /** How many refused records are kept. */
    static final int KEPT = 20;

    /** One refused record: its key (quoted short), where it was and why. */
    public record Refused(String key, int partition, long offset, String reason) {
    }

    private final AtomicLong count = new AtomicLong();
    private final Deque<Refused> last = new ArrayDeque<>();

    public void refused(Refused refused) {
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
