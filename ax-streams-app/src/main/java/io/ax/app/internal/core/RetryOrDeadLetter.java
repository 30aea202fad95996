package io.ax.app.internal.core;

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
final class RetryOrDeadLetter {
    /** Error history kept per execution; older entries are dropped first. */
    static final int MAX_ERRORS = 20;

    private RetryOrDeadLetter() {
    }

    /** @return the execution in RETRY_WAITING or FAILED */
    static StoredExecution fail(Step step, StoredTask task, StoredExecution execution, Failure failure) {
        long nowMs = step.nowMs();
        StoredExecution failed = Executions.copyOf(Attempts.disarm(step, execution))
                .setLastError(failure.message())
                .setErrors(withError(execution, new AttemptError(execution.getAttempt(), nowMs, failure.timedOut(),
                        failure.retryable(), failure.message())))
                .build();
        if (failure.retryable() && execution.getAttempt() <= task.getRequest().getMaxRetries()) {
            return retryLater(step, task, failed, failure);
        }
        String reason = failure.retryable()
                ? "retries exhausted after " + execution.getAttempt() + " attempt(s): " + failure.message()
                : "non-retryable failure: " + failure.message();
        StoredExecution dead = Executions.copyOf(failed).setState(TaskState.FAILED).build();
        step.transition(task, dead, failure.from(), reason + failure.detail());
        step.deadLetter(DeadLetter.newBuilder()
                .setDispatch(Dispatches.run(task, execution, step.settings().defaultTimeoutMs(), execution.getFiredAtMs()))
                .setErrors(dead.getErrors())
                .setReason(reason)
                .setFailedAtMs(nowMs)
                .setOwner(task.getRequest().getOwner())
                .build());
        return dead;
    }

    private static StoredExecution retryLater(Step step, StoredTask task, StoredExecution failed, Failure failure) {
        int retry = failed.getAttempt();
        long backoffMs = Backoff.delayMs(task.getRequest(), retry, failed.getExecutionId(),
                step.settings().defaultBackoffMs(), step.settings().maxBackoffMs());
        long nextAttemptAtMs = step.nowMs() + backoffMs;
        StoredExecution waiting = Executions.copyOf(failed).setState(TaskState.RETRY_WAITING).build();
        step.transition(task, waiting, failure.from(), "retry " + retry + " of " + task.getRequest().getMaxRetries() + " at "
                + Instant.ofEpochMilli(nextAttemptAtMs) + " (backoff " + backoffMs + " ms): " + failure.message() + failure.detail());
        step.retry(RetryRecord.newBuilder()
                .setExecutionId(failed.getExecutionId())
                .setAttempt(retry + 1)
                .setNextAttemptAtMs(nextAttemptAtMs)
                .setBackoffMs(backoffMs)
                .setLastError(failure.message())
                .setJobType(task.getRequest().getJobType())
                .build());
        return waiting;
    }

    private static List<AttemptError> withError(StoredExecution execution, AttemptError error) {
        List<AttemptError> errors = new ArrayList<>(execution.getErrors());
        errors.add(error);
        return errors.size() > MAX_ERRORS ? new ArrayList<>(errors.subList(errors.size() - MAX_ERRORS, errors.size())) : errors;
    }
}
