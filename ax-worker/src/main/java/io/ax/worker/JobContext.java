package io.ax.worker;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * What a {@link JobHandler} knows about the attempt it runs, and how it talks back while it runs. The
 * attempt's fields never change; {@link #heartbeat()} and {@link #isCancelled()} may be called from any thread.
 */
public interface JobContext {
    /** The task's id, as given when it was scheduled. */
    String taskId();

    /** This firing of the task; retries keep it. The key for idempotency. */
    String executionId();

    /** 1 for the first attempt, +1 per retry. */
    int attempt();

    /** The job type that selected this handler. */
    String jobType();

    /** The payload as scheduled, or {@code null} if there was none. A fresh copy on each call. */
    byte[] payload();

    /** The payload decoded as UTF-8, or {@code null} if there was none. */
    String payloadAsString();

    /** When this attempt was due, by the scheduler's clock; the handler never starts before it by the worker's. */
    Instant dueAt();

    /** The task's owner (team, service), or {@code null}. */
    String owner();

    /** 0 (lowest) to 9 (highest). */
    int priority();

    /**
     * How long the scheduler waits for a sign of life while the handler runs before it times the attempt out: the
     * task's heartbeat timeout when it sets one, else its timeout.
     */
    Duration timeout();

    /**
     * Sharded tasks ({@code shards} N): which slice of the occurrence this execution is, 0 to {@link #shardCount()} - 1
     * (the dispatch's header {@code ax-shard} is {@code i/N}); 0 for a task that is not sharded. A handler splits its
     * work by it, e.g. the rows whose key hashes to this index modulo the count.
     */
    default int shardIndex() {
        return 0;
    }

    /** Sharded tasks: how many slices the occurrence has (its {@code shards}); 1 for a task that is not sharded. */
    default int shardCount() {
        return 1;
    }

    /**
     * Reports a sign of life now (a HEARTBEAT on the results topic). The worker already sends one every third of
     * {@link #timeout()} while the handler runs; call this to say more, e.g. after each chunk of a long job.
     */
    void heartbeat();

    /**
     * Reports a sign of life now and asks for more running time: for a task with a start-to-close timeout
     * ({@code startToCloseTimeoutMs}), the scheduler moves its deadline to now + {@code extend} when that is later.
     * It cuts {@code extend} to the start-to-close timeout and never lets the attempt run past its start + 10 times
     * that timeout; for a task without one this is a plain {@link #heartbeat()}. A context that cannot ask (one not
     * run by a worker) reports a plain heartbeat.
     *
     * @throws IllegalArgumentException when {@code extend} is not positive
     */
    default void heartbeat(Duration extend) {
        if (extend == null || extend.isNegative() || extend.isZero()) {
            throw new IllegalArgumentException("extend must be positive: " + extend);
        }
        heartbeat();
    }

    /**
     * Whether a cancel signal arrived for this execution. The worker also interrupts the handler's thread when one
     * arrives, so blocking calls end with {@link InterruptedException}; a handler that does not block should poll
     * this and stop early. A cancelled execution's result is recorded but no longer changes the task.
     */
    boolean isCancelled();

    /**
     * The progress checkpoint an earlier attempt of this execution saved with {@link #saveProgress}, so a retry
     * can resume where it stopped; empty on a first attempt or when nothing was saved.
     */
    Optional<String> lastProgress();

    /**
     * Saves a progress checkpoint (at most 4096 chars; e.g. the last processed offset or page): it goes to the
     * scheduler as a HEARTBEAT, and a later attempt of this execution reads it from {@link #lastProgress()}.
     *
     * @throws IllegalArgumentException when {@code progress} is null or longer than 4096 chars
     */
    void saveProgress(String progress);
}
