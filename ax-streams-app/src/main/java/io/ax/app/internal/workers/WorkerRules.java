package io.ax.app.internal.workers;

import io.ax.codec.WorkerAnnouncement;
import io.ax.validation.Quote;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * The registry's decisions, pure (no Kafka, no clock: {@code nowMs} is an argument): {@link #decide} takes a record of
 * the workers topic (an announcement, or a worker's goodbye), {@link #checkAll} the periodic check, {@link #load} what
 * the store holds when the partition is assigned. Shaped like the
 * core's {@code GateRules}: they read what the registry holds through {@link Reads} and hand every effect to
 * {@link Effects} at once; {@code topology.WorkerRegistryProcessor} only reads its store and memory, calls them and
 * applies the effects (the store, the lines on {@code ax.state}, the tombstones on the workers topic, the metrics, the
 * log).
 *
 * <p>An announcement is checked before anything is kept ({@link WorkerAnnouncement#parse}: key, bounds, JSON rules); a
 * bad one, or a new worker beyond {@code ax.workers.max}, is refused with its reason and changes nothing. A dead
 * worker that announces again is ALIVE again; a tombstone (the SDK's goodbye on a graceful close) removes a known
 * worker with a LEFT line.
 *
 * <p>A worker is declared dead when it has been silent for {@code missedHeartbeats} of its own announced heartbeat
 * intervals, counted from the later of its last announcement and the moment this registry started watching
 * ({@code watchingSinceMs}: when the partition was assigned). The second bound keeps a scheduler that was down, or just
 * took the partition over, from declaring the whole fleet dead before it has read the announcements sent meanwhile: it
 * decides late, never wrongly. The silence is counted on the clock only as far as the workers topic is proven read
 * ({@code readUpToMs}, DECISIONS.md "Decisions follow the log"): a registry behind its input, on a scheduler behind a
 * backlog, may not have read the announcement a live worker sent in time, and waits for it instead of declaring it dead.
 * {@link #earliestDeathMs} says when the next worker could be declared, so the processor can have that proof asked for
 * then. A dead worker stays listed for {@code deadRetentionMs}, then is forgotten.
 */
public final class WorkerRules {
    /** What {@link #check} decided about one worker. */
    public enum Verdict { NONE, DEAD, FORGET }

    /** What the rules read of the registry. */
    public interface Reads {
        /** What the check needs of {@code workerId}, or null when the registry does not list it. */
        Liveness liveness(String workerId);

        /** Every worker listed, by id (a view the rules do not change while they read it). */
        Map<String, Liveness> listed();

        /** The stored entry of {@code workerId}, or null. */
        WorkerEntry entry(String workerId);
    }

    /** What the registry's store holds, as written: read once, when the partition is assigned. */
    public interface Stored {
        /** Hands each stored entry, its worker's id and its bytes, to {@code each}. */
        void forEach(BiConsumer<String, byte[]> each);
    }

    /** Where the rules' effects go; each is applied when handed over (a later read sees it). */
    public interface Effects {
        /** {@code entry}, as the store holds it, is listed (no store write). */
        void list(WorkerEntry entry);

        /** {@code entry} is now its worker's: stored, and listed. */
        void put(WorkerEntry entry);

        /** {@code workerId} is no longer stored nor listed. */
        void delete(String workerId);

        /** {@code workerId} is listed but no longer stored: it is no longer listed (no store write). */
        void unlist(String workerId);

        /** A line about {@code workerId} on {@code ax.state} ({@link WorkerEvents}). */
        void stateLine(String workerId, byte[] line);

        /**
         * {@code workerId}'s announcement is tombstoned on the workers topic, so a registry that reads the topic from its
         * start (a reset application) does not list it again.
         */
        void tombstoneAnnouncement(String workerId);

        /** The record of {@code workerId} is refused, changing nothing: counted and logged with its coordinates. */
        void refuse(String workerId, String reason);

        /** {@code entry}'s worker was declared dead, {@code reason} why: counted ({@code ax_workers_dead_total}) and logged. */
        void declaredDead(WorkerEntry entry, String reason);

        /** The number of workers alive or dead changed. */
        void countsChanged();

        /** Something the operator is told (the log, INFO). */
        void note(String message);

        /** Something the operator should look at (the log, WARN). */
        void warn(String message);
    }

    private final WorkerRegistrySettings settings;

    public WorkerRules(WorkerRegistrySettings settings) {
        this.settings = settings;
    }

    /**
     * The decision on a record of the workers topic read at {@code nowMs}: {@code value} an announcement of
     * {@code workerId} (the record's key), or null for its goodbye.
     */
    public void decide(String workerId, byte[] value, long nowMs, Reads reads, Effects effects) {
        if (value == null) {
            maybeSayGoodbye(workerId, nowMs, reads, effects);
            return;
        }
        WorkerAnnouncement announcement;
        try {
            announcement = WorkerAnnouncement.parse(workerId, value);
        } catch (RuntimeException e) {
            effects.refuse(workerId, String.valueOf(e.getMessage()));
            return;
        }
        Liveness known = reads.liveness(workerId);
        if (known == null && !admits(reads.listed().size())) {
            effects.refuse(workerId, "the registry holds ax.workers.max (" + settings.maxWorkers() + ") workers already");
            return;
        }
        if (known != null && known.dead()) {
            effects.stateLine(workerId, WorkerEvents.alive(announcement, nowMs, "announced again after it was declared dead at "
                    + Instant.ofEpochMilli(known.deadAtMs())));
            effects.note("Worker " + Quote.of(workerId) + " announced again after it was declared dead");
        }
        effects.put(WorkerEntry.alive(announcement, nowMs));
        if (known == null) {
            effects.note("Worker " + Quote.of(workerId) + " joined (heartbeat " + announcement.heartbeatMs() + " ms, job types "
                    + announcement.jobTypes() + ")");
        }
        if (known == null || known.dead()) { // the counts change only then: an announcement costs no count otherwise
            effects.countsChanged();
        }
    }

    /**
     * The periodic check at {@code nowMs}, the registry watching since {@code watchingSinceMs}, the workers topic proven
     * read up to {@code readUpToMs} (every announcement acknowledged before it has been processed): the workers silent too
     * long up to {@code min(nowMs, readUpToMs)} are declared dead (a DEAD line naming their executions in flight), those
     * dead longer than the retention are forgotten (their announcements tombstoned).
     */
    public void checkAll(long nowMs, long watchingSinceMs, long readUpToMs, Reads reads, Effects effects) {
        List<String> dead = new ArrayList<>();
        List<String> forgotten = new ArrayList<>();
        reads.listed().forEach((workerId, worker) -> {
            switch (check(worker, nowMs, watchingSinceMs, readUpToMs)) {
                case DEAD -> dead.add(workerId);
                case FORGET -> forgotten.add(workerId);
                default -> { }
            }
        });
        dead.forEach(workerId -> declareDead(workerId, nowMs, watchingSinceMs, reads, effects));
        for (String workerId : forgotten) {
            effects.delete(workerId);
            effects.tombstoneAnnouncement(workerId);
        }
        if (!dead.isEmpty() || !forgotten.isEmpty()) {
            effects.countsChanged();
        }
    }

    /**
     * The registry as its store holds it when the partition is assigned (and when Kafka Streams initialises the same
     * processor again after a standby spell; the processor's listing starts empty each time): each entry that reads is
     * listed as it is; one that does not (written by another version) is forgotten, deleted with a warning, and its
     * worker listed again at its next announcement. Then the counts are published.
     */
    public void load(Stored stored, Effects effects) {
        stored.forEach((workerId, value) -> {
            WorkerEntry entry;
            try {
                entry = WorkerEntry.decode(workerId, value);
            } catch (RuntimeException e) {
                effects.warn("Worker " + Quote.of(workerId) + " in the registry store cannot be read and is forgotten: "
                        + Quote.truncate(String.valueOf(e.getMessage()), 300));
                effects.delete(workerId);
                return;
            }
            effects.list(entry);
        });
        effects.countsChanged();
    }

    /** Whether to keep the announcement of a worker the registry does not know yet, with {@code known} workers kept. */
    public boolean admits(int known) {
        return known < settings.maxWorkers();
    }

    /** How long a worker announcing every {@code heartbeatMs} may stay silent before it is declared dead. */
    public long silenceAllowedMs(long heartbeatMs) {
        return settings.missedHeartbeats() * heartbeatMs;
    }

    /**
     * The decision about one worker at {@code nowMs}, the workers topic proven read up to {@code readUpToMs}: dead once
     * silent for its allowance up to {@code min(nowMs, readUpToMs)}, so never on the strength of announcements not read yet.
     */
    public Verdict check(Liveness worker, long nowMs, long watchingSinceMs, long readUpToMs) {
        if (worker.dead()) {
            return nowMs - worker.deadAtMs() >= settings.deadRetentionMs() ? Verdict.FORGET : Verdict.NONE;
        }
        return Math.min(nowMs, readUpToMs) >= deathMs(worker, watchingSinceMs) ? Verdict.DEAD : Verdict.NONE;
    }

    /**
     * The earliest time, read up to which the workers topic, a listed worker alive now would be declared dead if nothing
     * more is heard of it; {@code Long.MAX_VALUE} when none is alive. Only announcements make it later.
     */
    public long earliestDeathMs(Map<String, Liveness> listed, long watchingSinceMs) {
        long earliest = Long.MAX_VALUE;
        for (Liveness worker : listed.values()) {
            if (!worker.dead()) {
                earliest = Math.min(earliest, deathMs(worker, watchingSinceMs));
            }
        }
        return earliest;
    }

    private long deathMs(Liveness worker, long watchingSinceMs) {
        long silentSinceMs = Math.max(worker.lastSeenMs(), watchingSinceMs);
        long allowedMs = silenceAllowedMs(worker.heartbeatMs());
        return silentSinceMs > Long.MAX_VALUE - allowedMs ? Long.MAX_VALUE : silentSinceMs + allowedMs;
    }

    private static void maybeSayGoodbye(String workerId, long nowMs, Reads reads, Effects effects) {
        if (workerId == null || reads.liveness(workerId) == null) {
            return; // nothing known, or the tombstone this registry wrote when it forgot a dead worker
        }
        WorkerEntry stored = reads.entry(workerId);
        effects.delete(workerId);
        effects.countsChanged();
        if (stored != null) {
            effects.stateLine(workerId, WorkerEvents.left(stored, nowMs));
        }
        effects.note("Worker " + Quote.of(workerId) + " left (goodbye)");
    }

    private void declareDead(String workerId, long nowMs, long watchingSinceMs, Reads reads, Effects effects) {
        WorkerEntry entry = reads.entry(workerId);
        if (entry == null) {
            effects.unlist(workerId);
            return;
        }
        long silentMs = nowMs - Math.max(entry.lastSeenMs(), watchingSinceMs);
        String reason = "silent for " + silentMs + " ms (" + settings.missedHeartbeats() + " heartbeats of "
                + entry.announcement().heartbeatMs() + " ms); " + entry.announcement().inFlightCount() + " execution(s) in flight";
        effects.put(entry.markedDead(nowMs));
        effects.stateLine(workerId, WorkerEvents.dead(entry, nowMs, reason));
        effects.declaredDead(entry, reason);
    }

    /** What the periodic check needs of a worker, kept in memory by the processor (the store holds the rest). */
    public record Liveness(long lastSeenMs, long heartbeatMs, boolean dead, long deadAtMs) {
        public static Liveness of(WorkerEntry entry) {
            return new Liveness(entry.lastSeenMs(), entry.announcement().heartbeatMs(), entry.dead(), entry.deadAtMs());
        }
    }
}
