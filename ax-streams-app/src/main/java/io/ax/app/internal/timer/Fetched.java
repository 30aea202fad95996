package io.ax.app.internal.timer;

/**
 * What the stream thread's consumer has proven about one input partition: once every record it handed to Kafka
 * Streams below {@code handedOverNextOffset} is processed, the partition is read up to {@code readUpToMs}.
 *
 * @param handedOverNextOffset the offset after the last record a poll had returned for the partition when the proof
 *                             was made, or -1 when none had been returned since the assignment
 * @param readUpToMs           every record acknowledged before this time (the scheduler's clock) lies below the
 *                             consumer's position: the time an end-offset request was sent whose answer the position
 *                             has since reached ({@link ConsumerView})
 */
public record Fetched(long handedOverNextOffset, long readUpToMs) {
    /** What a synchronous driver (TopologyTestDriver) amounts to: every input is processed as soon as it is sent. */
    public static final Fetched ALWAYS_CAUGHT_UP = new Fetched(-1, Long.MAX_VALUE);
}
