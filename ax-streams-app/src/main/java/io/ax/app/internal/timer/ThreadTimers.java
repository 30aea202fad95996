package io.ax.app.internal.timer;

/**
 * What one stream thread's main consumer and the processors of its stream tasks share: the wake-ups the processors
 * publish for the consumer ({@link WakeUps}), and the consumer's view of how far the inputs are read, which the
 * processors' {@link InputWatermarks} read ({@link ConsumerView}). Used on that stream thread only; not thread-safe.
 * Found through {@link StreamThreads}.
 */
public final class ThreadTimers {
    private final WakeUps wakeUps = new WakeUps();
    private final ConsumerView view = new ConsumerView();

    public WakeUps wakeUps() {
        return wakeUps;
    }

    public ConsumerView view() {
        return view;
    }
}
