package io.ax.app.bench;

import java.time.Clock;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * How far a scheduler's application has committed its inputs: the sum of its consumer group's committed offsets on
 * the given topics (the requests, the reports and the retries; not the workers' heartbeats, which come every few
 * seconds whatever the scheduler does), asked of the brokers at most once every {@value #REFRESH_MS} ms (the last answer in between, and when an answer
 * fails). A wait for stragglers counts it as progress beside the dispatches: a scheduler far behind still reads and
 * commits the requests it has not accepted yet while no fire is due for it, so it is late, not stopped.
 */
final class InputsCommitted implements AutoCloseable {
    static final long REFRESH_MS = 1_000;
    private static final long ANSWER_TIMEOUT_MS = 5_000;

    private final Admin admin;
    private final String applicationId;
    private final Set<String> topics;
    private final Clock clock;
    private long askedAtMs = Long.MIN_VALUE;
    private long committed;

    InputsCommitted(Map<String, Object> kafka, String applicationId, Collection<String> topics, Clock clock) {
        this.admin = Admin.create(kafka);
        this.applicationId = applicationId;
        this.topics = Set.copyOf(topics);
        this.clock = clock;
    }

    /** The sum of the application's committed offsets, as last answered; 0 before the first answer. */
    synchronized long committed() throws InterruptedException {
        long nowMs = clock.millis();
        if (nowMs - askedAtMs >= REFRESH_MS) {
            askedAtMs = nowMs;
            try {
                committed = sum(admin.listConsumerGroupOffsets(applicationId).partitionsToOffsetAndMetadata()
                        .get(ANSWER_TIMEOUT_MS, TimeUnit.MILLISECONDS), topics);
            } catch (ExecutionException | TimeoutException e) {
                // no answer this time: the last one stands, and the next call asks again a second later
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
    public void close() {
        admin.close();
    }
}
