package io.ax.app.internal.timer;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks the brokers for the end offsets of the watched input partitions (the last stable offset under
 * read_committed), without blocking the stream thread: one request in flight at most, sent no more often than
 * {@code minIntervalMs}, its answer taken up at the next poll. The time recorded is read <em>before</em> the request
 * is handed to the admin client, so it precedes the moment the broker read its log: every record acknowledged
 * before it lies below the answer (see topology-docs/DECISIONS.md, "Decisions follow the log"). Used by the stream
 * thread only; not thread-safe.
 */
public final class EndOffsetProbe implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EndOffsetProbe.class);

    /** Asks the end offsets of some partitions; the answer may come later. */
    @FunctionalInterface
    public interface EndOffsets {
        KafkaFuture<Map<TopicPartition, Long>> ask(Set<TopicPartition> partitions);
    }

    private final EndOffsets endOffsets;
    private final AutoCloseable client;
    private final long minIntervalMs;
    private KafkaFuture<Map<TopicPartition, Long>> inFlight;
    private long sentAtMs = Long.MIN_VALUE;

    /**
     * @param admin          the client the requests go through (owned: closed with the probe)
     * @param readCommitted  whether the consumer reads committed records only (then the last stable offset is asked)
     * @param minIntervalMs  the least time between two requests
     * @param timeoutMs      how long one request may take before it is given up (and another may be sent)
     */
    public static EndOffsetProbe of(Admin admin, boolean readCommitted, long minIntervalMs, int timeoutMs) {
        ListOffsetsOptions options = new ListOffsetsOptions(readCommitted ? IsolationLevel.READ_COMMITTED : IsolationLevel.READ_UNCOMMITTED)
                .timeoutMs(timeoutMs);
        return new EndOffsetProbe(partitions -> {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (TopicPartition partition : partitions) {
                latest.put(partition, OffsetSpec.latest());
            }
            return admin.listOffsets(latest, options).all().thenApply(answer -> {
                Map<TopicPartition, Long> offsets = new HashMap<>();
                answer.forEach((partition, info) -> offsets.put(partition, info.offset()));
                return offsets;
            });
        }, () -> admin.close(Duration.ZERO), minIntervalMs);
    }

    /**
     * @param endOffsets    how end offsets are asked
     * @param client        closed with the probe
     * @param minIntervalMs the least time between two requests
     */
    public EndOffsetProbe(EndOffsets endOffsets, AutoCloseable client, long minIntervalMs) {
        this.endOffsets = endOffsets;
        this.client = client;
        this.minIntervalMs = minIntervalMs;
    }

    public boolean inFlight() {
        return inFlight != null;
    }

    /** When the last request was sent ({@code Long.MIN_VALUE}: never). */
    public long sentAtMs() {
        return sentAtMs;
    }

    /** Whether a request was ever sent. */
    public boolean everSent() {
        return sentAtMs != Long.MIN_VALUE;
    }

    /** Sends a request for {@code partitions} unless one is in flight or the last went less than the interval ago. */
    public void maybeSend(Set<TopicPartition> partitions, long nowMs) {
        if (inFlight != null || partitions.isEmpty() || (sentAtMs != Long.MIN_VALUE && nowMs - sentAtMs < minIntervalMs)) {
            return;
        }
        sentAtMs = nowMs;
        inFlight = endOffsets.ask(partitions);
    }

    /** Hands a completed answer to {@code view}; a failed one is dropped (the next request will do). */
    public void maybeCollect(ConsumerView view) {
        if (inFlight == null || !inFlight.isDone()) {
            return;
        }
        try {
            view.probed(sentAtMs, inFlight.get());
        } catch (ExecutionException e) {
            LOG.debug("end offsets of the inputs not known this time: {}", e.getCause().toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            inFlight = null;
        }
    }

    @Override
    public void close() {
        try {
            client.close();
        } catch (Exception e) {
            LOG.debug("closing the end-offset client: {}", e.toString());
        }
    }
}
