package io.ax.app.bench;

import io.ax.app.internal.timer.EndOffsetProbe;
import io.ax.app.internal.timer.TimedPolls;
import java.time.Duration;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.streams.internals.ConsumerWrapper;

/**
 * For measuring only: what ax's main consumer ({@code TimerAwareConsumer}) does, for Kafka Streams' new rebalance
 * protocol ({@code group.protocol=streams}, KIP-1071). Under that protocol Kafka Streams 4.4 builds its main
 * consumer itself and ignores the client supplier's; the only way in is an internal hook,
 * {@code __internal.consumer.wrapper__} (a subclass of the internal {@link ConsumerWrapper}). ax does not ship on
 * an internal API: this class lets {@code ./ax bench failover} measure the protocol with ax's behaviour intact
 * (BENCHMARKS.md, "Rebalance protocols").
 */
public final class StreamsProtocolMainConsumer extends ConsumerWrapper {
    /**
     * The wrapper gets no client configuration to build an admin client from: end offsets are asked through the
     * consumer itself, which blocks the poll for a round trip (acceptable for measuring; ax's own consumer does not).
     */
    private final TimedPolls polls = new TimedPolls(Time.SYSTEM, new EndOffsetProbe(
            partitions -> KafkaFuture.completedFuture(delegate.endOffsets(partitions, Duration.ofSeconds(5))), () -> { }, 10), 10);

    @Override
    public ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
        return polls.poll(timeout, delegate); // the scheduler's own poll, as TimerAwareConsumer calls it
    }
}
