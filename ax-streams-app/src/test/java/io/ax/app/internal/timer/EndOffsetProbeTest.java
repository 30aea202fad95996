package io.ax.app.internal.timer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.internals.KafkaFutureImpl;
import org.junit.jupiter.api.Test;

class EndOffsetProbeTest {
    private static final TopicPartition P = new TopicPartition("ax.requests", 0);
    private final AskedEndOffsets endOffsets = new AskedEndOffsets();
    private final List<KafkaFutureImpl<Map<TopicPartition, Long>>> asked = endOffsets.asked;
    private final EndOffsetProbe probe = endOffsets.probe(10);
    private final ConsumerView consumerView = new ConsumerView();

    @Test
    void shouldSendTheFirstRequestAtOnceThenOneInFlightAtMostAndNoMoreOftenThanTheInterval() {
        probe.maybeSend(Set.of(P), 1_000);
        assertThat(asked).hasSize(1);
        probe.maybeSend(Set.of(P), 1_050);
        assertThat(asked).as("one in flight at most").hasSize(1);
        asked.get(0).complete(Map.of(P, 7L));
        probe.maybeCollect(consumerView);
        assertThat(probe.inFlight()).isFalse();
        probe.maybeSend(Set.of(P), 1_005 + 4);
        assertThat(asked).as("within the interval of the last").hasSize(1);
        probe.maybeSend(Set.of(P), 1_010);
        assertThat(asked).hasSize(2);
        probe.maybeSend(Set.of(), 2_000);
        assertThat(asked).as("nothing to ask").hasSize(2);
    }

    @Test
    void shouldDropAFailedAnswerAndAskAgain() {
        probe.maybeSend(Set.of(P), 1_000);
        asked.get(0).completeExceptionally(new org.apache.kafka.common.errors.TimeoutException("slow broker"));
        probe.maybeCollect(consumerView);
        assertThat(probe.inFlight()).isFalse();
        probe.maybeSend(Set.of(P), 1_010);
        assertThat(asked).hasSize(2);
    }

    @Test
    void shouldStampTheAnswerWithTheTimeBeforeTheRequestWasSent() {
        InputWatermarks inputs = new InputWatermarks(consumerView, 0, 1_000, "ax.requests");
        try {
            probe.maybeSend(consumerView.notPending(), 40_000);
            asked.get(0).complete(Map.of(P, 0L));
            probe.maybeCollect(consumerView);
            consumerView.polled(org.apache.kafka.clients.consumer.ConsumerRecords.empty(), partition -> 0L);
            assertThat(inputs.readUpToMs(0, 45_000)).isEqualTo(40_000);
        } finally {
            inputs.close();
        }
    }
}
