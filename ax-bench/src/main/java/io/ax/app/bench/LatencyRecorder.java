package io.ax.app.bench;

import org.HdrHistogram.Histogram;

/**
 * Lateness samples in milliseconds, kept in an HdrHistogram (3 significant digits, up to one hour). Negative
 * samples (something happened before it was due) are counted as {@link #early()} and recorded as 0, so the
 * percentiles stay meaningful and the early count says what went wrong.
 *
 * <p>Thread-safe (synchronized): worker handler threads and consumer threads record into one instance.
 */
public final class LatencyRecorder {
    private static final long HIGHEST_MS = 3_600_000L;

    private final Histogram histogram = new Histogram(HIGHEST_MS, 3);
    private long early;

    /** Records {@code latenessMs} (clamped to [0, 1 h]). */
    public synchronized void record(long latenessMs) {
        if (latenessMs < 0) {
            early++;
        }
        histogram.recordValue(Math.min(Math.max(latenessMs, 0), HIGHEST_MS));
    }

    public synchronized long count() {
        return histogram.getTotalCount();
    }

    /** Samples that were negative. */
    public synchronized long early() {
        return early;
    }

    /** The value at {@code percentile} (0-100), ms; 0 when empty. */
    public synchronized long percentileMs(double percentile) {
        return histogram.getTotalCount() == 0 ? 0 : histogram.getValueAtPercentile(percentile);
    }

    public synchronized long maxMs() {
        return histogram.getTotalCount() == 0 ? 0 : histogram.getMaxValue();
    }

    /** Adds p50_ms, p99_ms and max_ms (each key prefixed by {@code prefix}, which may be empty). */
    public ResultLine addTo(ResultLine line, String prefix) {
        return line.add(prefix + "p50_ms", percentileMs(50)).add(prefix + "p99_ms", percentileMs(99))
                .add(prefix + "max_ms", maxMs());
    }
}
