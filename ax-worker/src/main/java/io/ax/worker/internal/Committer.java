package io.ax.worker.internal;

import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits the offsets the {@link OffsetTracker} says are done, and decides what a failed commit means, so that a
 * coordinator outage never ends the worker:
 * <ul>
 *   <li>Transient ({@link RetriableException}: a timeout, the group coordinator moving or unavailable, a
 *       disconnect) or the group moving on ({@link CommitFailedException}, {@link RebalanceInProgressException}):
 *       logged, and the next attempt waits a growing backoff ({@link #BACKOFF}) by the worker's clock. The loop
 *       keeps polling and running handlers meanwhile; the next attempt commits whatever is done by then, which
 *       includes what the failed one carried, so nothing handled is lost and nothing unfinished is committed. A
 *       partition lost in the rebalance is forgotten by the loop, and its uncommitted dispatches go to the new
 *       owner.
 *   <li>Anything else (a fenced static member, no authorization, a closed consumer, an unknown error) is fatal and
 *       thrown: it ends the loop, which logs it at ERROR and keeps it for {@code AxWorker.failure()}.
 * </ul>
 * Committing again what a timed-out attempt may have written is harmless: the offset is the same or higher.
 *
 * <p>Not thread-safe: owned by the poll loop thread.
 */
final class Committer {
    static final Backoff BACKOFF = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(5));
    private static final Logger log = LoggerFactory.getLogger(Committer.class);

    private final Consumer<?, ?> consumer;
    private final OffsetTracker offsets;
    private final Clock clock;
    private int failuresInARow;
    private long nextAttemptAtMs;

    Committer(Consumer<?, ?> consumer, OffsetTracker offsets, Clock clock) {
        this.consumer = consumer;
        this.offsets = offsets;
        this.clock = clock;
    }

    /** Commits what is done on every partition, unless the backoff after a failed commit is still running. */
    void maybeCommit() {
        if (failuresInARow == 0 || clock.millis() >= nextAttemptAtMs) {
            commitNow(null);
        }
    }

    /**
     * Commits what is done on {@code only} (all partitions if null) now, backoff or not: they are being revoked,
     * or the loop ends.
     */
    void commitNow(Collection<TopicPartition> only) {
        Map<TopicPartition, OffsetAndMetadata> toCommit = offsets.toCommit(only);
        if (toCommit.isEmpty()) {
            return;
        }
        try {
            commitSync(toCommit);
        } catch (RetriableException | CommitFailedException | RebalanceInProgressException e) {
            failuresInARow++;
            long delayMs = BACKOFF.delayMs(failuresInARow);
            nextAttemptAtMs = clock.millis() + delayMs;
            log.warn("Could not commit {} ({} failed commits in a row); the next attempt in {} ms commits what is done "
                    + "by then, and the dispatches stay uncommitted until it succeeds: {}", toCommit, failuresInARow,
                    delayMs, e.toString());
            return;
        }
        if (failuresInARow > 0) {
            log.info("Committed {} after {} failed commits", toCommit, failuresInARow);
            failuresInARow = 0;
        }
        offsets.committed(toCommit);
    }

    private void commitSync(Map<TopicPartition, OffsetAndMetadata> toCommit) {
        try {
            consumer.commitSync(toCommit);
        } catch (WakeupException e) {
            consumer.commitSync(toCommit); // the wakeup was meant for poll; it is spent now
        }
    }
}
