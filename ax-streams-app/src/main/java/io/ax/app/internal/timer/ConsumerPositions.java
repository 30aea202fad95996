package io.ax.app.internal.timer;

/** Where the consumer feeding a stream task stands on an input partition. */
public interface ConsumerPositions {
    /** For TopologyTestDriver: inputs are processed synchronously, so the log is always read to its end. */
    ConsumerPositions SYNCHRONOUS = (topic, partition) -> Fetched.ALWAYS_CAUGHT_UP;

    /** @return the latest proof of how far {@code topic}-{@code partition} is read, or null when there is none yet */
    Fetched fetched(String topic, int partition);

    /** A stream task starts to need {@link #fetched} for this partition (so the consumer keeps track of it). */
    default void watch(String topic, int partition) {
    }

    /** The stream task no longer needs it (closed). */
    default void unwatch(String topic, int partition) {
    }
}
