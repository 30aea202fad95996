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
 * <p>Each attempt waits at most {@code timeout} ({@code commitSync(offsets, timeout)}), not Kafka's
 * {@code default.api.timeout.ms} (60 s): the loop also starts the executions held until their due time or for a
 * re-run, and does nothing else while it commits, so an unreachable coordinator may delay them by one bound, not by
 * a minute per attempt. An attempt that {@code wakeup()} cut short is made once more, so it may take twice the bound.
 * It stays synchronous, rather than {@code commitAsync} with a callback, because then a timed-out attempt is one more
 * {@link RetriableException} for the backoff above, the tracker learns an offset is committed only once the broker
 * said so, and a rebalance and the shutdown commit the same way, bounded too (one that times out leaves those
 * dispatches for redelivery). An asynchronous commit would need a callback that updates the tracker and the backoff
 * from inside a later poll, a guard against a second commit in flight, and still a synchronous commit on revocation
 * and shutdown. What it costs: during an outage the loop is held up to the bound per attempt, and attempts are at
 * least the backoff apart.
 *
 * <p>Not thread-safe: owned by the poll loop thread.
 */
final class Committer {
    static final Backoff BACKOFF = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(5));
    private static final Logger log = LoggerFactory.getLogger(Committer.class);

    private final Consumer<?, ?> consumer;
    private final OffsetTracker offsets;
    private final Clock clock;
    private final Duration timeout;
    private int failuresInARow;
    private long nextAttemptAtMs;

    /** @param timeout how long one attempt may wait for the coordinator */
    Committer(Consumer<?, ?> consumer, OffsetTracker offsets, Clock clock, Duration timeout) {
        this.consumer = consumer;
        this.offsets = offsets;
        this.clock = clock;
        this.timeout = timeout;
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
            consumer.commitSync(toCommit, timeout);
        } catch (WakeupException e) {
            consumer.commitSync(toCommit, timeout); // the wakeup was meant for poll; it is spent now
        }
    }
}
