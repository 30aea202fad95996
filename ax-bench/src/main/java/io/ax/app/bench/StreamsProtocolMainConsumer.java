package io.ax.app.bench;

import io.ax.app.internal.timer.EndOffsetProbe;
import io.ax.app.internal.timer.StreamThreads;
import io.ax.app.internal.timer.TimedPolls;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.internals.AsyncKafkaConsumer;
import org.apache.kafka.clients.consumer.internals.StreamsRebalanceData;
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
     * End offsets are asked through the wrapped consumer itself, not an admin client of its own, which blocks the poll for
     * a round trip (acceptable for measuring; ax's own consumer does not).
     */
    private TimedPolls polls;

    /**
     * Kafka Streams builds this class by reflection, so the scheduler's {@link StreamThreads} comes through the consumer
     * configuration ({@link StreamThreads#CONFIG}, set by the scheduler with the {@code main.consumer.} prefix).
     */
    @Override
    public void wrapConsumer(AsyncKafkaConsumer<byte[], byte[]> delegate, Map<String, Object> config,
                             Optional<StreamsRebalanceData> streamsRebalanceData) {
        super.wrapConsumer(delegate, config, streamsRebalanceData);
        if (!(config.get(StreamThreads.CONFIG) instanceof StreamThreads threads)) {
            throw new IllegalStateException(StreamThreads.CONFIG + " missing from the main consumer's configuration: "
                    + getClass().getSimpleName() + " runs only inside an ax scheduler");
        }
        polls = new TimedPolls(Time.SYSTEM, new EndOffsetProbe(
                partitions -> KafkaFuture.completedFuture(delegate.endOffsets(partitions, Duration.ofSeconds(5))), () -> { }, 10), 10,
                threads);
    }

    @Override
    public ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
        return polls.poll(timeout, delegate); // the scheduler's own poll, as TimerAwareConsumer calls it
    }
}
