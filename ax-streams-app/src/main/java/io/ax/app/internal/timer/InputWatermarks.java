package io.ax.app.internal.timer;

/**
 * How far one stream task has read its inputs, in time: the basis of "decisions follow the log". A negative
 * decision (a timeout, or a fire that a cancel would have stopped) about time T is taken only once every input
 * record Kafka acknowledged before T has been processed. That holds for an input partition when
 * <ul>
 *   <li>an end offset asked of the brokers at or after T (the scheduler's clock) has been reached by the consumer's
 *       position, and every record below that end offset has been processed ({@link Fetched},
 *       {@link ConsumerView}): every record acknowledged before T lies below it; or</li>
 *   <li>a record with a timestamp later than T plus the allowed clock skew has been processed: records come in
 *       log order, so those before it were appended before T (with producers' clocks within the skew).</li>
 * </ul>
 * Until then the decision waits, however late the wall clock says it is: a scheduler restarting behind a
 * backlog of reports reads them before it times anything out, and a cancel queued behind a backlog of requests
 * wins over the fire. Not thread-safe (one stream task owns it).
 */
public final class InputWatermarks {
    private final ConsumerPositions positions;
    private final String[] topics;
    private final int partition;
    private final long maxClockSkewMs;
    private final long[] processedNextOffset;
    private final long[] lastTimestampMs;
    /** The latest time a proof held for, per input: it holds for good once held, whatever proof replaces it. */
    private final long[] provenUpToMs;

    /** @param topics the input topics tracked, by index (the caller's order) */
    public InputWatermarks(ConsumerPositions positions, int partition, long maxClockSkewMs, String... topics) {
        this.positions = positions;
        this.topics = topics.clone();
        this.partition = partition;
        this.maxClockSkewMs = maxClockSkewMs;
        this.processedNextOffset = new long[topics.length];
        this.lastTimestampMs = new long[topics.length];
        this.provenUpToMs = new long[topics.length];
        java.util.Arrays.fill(processedNextOffset, -1);
        java.util.Arrays.fill(lastTimestampMs, Long.MIN_VALUE);
        java.util.Arrays.fill(provenUpToMs, Long.MIN_VALUE);
        for (String topic : this.topics) {
            positions.watch(topic, partition);
        }
    }

    /** The stream task is closed: the consumer need not track its partitions for it any longer. */
    public void close() {
        for (String topic : topics) {
            positions.unwatch(topic, partition);
        }
    }

    /** The processor has processed the record at {@code offset} of input {@code topicIndex}. */
    public void processed(int topicIndex, long offset, long timestampMs) {
        processedNextOffset[topicIndex] = offset + 1;
        lastTimestampMs[topicIndex] = timestampMs;
    }

    /**
     * The latest time T, at most {@code nowMs}, such that every record of input {@code topicIndex} acknowledged
     * before T has been processed; {@code Long.MIN_VALUE} when nothing is known yet (a fresh assignment).
     */
    public long readUpToMs(int topicIndex, long nowMs) {
        Fetched fetched = positions.fetched(topics[topicIndex], partition);
        if (fetched != null && processedNextOffset[topicIndex] >= fetched.requiredNextOffset()) {
            provenUpToMs[topicIndex] = Math.max(provenUpToMs[topicIndex], fetched.readUpToMs());
        }
        // A newer proof whose records are not all processed yet does not undo the last one that held: the records
        // acknowledged before its time are processed still. Falling back to the timestamps instead (a second behind)
        // held every timer due since then for as long as the thread took to process a poll's worth (7-20 % of the
        // punctuations at 3,000 tasks a second).
        long upToMs = provenUpToMs[topicIndex];
        long timestampMs = lastTimestampMs[topicIndex];
        if (timestampMs != Long.MIN_VALUE && timestampMs - maxClockSkewMs - 1 > upToMs) {
            upToMs = timestampMs - maxClockSkewMs - 1;
        }
        return Math.min(upToMs, nowMs);
    }
}
