package io.ax.app.internal.workers;

/**
 * The worker registry's settings (topology-docs/CONFIG.md, {@code ax.workers.*}).
 *
 * @param maxWorkers       most workers the registry keeps; an announcement of a new one beyond it is refused
 * @param missedHeartbeats how many of its own heartbeats a worker may stay silent before it is declared dead
 * @param checkMs          how often the registry looks for silent workers (wall-clock punctuation)
 * @param deadRetentionMs  how long a dead worker stays listed before it is forgotten (its announcement tombstoned)
 */
public record WorkerRegistrySettings(int maxWorkers, int missedHeartbeats, long checkMs, long deadRetentionMs) {
    public static final WorkerRegistrySettings DEFAULTS = new WorkerRegistrySettings(1_000, 3, 1_000, 3_600_000);

    public WorkerRegistrySettings {
        if (maxWorkers < 1 || missedHeartbeats < 1 || checkMs < 1 || deadRetentionMs < 0) {
            throw new IllegalArgumentException("worker registry settings out of range: maxWorkers=" + maxWorkers
                    + " missedHeartbeats=" + missedHeartbeats + " checkMs=" + checkMs + " deadRetentionMs=" + deadRetentionMs);
        }
    }
}
