package io.ax.app.internal.inputs;

import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;

/**
 * What the stream thread's main consumer knew at its latest poll, per input partition: its lag and how far it
 * handed records to Kafka Streams. The consumer ({@link io.ax.app.internal.timer.TimerAwareConsumer}) writes it
 * after every poll; the processors of the same thread read it through {@link #POSITIONS}. Both run on the stream
 * thread, so the registry is thread-local and needs no locking (as {@link io.ax.app.internal.timer.WakeUps}).
 */
public final class ConsumerView {
    private static final ThreadLocal<Map<TopicPartition, Fetched>> VIEW = ThreadLocal.withInitial(HashMap::new);

    /** The production positions: the view of the consumer on the calling (stream) thread. */
    public static final ConsumerPositions POSITIONS = (topic, partition) -> VIEW.get().get(new TopicPartition(topic, partition));

    private ConsumerView() {
    }

    /**
     * Records a poll: for every assigned partition its lag ({@code lagOf}, from cached fetch metadata, never a
     * remote call) and the offset after the last record returned for it.
     */
    public static void polled(Set<TopicPartition> assignment, ConsumerRecords<?, ?> records,
                              java.util.function.Function<TopicPartition, OptionalLong> lagOf, long nowMs) {
        Map<TopicPartition, Fetched> view = VIEW.get();
        view.keySet().retainAll(assignment);
        for (TopicPartition partition : assignment) {
            Fetched previous = view.get(partition);
            long fetchedNext = previous == null ? -1 : previous.fetchedNextOffset();
            var returned = records.records(partition);
            if (!returned.isEmpty()) {
                fetchedNext = returned.get(returned.size() - 1).offset() + 1;
            }
            OptionalLong lag = lagOf.apply(partition);
            view.put(partition, new Fetched(lag.isPresent() ? lag.getAsLong() : -1, fetchedNext, nowMs));
        }
    }
}
