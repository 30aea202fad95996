package io.ax.app.internal.timer;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.internals.KafkaFutureImpl;

/** End offsets asked of no broker: each request is kept, unanswered, for the test to answer or fail. */
public final class AskedEndOffsets implements EndOffsetProbe.EndOffsets {
    public final List<KafkaFutureImpl<Map<TopicPartition, Long>>> asked = new ArrayList<>();

    @Override
    public KafkaFutureImpl<Map<TopicPartition, Long>> ask(java.util.Set<TopicPartition> partitions) {
        KafkaFutureImpl<Map<TopicPartition, Long>> answer = new KafkaFutureImpl<>();
        asked.add(answer);
        return answer;
    }

    /** A probe over these requests, sending no more often than {@code minIntervalMs}. */
    public EndOffsetProbe probe(long minIntervalMs) {
        return new EndOffsetProbe(this, () -> { }, minIntervalMs);
    }
}
