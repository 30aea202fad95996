package io.ax.app.bench;

import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;

/**
 * How far a scheduler's application has committed its inputs: the sum of its consumer group's committed offsets,
 * asked of the brokers at most once every {@value #REFRESH_MS} ms (the last answer in between, and when an answer
 * fails). A wait for stragglers counts it as progress beside the dispatches: a scheduler far behind still reads and
 * commits the requests it has not accepted yet while no fire is due for it, so it is late, not stopped.
 */
final class InputsCommitted implements AutoCloseable {
    static final long REFRESH_MS = 1_000;
    private static final long ANSWER_TIMEOUT_MS = 5_000;

    private final Admin admin;
    private final String applicationId;
    private final Clock clock;
    private long askedAtMs = Long.MIN_VALUE;
    private long committed;

    InputsCommitted(Map<String, Object> kafka, String applicationId, Clock clock) {
        this.admin = Admin.create(kafka);
        this.applicationId = applicationId;
        this.clock = clock;
    }

    /** The sum of the application's committed offsets, as last answered; 0 before the first answer. */
    synchronized long committed() throws InterruptedException {
        long nowMs = clock.millis();
        if (nowMs - askedAtMs >= REFRESH_MS) {
            askedAtMs = nowMs;
            try {
                committed = sum(admin.listConsumerGroupOffsets(applicationId).partitionsToOffsetAndMetadata()
                        .get(ANSWER_TIMEOUT_MS, TimeUnit.MILLISECONDS));
            } catch (ExecutionException | TimeoutException e) {
                // no answer this time: the last one stands, and the next call asks again a second later
            }
        }
        return committed;
    }

    static long sum(Map<?, OffsetAndMetadata> offsets) {
        long sum = 0;
        for (OffsetAndMetadata offset : offsets.values()) {
            if (offset != null) {
                sum += offset.offset();
            }
        }
        return sum;
    }

    @Override
    public void close() {
        admin.close();
    }
}
