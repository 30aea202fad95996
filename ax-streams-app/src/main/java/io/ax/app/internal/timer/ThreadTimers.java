package io.ax.app.internal.timer;

/**
 * What one stream thread's main consumer and the processors of its stream tasks share: the wake-ups the processors
 * publish for the consumer ({@link WakeUps}), and the consumer's view of how far the inputs are read, which the
 * processors' {@link InputWatermarks} read ({@link ConsumerView}), and when the processors last asked for a commit after
 * a fire ({@link #commitEarly}). Used on that stream thread only; not thread-safe. Found through {@link StreamThreads}.
 */
public final class ThreadTimers {
    /**
     * The least time between two commits that fires ask for ({@link #commitEarly}); Kafka Streams' own come every
     * {@code commit.interval.ms} besides (50 ms by default).
     */
    static final long EARLY_COMMIT_GAP_MS = 50;

    private final WakeUps wakeUps = new WakeUps();
    private final ConsumerView view = new ConsumerView();
    private long earlyCommitAtMs = Long.MIN_VALUE;

    /**
     * Whether a punctuation that fired at {@code nowMs} should ask Kafka Streams to commit at the end of this pass of the
     * thread rather than at the commit interval: a dispatch is visible to workers (read_committed) only once its
     * transaction commits. Yes when the thread is keeping up with its inputs ({@link ConsumerView#keepingUp}) and asked
     * for no commit in the last {@link #EARLY_COMMIT_GAP_MS}: so a lone fire is visible at once, while a steady stream of
     * fires adds at most one commit a gap to the interval's, and a thread that is behind spends no time on them.
     */
    public boolean commitEarly(long nowMs) {
        if (!view.keepingUp() || nowMs < earlyCommitAtMs + EARLY_COMMIT_GAP_MS) {
            return false;
        }
        earlyCommitAtMs = nowMs;
        return true;
    }

    public WakeUps wakeUps() {
        return wakeUps;
    }

    public ConsumerView view() {
        return view;
    }
}
