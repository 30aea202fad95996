package io.ax.app.internal.timer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** A stream thread's consumer and processors meet in its {@link ThreadTimers}; other threads and instances see their own. */
class StreamThreadsTest {
    private static final TopicPartition P = new TopicPartition("ax.requests", 0);

    @Test
    void shouldGiveTheProcessorsOfAThreadWhatItsConsumerRecorded() {
        StreamThreads threads = new StreamThreads();
        InputWatermarks inputs = new InputWatermarks(threads.positions(), 0, 1_000, "ax.requests"); // a processor's init
        ConsumerView consumerSide = threads.current().view(); // the consumer's first poll, on the same thread
        assertThat(consumerSide.watched()).containsExactly(P);
        consumerSide.probed(40_000, Map.of(P, 0L));
        consumerSide.polled(ConsumerRecords.empty(), partition -> 0L);
        assertThat(inputs.readUpToMs(0, 45_000)).isEqualTo(40_000);
        inputs.close();
        assertThat(consumerSide.watched()).isEmpty();
    }

    @Test
    void shouldKeepEachThreadsAndEachInstancesOwn() throws InterruptedException {
        StreamThreads threads = new StreamThreads();
        ThreadTimers mine = threads.current();
        assertThat(threads.current()).isSameAs(mine);
        AtomicReference<ThreadTimers> others = new AtomicReference<>();
        Thread other = new Thread(() -> others.set(threads.current()));
        other.start();
        other.join();
        assertThat(others.get()).isNotSameAs(mine);
        assertThat(new StreamThreads().current()).isNotSameAs(mine);
        threads.release();
        assertThat(threads.current()).as("after the consumer closed, a fresh one").isNotSameAs(mine);
    }
}
