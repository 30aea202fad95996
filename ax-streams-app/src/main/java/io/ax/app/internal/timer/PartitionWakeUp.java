package io.ax.app.internal.timer;

/**
 * One stream task's wake-up: tells the stream thread's consumer ({@link WakeUps}) when this partition's earliest timer
 * can fire and when it next needs a punctuation, the first punctuation time at or after that. The wall-clock
 * punctuation runs every tick from the last one, so with a tick of 10 ms, a punctuation at 1_000 and the earliest timer
 * firing at 1_023, the wake-up is 1_030; a timer already due (at or before 1_000) wakes the thread at the next one,
 * 1_010.
 *
 * <p>Published after each punctuation ({@link #punctuated}: a full scan of the wheel) and, after a record, only when a
 * timer the record set makes it earlier ({@link #maybeEarlier}: a removed timer at worst causes one idle punctuation,
 * which then recomputes it). Not thread-safe: the stream thread that owns the task calls it.
 */
public final class PartitionWakeUp {
    private final Timers timers;
    private final long tickMs;
    private final WakeUps wakeUps;
    private long lastPunctuationMs;
    private long publishedFireMs = Long.MAX_VALUE;

    /**
     * @param nowMs   the time punctuations are counted from until the first one (the schedule starts then)
     * @param wakeUps the stream thread's, read by its consumer
     */
    public PartitionWakeUp(Timers timers, long tickMs, long nowMs, WakeUps wakeUps) {
        this.timers = timers;
        this.tickMs = tickMs;
        this.wakeUps = wakeUps;
        this.lastPunctuationMs = nowMs;
    }

    /** The punctuation of {@code wallClockMs} has run: the next wake-up, from the wheel. */
    public void punctuated(long wallClockMs) {
        lastPunctuationMs = wallClockMs;
        publish();
    }

    /** Publishes the wake-up of the earliest timer of the wheel, and forgets the timers set since the last time. */
    public void publish() {
        publishAt(timers.nextFireMs());
        timers.forgetTimersSet();
    }

    /**
     * After a record: the wake-up moves earlier when a timer the record set fires before the earliest published (its
     * fire time, which the consumer asks end offsets by, even when its punctuation is the same).
     */
    public void maybeEarlier() {
        long setFireAtMs = timers.takeEarliestSetFireMs();
        if (setFireAtMs < publishedFireMs) {
            publishAt(setFireAtMs);
        }
    }

    /** The task is closed: it needs the thread awake no longer. */
    public void close() {
        wakeUps.clear(this);
    }

    private void publishAt(long fireAtMs) {
        publishedFireMs = fireAtMs;
        wakeUps.set(this, fireAtMs == Long.MAX_VALUE ? Long.MAX_VALUE : punctuationAtOrAfter(fireAtMs, lastPunctuationMs, tickMs), fireAtMs);
    }

    /** The first punctuation, of those every {@code tickMs} from {@code lastPunctuationMs}, after it and at or after {@code fireAtMs}. */
    public static long punctuationAtOrAfter(long fireAtMs, long lastPunctuationMs, long tickMs) {
        long ticks = fireAtMs <= lastPunctuationMs ? 1 : (fireAtMs - lastPunctuationMs + tickMs - 1) / tickMs;
        return lastPunctuationMs + ticks * tickMs;
    }
}
