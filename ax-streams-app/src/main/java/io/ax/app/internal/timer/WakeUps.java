package io.ax.app.internal.timer;

import java.util.HashMap;
import java.util.Map;

/**
 * When one stream thread must be awake next: each stream task's processor publishes the time its next timer can fire
 * and the punctuation that will fire it ({@link PartitionWakeUp}), and the thread's consumer ({@link TimedPolls}) polls
 * no longer than until the earliest punctuation, and asks the inputs' end offsets as soon as the earliest fire time has
 * come. So an idle scheduler blocks in {@code poll} for {@code poll.ms} (cheap), yet wakes exactly when a timer is due
 * (on time).
 *
 * <p>One per stream thread ({@link ThreadTimers}); both sides run on that thread (processors are initialised, fed and
 * punctuated on it, and it is the thread that polls), so it needs no locking. Not thread-safe. A task that moves to
 * another thread is closed here and re-initialised there.
 */
public final class WakeUps {
    private final Map<Object, long[]> published = new HashMap<>();

    /**
     * {@code owner} needs the thread awake at {@code wakeAtMs} ({@code Long.MAX_VALUE}: not at all), the punctuation that
     * fires its earliest timer, which can fire from {@code fireAtMs} on (at or before {@code wakeAtMs}).
     */
    public void set(Object owner, long wakeAtMs, long fireAtMs) {
        long[] times = published.computeIfAbsent(owner, any -> new long[2]);
        times[0] = wakeAtMs;
        times[1] = fireAtMs;
    }

    public void clear(Object owner) {
        published.remove(owner);
    }

    /** The earliest wake-up time published, or {@code Long.MAX_VALUE}. */
    public long earliest() {
        long earliest = Long.MAX_VALUE;
        for (long[] times : published.values()) {
            earliest = Math.min(earliest, times[0]);
        }
        return earliest;
    }

    /** The earliest time a published timer can fire, or {@code Long.MAX_VALUE}: from then on a timer waits. */
    public long earliestFire() {
        long earliest = Long.MAX_VALUE;
        for (long[] times : published.values()) {
            earliest = Math.min(earliest, times[1]);
        }
        return earliest;
    }
}
