package io.ax.app.internal.retry;

import io.ax.app.internal.lifecycle.Attempts;
import io.ax.app.internal.schedule.Dispatches;
import io.ax.app.internal.topology.SchedulerContext;
import io.ax.schema.AttemptError;
import io.ax.schema.DeadLetter;
import io.ax.schema.RetryRecord;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A failed attempt (a FAILED report, or a timeout) → RETRY_WAITING when it is retryable and attempts are
 * left: a {@link RetryRecord} goes to {@code ax.retry}, from which the scheduler times the next attempt.
 * Otherwise → FAILED, and the execution with its whole error history goes to {@code ax.dead-letter}.
 */
public final class RetryOrDeadLetter {
    /** Error history kept per execution; older entries are dropped first. */
    static final int MAX_ERRORS = 20;

    private final SchedulerContext ctx;
    private final Attempts attempts;

    public RetryOrDeadLetter(SchedulerContext ctx, Attempts attempts) {
        this.ctx = ctx;
        this.attempts = attempts;
    }

    /**
     * @param from      the state the failure is recorded from (TRIGGERED, RUNNING or TIMED_OUT)
     * @param retryable whether the failure allows another attempt
     * @param detail    appended to the state event's reason (e.g. which worker reported)
     * @return the execution in RETRY_WAITING or FAILED
     */
    public StoredExecution fail(StoredTask task, StoredExecution execution, TaskState from, boolean timedOut,
                                boolean retryable, String message, String detail, long nowMs) {
        StoredExecution failed = StoredExecution.newBuilder(attempts.disarm(task.getTaskId(), execution))
                .setLastError(message)
                .setErrors(withError(execution, new AttemptError(execution.getAttempt(), nowMs, timedOut, retryable, message)))
                .build();
        int maxRetries = task.getRequest().getMaxRetries();
        if (retryable && execution.getAttempt() <= maxRetries) {
            return retryLater(task, failed, from, message, detail, nowMs);
        }
        String reason = retryable
                ? "retries exhausted after " + execution.getAttempt() + " attempt(s): " + message
                : "non-retryable failure: " + message;
        StoredExecution dead = StoredExecution.newBuilder(failed).setState(TaskState.FAILED).build();
        ctx.events().transition(task, dead, from, reason + detail, nowMs);
        ctx.outputs().deadLetter(DeadLetter.newBuilder()
                .setDispatch(Dispatches.run(task, execution, ctx.settings().defaultTimeoutMs(), execution.getFiredAtMs()))
                .setErrors(dead.getErrors())
                .setReason(reason)
                .setFailedAtMs(nowMs)
                .setOwner(task.getRequest().getOwner())
                .build(), nowMs);
        return dead;
    }

    private StoredExecution retryLater(StoredTask task, StoredExecution failed, TaskState from, String message,
                                       String detail, long nowMs) {
        int retry = failed.getAttempt();
        long backoffMs = Backoff.delayMs(task.getRequest(), retry, failed.getExecutionId(),
                ctx.settings().defaultBackoffMs(), ctx.settings().maxBackoffMs());
        long nextAttemptAtMs = nowMs + backoffMs;
        StoredExecution waiting = StoredExecution.newBuilder(failed).setState(TaskState.RETRY_WAITING).build();
        ctx.events().transition(task, waiting, from, "retry " + retry + " of " + task.getRequest().getMaxRetries() + " at "
                + Instant.ofEpochMilli(nextAttemptAtMs) + " (backoff " + backoffMs + " ms): " + message + detail, nowMs);
        ctx.outputs().retry(task.getTaskId(), RetryRecord.newBuilder()
                .setExecutionId(failed.getExecutionId())
                .setAttempt(retry + 1)
                .setNextAttemptAtMs(nextAttemptAtMs)
                .setBackoffMs(backoffMs)
                .setLastError(message)
                .setJobType(task.getRequest().getJobType())
                .build(), nowMs);
        return waiting;
    }

    private static List<AttemptError> withError(StoredExecution execution, AttemptError error) {
        List<AttemptError> errors = new ArrayList<>(execution.getErrors());
        errors.add(error);
        return errors.size() > MAX_ERRORS ? new ArrayList<>(errors.subList(errors.size() - MAX_ERRORS, errors.size())) : errors;
    }
}
