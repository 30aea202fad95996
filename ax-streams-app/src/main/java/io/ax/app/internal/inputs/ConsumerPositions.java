package io.ax.app.internal.inputs;

/** Where the consumer feeding a stream task stands on an input partition. */
@FunctionalInterface
public interface ConsumerPositions {
    /** For TopologyTestDriver: inputs are processed synchronously, so the log is always read to its end. */
    ConsumerPositions SYNCHRONOUS = (topic, partition) -> Fetched.ALWAYS_CAUGHT_UP;

    /** @return the latest knowledge of {@code topic}-{@code partition}, or null when there is none yet */
    Fetched fetched(String topic, int partition);
}
