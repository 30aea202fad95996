package io.ax.app.internal.timer;

/**
 * Where a stream thread's main consumer and its processors find their {@link ThreadTimers}: one registry per scheduler
 * instance, handed to the client supplier (for the consumers) and to the topology's settings (for the processors),
 * keyed by the stream thread.
 *
 * <p>Why keyed by thread: Kafka Streams creates the main consumer of each stream thread through the client supplier,
 * on the thread that creates the stream thread, and the processors of that thread's tasks through the topology's
 * suppliers, on the stream thread, with nothing that ties the two together: the processors receive the application's
 * configuration (the same for every thread), not the consumer's. What they have in common is the thread that polls the
 * consumer and runs the processors, so each side looks the thread's object up on it: the consumer at its first poll,
 * a processor at its {@code init}. The registry belongs to the instance, not to the JVM, so two schedulers in one
 * process (tests, the demo) share nothing.
 */
public final class StreamThreads {
    /**
     * The key under which the scheduler hands its registry to a main consumer through the consumer's configuration
     * ({@code main.consumer.} prefix), for a consumer Kafka Streams builds by reflection and so cannot be given it
     * otherwise (the benchmark's streams-protocol consumer).
     */
    public static final String CONFIG = "ax.stream.threads";

    private final ThreadLocal<ThreadTimers> byThread = ThreadLocal.withInitial(ThreadTimers::new);

    /** The calling stream thread's timers. */
    public ThreadTimers current() {
        return byThread.get();
    }

    /** The calling stream thread is done with them (its consumer is closed). */
    public void release() {
        byThread.remove();
    }

    /** Positions read from the calling stream thread's consumer view, for processors running on it. */
    public ConsumerPositions positions() {
        return new ConsumerPositions() {
            @Override
            public Fetched fetched(String topic, int partition) {
                return current().view().fetched(topic, partition);
            }

            @Override
            public void watch(String topic, int partition) {
                current().view().watch(topic, partition);
            }

            @Override
            public void unwatch(String topic, int partition) {
                current().view().unwatch(topic, partition);
            }
        };
    }
}
