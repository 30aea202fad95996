package io.ax.app.internal.health;

import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.TopicPartition;

/**
 * A transaction a partition's leader holds open (from {@code describeProducers}): its records sit between the
 * partition's last stable offset and its end, invisible to {@code read_committed} readers until a commit or abort
 * marker is written.
 *
 * @param startOffset       where the open transaction's first record is (the partition's last stable offset, or
 *                          above it when another transaction is open below)
 * @param coordinatorEpoch  the coordinator epoch the partition last saw for the producer (what an abort needs)
 */
public record OpenTransaction(TopicPartition partition, long producerId, int producerEpoch, long startOffset,
                              int coordinatorEpoch) {
    /**
     * The states in which the coordinator is still writing this producer's markers, or says nothing it can be held to
     * (UNKNOWN): not hanging.
     */
    private static final Set<TransactionState> UNDECIDED = Set.of(TransactionState.PREPARE_COMMIT,
            TransactionState.PREPARE_ABORT, TransactionState.PREPARE_EPOCH_FENCE, TransactionState.UNKNOWN);

    /**
     * Whether this open transaction is hanging: no coordinator will ever write its marker, so the partition's
     * {@code read_committed} readers (restoring changelogs, workers, the scheduler's own inputs) wait behind it for
     * ever. The coordinator's view ({@code describeTransactions} of the producer's transactional id, taken after the
     * transaction was seen open) decides:
     * <ul>
     *   <li>no transactional id has this producer id, or another producer id: hanging (nothing can end it);</li>
     *   <li>the coordinator is writing markers (PREPARE_*), or its state is UNKNOWN: not hanging;</li>
     *   <li>at this epoch, ONGOING with this partition: the coordinator will end it (commit, abort or time-out);</li>
     *   <li>at this epoch, ongoing without this partition, or done (COMPLETE_*, EMPTY); or at a later epoch in any of
     *       these states: the coordinator has finished with this transaction and missed this partition;</li>
     *   <li>at an earlier epoch than the partition's: the coordinator is behind; not decided here (not hanging).</li>
     * </ul>
     * Kafka's own {@code kafka-transactions.sh find-hanging} applies the same test after the brokers' maximum
     * transaction timeout; the caller decides how long the transaction must have been seen open.
     */
    public boolean isHangingGiven(Optional<TransactionDescription> coordinatorView) {
        if (coordinatorView.isEmpty() || coordinatorView.get().producerId() != producerId) {
            return true;
        }
        TransactionDescription view = coordinatorView.get();
        if (UNDECIDED.contains(view.state())) {
            return false;
        }
        if (view.producerEpoch() < producerEpoch) {
            return false;
        }
        if (view.producerEpoch() == producerEpoch && view.state() == TransactionState.ONGOING) {
            return !view.topicPartitions().contains(partition);
        }
        return true;
    }

    /**
     * Whether the coordinator's view of a hanging transaction says it was aborted, so that an abort marker on this
     * partition is what its coordinator decided: the producer one epoch on, COMPLETE_ABORT, with nothing after it (an
     * abort bumps the epoch; a producer that ran another transaction since has moved on from that state). Any other
     * view (committed, or an outcome the coordinator no longer shows) is not enough: aborting a committed transaction's
     * records would drop, on this partition alone, writes the rest of the transaction made visible (a changelog
     * losing a task the state topic announced).
     */
    public boolean wasAbortedGiven(Optional<TransactionDescription> coordinatorView) {
        return coordinatorView.isPresent() && coordinatorView.get().producerId() == producerId
                && coordinatorView.get().producerEpoch() == producerEpoch + 1
                && coordinatorView.get().state() == TransactionState.COMPLETE_ABORT;
    }

    /** The operator's command that ends it (Kafka's {@code kafka-transactions.sh}). */
    public String abortCommand(String bootstrapServers) {
        return "kafka-transactions.sh --bootstrap-server " + bootstrapServers + " abort --topic " + partition.topic()
                + " --partition " + partition.partition() + " --start-offset " + startOffset;
    }
}
