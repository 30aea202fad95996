package io.ax.app.internal.timer;

import java.util.HashMap;
import java.util.Map;

/**
 * When one stream thread must be awake next: each stream task's processor publishes the time its next timer can fire
 * ({@link PartitionWakeUp}), and the thread's consumer ({@link TimedPolls}) polls no longer than until the earliest of
 * them. So an idle scheduler blocks in {@code poll} for {@code poll.ms} (cheap), yet wakes exactly when a timer is due
 * (on time).
 *
 * <p>One per stream thread ({@link ThreadTimers}); both sides run on that thread (processors are initialised, fed and
 * punctuated on it, and it is the thread that polls), so it needs no locking. Not thread-safe. A task that moves to
 * another thread is closed here and re-initialised there.
 */
public final class WakeUps {
    private final Map<Object, Long> wakeAtMs = new HashMap<>();

    /** {@code owner} needs the thread awake at {@code wakeAtMs} ({@code Long.MAX_VALUE}: not at all). */
    public void set(Object owner, long wakeAtMs) {
        this.wakeAtMs.put(owner, wakeAtMs);
    }

    public void clear(Object owner) {
        wakeAtMs.remove(owner);
    }

    /** The earliest wake-up time published, or {@code Long.MAX_VALUE}. */
    public long earliest() {
        long earliest = Long.MAX_VALUE;
        for (long atMs : wakeAtMs.values()) {
            earliest = Math.min(earliest, atMs);
        }
        return earliest;
    }
}
