package io.ax.app.internal.inputs;

/**
 * What the stream thread's consumer knew of one input partition at a poll.
 *
 * @param lag               records between the consumer's position and the partition's end (the last stable
 *                          offset, under read_committed), or -1 when not known yet
 * @param fetchedNextOffset the offset after the last record a poll returned since the partition was assigned,
 *                          or -1 when none was returned: records below it were handed to Kafka Streams
 * @param atMs              when the poll returned, wall clock
 */
public record Fetched(long lag, long fetchedNextOffset, long atMs) {
    /** What a synchronous driver (TopologyTestDriver) amounts to: every input is processed as soon as it is sent. */
    public static final Fetched ALWAYS_CAUGHT_UP = new Fetched(0, -1, Long.MAX_VALUE);
}
