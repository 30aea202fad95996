package io.ax.app.internal.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The hanging-transaction rule, case by case; the figures of the first case are those a chaos run left behind. */
class OpenTransactionTest {
    private static final TopicPartition CHANGELOG = new TopicPartition("bench-chaos-xpumq-ax-timers-changelog", 2);
    private static final TopicPartition OTHER = new TopicPartition("bench-chaos-xpumq.state", 2);
    private static final OpenTransaction OPEN = new OpenTransaction(CHANGELOG, 2, 156, 1458, 0);

    @Test
    void shouldCallHangingATransactionWhoseCoordinatorHasMovedOn() {
        // Seen after a broker restart: the coordinator completed the transaction but skipped this partition's marker.
        assertThat(OPEN.isHangingGiven(view(2, 157, TransactionState.COMPLETE_COMMIT))).isTrue();
        assertThat(OPEN.isHangingGiven(view(2, 158, TransactionState.EMPTY))).isTrue();
    }

    @Test
    void shouldCallHangingATransactionNoTransactionalIdOwns() {
        assertThat(OPEN.isHangingGiven(Optional.empty())).isTrue();
    }

    @Test
    void shouldCallHangingATransactionWhoseTransactionalIdMovedToAnotherProducerId() {
        assertThat(OPEN.isHangingGiven(view(7, 0, TransactionState.ONGOING, CHANGELOG))).isTrue();
    }

    @Test
    void shouldLeaveAnOngoingTransactionThatHoldsThePartitionToItsCoordinator() {
        assertThat(OPEN.isHangingGiven(view(2, 156, TransactionState.ONGOING, CHANGELOG, OTHER))).isFalse();
    }

    @Test
    void shouldCallHangingAnOngoingTransactionAtTheSameEpochThatDoesNotHoldThePartition() {
        assertThat(OPEN.isHangingGiven(view(2, 156, TransactionState.ONGOING, OTHER))).isTrue();
    }

    @Test
    void shouldCallHangingATransactionTheCoordinatorCompletedAtTheSameEpoch() {
        assertThat(OPEN.isHangingGiven(view(2, 156, TransactionState.COMPLETE_COMMIT))).isTrue();
        assertThat(OPEN.isHangingGiven(view(2, 156, TransactionState.COMPLETE_ABORT))).isTrue();
    }

    @Test
    void shouldCallHangingATransactionWhenTheCoordinatorRunsALaterOne() {
        assertThat(OPEN.isHangingGiven(view(2, 157, TransactionState.ONGOING, CHANGELOG))).isTrue();
    }

    @Test
    void shouldNotCallHangingWhileTheCoordinatorWritesMarkers() {
        for (TransactionState writing : Set.of(TransactionState.PREPARE_COMMIT, TransactionState.PREPARE_ABORT,
                TransactionState.PREPARE_EPOCH_FENCE)) {
            assertThat(OPEN.isHangingGiven(view(2, 156, writing, CHANGELOG))).as("%s", writing).isFalse();
            assertThat(OPEN.isHangingGiven(view(2, 157, writing))).as("%s at a later epoch", writing).isFalse();
        }
    }

    @Test
    void shouldNotDecideWhenTheCoordinatorIsBehindThePartitionOrSaysUnknown() {
        assertThat(OPEN.isHangingGiven(view(2, 155, TransactionState.EMPTY))).isFalse();
        assertThat(OPEN.isHangingGiven(view(2, 156, TransactionState.UNKNOWN))).isFalse();
    }

    @Test
    void shouldSayItWasAbortedOnlyWhenTheCoordinatorAbortedItAndRanNothingSince() {
        assertThat(OPEN.wasAbortedGiven(view(2, 157, TransactionState.COMPLETE_ABORT))).isTrue();
        // The chaos run's case: committed by its coordinator, the commit marker missing here. Aborting would drop it.
        assertThat(OPEN.wasAbortedGiven(view(2, 157, TransactionState.COMPLETE_COMMIT))).isFalse();
        assertThat(OPEN.wasAbortedGiven(view(2, 158, TransactionState.COMPLETE_ABORT))).as("a later transaction's").isFalse();
        assertThat(OPEN.wasAbortedGiven(view(2, 156, TransactionState.COMPLETE_ABORT))).as("same epoch").isFalse();
        assertThat(OPEN.wasAbortedGiven(view(2, 157, TransactionState.EMPTY))).isFalse();
        assertThat(OPEN.wasAbortedGiven(view(9, 157, TransactionState.COMPLETE_ABORT))).as("another producer").isFalse();
        assertThat(OPEN.wasAbortedGiven(Optional.empty())).isFalse();
    }

    @Test
    void shouldNameTheCommandThatAbortsIt() {
        assertThat(OPEN.abortCommand("127.0.0.1:9092")).isEqualTo("kafka-transactions.sh --bootstrap-server 127.0.0.1:9092"
                + " abort --topic bench-chaos-xpumq-ax-timers-changelog --partition 2 --start-offset 1458");
    }

    private static Optional<TransactionDescription> view(long producerId, int epoch, TransactionState state,
                                                         TopicPartition... partitions) {
        return Optional.of(new TransactionDescription(1, state, producerId, epoch, 5_000, OptionalLong.empty(),
                Set.of(partitions)));
    }
}
