package io.ax.app.internal.workers;

/**
 * The registry's decisions, pure (no Kafka, no clock: {@code nowMs} is an argument), for the registry processor to apply.
 *
 * <p>A worker is declared dead when it has been silent for {@code missedHeartbeats} of its own announced heartbeat
 * intervals, counted from the later of its last announcement and the moment this registry started watching
 * ({@code watchingSinceMs}: when the partition was assigned). The second bound keeps a scheduler that was down, or just
 * took the partition over, from declaring the whole fleet dead before it has read the announcements sent meanwhile: it
 * decides late, never wrongly. A dead worker stays listed for {@code deadRetentionMs}, then is forgotten.
 */
public final class WorkerRules {
    /** What {@link #check} decided about one worker. */
    public enum Verdict { NONE, DEAD, FORGET }

    private final WorkerRegistrySettings settings;

    public WorkerRules(WorkerRegistrySettings settings) {
        this.settings = settings;
    }

    /** Whether to keep the announcement of a worker the registry does not know yet, with {@code known} workers kept. */
    public boolean admits(int known) {
        return known < settings.maxWorkers();
    }

    /** How long a worker announcing every {@code heartbeatMs} may stay silent before it is declared dead. */
    public long silenceAllowedMs(long heartbeatMs) {
        return settings.missedHeartbeats() * heartbeatMs;
    }

    /** The decision about one worker at {@code nowMs}. */
    public Verdict check(Liveness worker, long nowMs, long watchingSinceMs) {
        if (worker.dead()) {
            return nowMs - worker.deadAtMs() >= settings.deadRetentionMs() ? Verdict.FORGET : Verdict.NONE;
        }
        long silentSinceMs = Math.max(worker.lastSeenMs(), watchingSinceMs);
        return nowMs - silentSinceMs >= silenceAllowedMs(worker.heartbeatMs()) ? Verdict.DEAD : Verdict.NONE;
    }

    /** What the periodic check needs of a worker, kept in memory by the processor (the store holds the rest). */
    public record Liveness(long lastSeenMs, long heartbeatMs, boolean dead, long deadAtMs) {
        public static Liveness of(WorkerEntry entry) {
            return new Liveness(entry.lastSeenMs(), entry.announcement().heartbeatMs(), entry.dead(), entry.deadAtMs());
        }
    }
}
