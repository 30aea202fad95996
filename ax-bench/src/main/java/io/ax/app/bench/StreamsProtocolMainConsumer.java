package io.ax.app.bench;

import io.ax.app.internal.inputs.ConsumerView;
import io.ax.app.internal.timer.WakeUps;
import java.time.Duration;
import org.apache.kafka.clients.consumer.ConsumerRecords;
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
    private final Time time = Time.SYSTEM;

    @Override
    public ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
        long nowMs = time.milliseconds();
        long untilWakeMs = WakeUps.earliest() - nowMs;
        Duration bounded = untilWakeMs < timeout.toMillis() ? Duration.ofMillis(Math.max(0, untilWakeMs)) : timeout;
        ConsumerRecords<byte[], byte[]> records = delegate.poll(bounded);
        ConsumerView.polled(delegate.assignment(), records, delegate::currentLag, time.milliseconds());
        return records;
    }
}
