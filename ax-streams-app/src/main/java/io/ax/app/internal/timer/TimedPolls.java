package io.ax.app.internal.timer;

import java.time.Duration;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Time;

/**
 * What ax does around each poll of Kafka Streams' main consumer, whichever consumer class it is: the poll ends by the
 * earliest wake-up the processors of the polling stream thread published ({@link WakeUps}, found through
 * {@link StreamThreads}); once a timer's fire time has come, the end offsets of the inputs are asked after the poll
 * ({@link EndOffsetProbe}), and while the answer is on its way (at most {@code probeWaitMs}) the polls last a millisecond
 * at most and wait for it only while they have nothing else to hand over; after the poll the {@link ConsumerView} learns
 * what was handed over and which end offsets the position has reached. Runs on the stream thread only.
 */
public final class TimedPolls implements AutoCloseable {
    /** How long a poll lasts at most while a due timer waits for the end offsets asked. */
    static final Duration PROBE_SLICE = Duration.ofMillis(1);

    private final Time time;
    private EndOffsetProbe probe;
    private final long probeWaitMs;
    private final ClockSteps clockSteps;
    private final StreamThreads threads;
    /** The polling stream thread's, looked up at the first poll (the consumer is made on another thread). */
    private ThreadTimers thread;

    /**
     * @param probe   null: never ask end offsets (inputs count as read only from record timestamps)
     * @param threads where the polling stream thread's wake-ups and consumer view are found
     */
    public TimedPolls(Time time, EndOffsetProbe probe, long probeWaitMs, StreamThreads threads) {
        this(time, probe, probeWaitMs, null, threads);
    }

    /**
     * @param clockSteps checked before each poll, so a wall-clock step is reported at once even while Kafka Streams
     *                   punctuates nothing (after a backward step); null: not checked here
     */
    public TimedPolls(Time time, EndOffsetProbe probe, long probeWaitMs, ClockSteps clockSteps, StreamThreads threads) {
        this.time = time;
        this.threads = threads;
        this.probe = probe;
        this.probeWaitMs = probeWaitMs;
        this.clockSteps = clockSteps;
    }

    public ConsumerRecords<byte[], byte[]> poll(Duration timeout, Function<Duration, ConsumerRecords<byte[], byte[]>> poll,
                                                ToLongFunction<TopicPartition> positionOf) {
        if (thread == null) {
            thread = threads.current();
        }
        ConsumerView view = thread.view();
        WakeUps wakeUps = thread.wakeUps();
        if (clockSteps != null) {
            clockSteps.check();
        }
        long startMs = time.milliseconds();
        // The processors publish on this thread, between polls: the earliest fire time holds for the whole call.
        long fireAtMs = wakeUps.earliestFire();
        Duration pollFor = boundedBy(timeout, wakeUps.earliest(), startMs);
        if (probe != null && probe.inFlight() && fireAtMs <= startMs && startMs - probe.sentAtMs() < probeWaitMs) {
            // A timer waits for the answer on its way: come back for it within a millisecond, not at the next wake-up
            // (the poll cannot be woken by the admin client's answer); for at most probeWaitMs after the request.
            pollFor = pollFor.compareTo(PROBE_SLICE) < 0 ? pollFor : PROBE_SLICE;
        }
        ConsumerRecords<byte[], byte[]> records = poll.apply(pollFor);
        takeUp(records, view, positionOf);
        if (probe != null) {
            // A timer can fire now (its fire time has come, whether or not the poll ended for it, and whether or not
            // its punctuation has come): ask the end offsets now, so that the answer proves the inputs read up to a time
            // at or after its due time. Waiting for the punctuation's wake-up lost up to a tick each time a record
            // ended the poll before it (a start-up's first fire 40 ms late at 100 requests a second).
            long nowMs = time.milliseconds();
            boolean timersDue = fireAtMs <= nowMs;
            if (timersDue || !probe.everSent()) {
                // The first request goes as soon as there are inputs to watch, timers due or not: it opens the admin
                // client's connection and loads its code, which took seconds on a busy box when the first due timer
                // waited for it (a start-up fired seconds late); its answer is a proof like any other.
                probe.maybeSend(view.notPending(), nowMs);
            }
            // The punctuation that follows can fire them only with the answer: rather than leave it without, wait for
            // it while there is nothing else to hand over, a bounded while (a lost answer costs at most probeWaitMs).
            while (timersDue && records.isEmpty() && probe.inFlight() && time.milliseconds() - nowMs < probeWaitMs) {
                records = poll.apply(PROBE_SLICE);
                takeUp(records, view, positionOf);
            }
        }
        return records;
    }

    /**
     * After a poll: an answer to the end-offset request that has come is taken up, then the view learns what the poll
     * handed over and which answers the position has reached, in that order, so an answer the position already reached
     * is a proof at once and its partitions can be asked again by this same poll (a poll later cost every fire tens of
     * milliseconds under load).
     */
    private void takeUp(ConsumerRecords<byte[], byte[]> records, ConsumerView view, ToLongFunction<TopicPartition> positionOf) {
        if (probe != null) {
            probe.maybeCollect(view);
        }
        view.polled(records, positionOf);
    }

    /**
     * The poll of a consumer that wraps another ({@code delegate}): the same as {@link #poll(Duration, Function,
     * ToLongFunction)} with the delegate's poll and local positions. A consumer that extends the one it polls calls that
     * one with {@code super::poll} and {@link #localPosition} instead.
     */
    public ConsumerRecords<byte[], byte[]> poll(Duration timeout, Consumer<byte[], byte[]> delegate) {
        return poll(timeout, delegate::poll, partition -> localPosition(delegate, partition));
    }

    /** The position of {@code consumer} on {@code partition} when it knows it without a remote call; -1 otherwise. */
    public static long localPosition(Consumer<?, ?> consumer, TopicPartition partition) {
        try {
            return consumer.position(partition, Duration.ZERO);
        } catch (RuntimeException e) {
            return -1;
        }
    }

    /** {@code timeout}, cut short so the poll ends by {@code wakeAtMs} (never negative). */
    static Duration boundedBy(Duration timeout, long wakeAtMs, long nowMs) {
        long untilWakeMs = wakeAtMs - nowMs;
        return untilWakeMs < timeout.toMillis() ? Duration.ofMillis(Math.max(0, untilWakeMs)) : timeout;
    }

    @Override
    public void close() {
        if (thread != null && thread == threads.current()) {
            threads.release(); // closed on its stream thread, as Kafka Streams does: the thread is done
        }
        if (probe != null) {
            probe.close();
            probe = null;
        }
    }
}
