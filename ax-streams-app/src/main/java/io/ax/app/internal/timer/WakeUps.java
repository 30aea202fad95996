package io.ax.app.internal.timer;

import java.util.HashMap;
import java.util.Map;

/**
 * When the stream thread must be awake next: each stream task's processor publishes the time its next timer
 * can fire, and the thread's consumer ({@link TimerAwareConsumer}) polls no longer than until the earliest of
 * them. So an idle scheduler blocks in {@code poll} for {@code poll.ms} (cheap), yet wakes exactly when a timer
 * is due (on time).
 *
 * <p>Both sides run on the same stream thread (processors are initialised, fed and punctuated on it, and it is
 * the thread that polls), so the registry is thread-local and needs no locking. A task that moves to another
 * thread is closed here and re-initialised there.
 */
public final class WakeUps {
    private static final ThreadLocal<Map<Object, Long>> WAKE_AT = ThreadLocal.withInitial(HashMap::new);

    private WakeUps() {
    }

    /** {@code owner} needs the thread awake at {@code wakeAtMs} ({@code Long.MAX_VALUE}: not at all). */
    public static void set(Object owner, long wakeAtMs) {
        WAKE_AT.get().put(owner, wakeAtMs);
    }

    public static void clear(Object owner) {
        WAKE_AT.get().remove(owner);
    }

    /** The earliest wake-up time published on this thread, or {@code Long.MAX_VALUE}. */
    public static long earliest() {
        long earliest = Long.MAX_VALUE;
        for (long wakeAtMs : WAKE_AT.get().values()) {
            earliest = Math.min(earliest, wakeAtMs);
        }
        return earliest;
    }
}
