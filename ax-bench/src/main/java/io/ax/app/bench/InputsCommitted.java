package io.ax.app.bench;

import java.time.Clock;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * How far a scheduler's application has committed its inputs: the sum of its consumer group's committed offsets on
 * the given topics (its co-partitioned inputs; not the workers' heartbeats, which come every few seconds whatever the
 * scheduler does), asked of the brokers at most once every {@value #REFRESH_MS} ms; in between, and when an answer
 * fails, the last answer stands. A wait for stragglers counts it as progress beside the dispatches: a scheduler far
 * behind still reads and commits the requests it has not accepted yet while no fire is due for it, so it is late, not
 * stopped. Used by one thread.
 */
final class InputsCommitted implements AutoCloseable {
    static final long REFRESH_MS = 1_000;
    private static final long ANSWER_TIMEOUT_MS = 5_000;

    private final Callable<Map<TopicPartition, OffsetAndMetadata>> ask;
    private final AutoCloseable client;
    private final Set<String> topics;
    private final Clock clock;
    private boolean asked;
    private long askedAtMs;
    private long committed;

    InputsCommitted(Callable<Map<TopicPartition, OffsetAndMetadata>> ask, AutoCloseable client, Collection<String> topics,
                    Clock clock) {
        this.ask = ask;
        this.client = client;
        this.topics = Set.copyOf(topics);
        this.clock = clock;
    }

    /** Asks the brokers, through an admin client of its own, for {@code applicationId}'s committed offsets. */
    static InputsCommitted of(Map<String, Object> kafka, String applicationId, Collection<String> topics, Clock clock) {
        Admin admin = Admin.create(kafka);
        return new InputsCommitted(() -> admin.listConsumerGroupOffsets(applicationId).partitionsToOffsetAndMetadata()
                .get(ANSWER_TIMEOUT_MS, TimeUnit.MILLISECONDS), admin, topics, clock);
    }

    /** The sum of the committed offsets on the topics, as last answered; 0 before the first answer. */
    long committed() {
        long nowMs = clock.millis();
        if (!asked || nowMs - askedAtMs >= REFRESH_MS) {
            asked = true;
            askedAtMs = nowMs;
            try {
                committed = sum(ask.call(), topics);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // the wait that asked ends at its next sleep
            } catch (Exception e) {
                // no answer this time (failed, timed out): the last one stands, and the next ask is a second later
            }
        }
        return committed;
    }

    /** The sum of the offsets of {@code topics}' partitions in {@code offsets} (a partition without one counts 0). */
    static long sum(Map<TopicPartition, OffsetAndMetadata> offsets, Set<String> topics) {
        long sum = 0;
        for (Map.Entry<TopicPartition, OffsetAndMetadata> offset : offsets.entrySet()) {
            if (offset.getValue() != null && topics.contains(offset.getKey().topic())) {
                sum += offset.getValue().offset();
            }
        }
        return sum;
    }

    @Override
    public void close() throws Exception {
        client.close();
    }
}
