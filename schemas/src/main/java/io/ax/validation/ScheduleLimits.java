package io.ax.validation;

/**
 * Bounds a schedule request must respect. The client and the scheduler check the same rules; the
 * scheduler's values (its config) are the ones that count.
 *
 * @param maxPayloadBytes largest payload accepted
 * @param minIntervalMs   shortest fixed interval accepted
 */
public record ScheduleLimits(int maxPayloadBytes, long minIntervalMs) {
    public static final int DEFAULT_MAX_PAYLOAD_BYTES = 256 * 1024;
    public static final long DEFAULT_MIN_INTERVAL_MS = 100;

    public ScheduleLimits {
        if (maxPayloadBytes < 0) {
            throw new IllegalArgumentException("maxPayloadBytes must be >= 0: " + maxPayloadBytes);
        }
        if (minIntervalMs < 1) {
            throw new IllegalArgumentException("minIntervalMs must be >= 1: " + minIntervalMs);
        }
    }

    public static ScheduleLimits defaults() {
        return new ScheduleLimits(DEFAULT_MAX_PAYLOAD_BYTES, DEFAULT_MIN_INTERVAL_MS);
    }
}
