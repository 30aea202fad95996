package io.ax.app.internal.timer;

/**
 * What the stream thread's consumer has proven about one input partition: once every record it handed to Kafka
 * Streams below {@code requiredNextOffset} is processed, the partition is read up to {@code readUpToMs}.
 *
 * @param requiredNextOffset   the offset the processed records must reach: the end offset the proof was asked, or, when
 *                             the polls had returned less than that, the offset after the last record they had returned
 *                             for the partition (-1 when none since the assignment). Records at or after the end offset
 *                             were appended after the request, so the proof does not wait for them
 * @param readUpToMs           every record acknowledged before this time (the scheduler's clock) lies below the
 *                             consumer's position: the time an end-offset request was sent whose answer the position
 *                             has since reached ({@link ConsumerView})
 */
public record Fetched(long requiredNextOffset, long readUpToMs) {
    /** What a synchronous driver (TopologyTestDriver) amounts to: every input is processed as soon as it is sent. */
    public static final Fetched ALWAYS_CAUGHT_UP = new Fetched(-1, Long.MAX_VALUE);
}
