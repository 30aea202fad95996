package io.ax.worker;

/**
 * Runs one attempt of a task of one job type. Registered with {@link AxWorker.Builder#handler}.
 *
 * <p>Called on one of the worker's handler threads, never before the attempt's due time. Return
 * {@link Result#success()}, {@link Result#retryable(String)} or {@link Result#fatal(String)}; throwing an
 * exception counts as a retryable failure whose message is the exception's class and message. Delivery is
 * at-least-once, so make effects idempotent per {@link JobContext#executionId()}.
 */
@FunctionalInterface
public interface JobHandler {
    /** Runs the attempt described by {@code context}. Must not return null. */
    Result handle(JobContext context) throws Exception;
}
