package io.ax.app.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * A run's lateness second by second of due time: for each second after the first measured task's due time, how many
 * first dispatches were due in it, how many of them the scheduler fired and made visible more than {@value #LATE_MS}
 * ms late, and the latest of each. A p99 says how late the slowest hundredth was; this says whether they were spread
 * over the run or packed into a few seconds (a stall), and which. Bounded: {@value #MAX_SECONDS} seconds, a due time
 * before the first task's counted in its first second, one after the last second in the last.
 */
final class LatenessBySecond {
    static final int MAX_SECONDS = 3_600;
    static final long LATE_MS = 150;
    private static final int DUE = 0;
    private static final int FIRED_LATE = 1;
    private static final int FIRED_MAX = 2;
    private static final int VISIBLE_LATE = 3;
    private static final int VISIBLE_MAX = 4;

    private final long startMs;
    private final long[][] seconds = new long[MAX_SECONDS][];
    private int last = -1;

    /** @param startMs the first measured task's due time: second 0 starts there */
    LatenessBySecond(long startMs) {
        this.startMs = startMs;
    }

    /** Counts a first dispatch due at {@code dueMs}, fired {@code firedLateMs} and visible {@code visibleLateMs} after it. */
    synchronized void record(long dueMs, long firedLateMs, long visibleLateMs) {
        int second = (int) Math.max(0, Math.min(MAX_SECONDS - 1, Math.floorDiv(dueMs - startMs, 1_000L)));
        long[] counts = seconds[second];
        if (counts == null) {
            counts = seconds[second] = new long[5];
            last = Math.max(last, second);
        }
        counts[DUE]++;
        counts[FIRED_LATE] += firedLateMs > LATE_MS ? 1 : 0;
        counts[FIRED_MAX] = Math.max(counts[FIRED_MAX], firedLateMs);
        counts[VISIBLE_LATE] += visibleLateMs > LATE_MS ? 1 : 0;
        counts[VISIBLE_MAX] = Math.max(counts[VISIBLE_MAX], visibleLateMs);
    }

    /** Seconds holding a dispatch visible more than {@value #LATE_MS} ms late. */
    synchronized int secondsLate() {
        int late = 0;
        for (int second = 0; second <= last; second++) {
            late += seconds[second] != null && seconds[second][VISIBLE_LATE] > 0 ? 1 : 0;
        }
        return late;
    }

    /** One line per second that held a due task, e.g. {@code second 5: due 5000, fired > 150 ms 681 (max 279 ms), visible > 150 ms 900 (max 300 ms)}. */
    synchronized List<String> lines() {
        List<String> lines = new ArrayList<>();
        for (int second = 0; second <= last; second++) {
            long[] counts = seconds[second];
            if (counts != null) {
                lines.add("second %d: due %d, fired > %d ms %d (max %d ms), visible > %d ms %d (max %d ms)".formatted(second,
                        counts[DUE], LATE_MS, counts[FIRED_LATE], counts[FIRED_MAX], LATE_MS, counts[VISIBLE_LATE], counts[VISIBLE_MAX]));
            }
        }
        return lines;
    }
}
