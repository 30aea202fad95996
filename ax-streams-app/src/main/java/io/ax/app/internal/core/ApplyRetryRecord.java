package io.ax.app.internal.core;

import io.ax.InvalidRequestException;
import io.ax.schema.RetryRecord;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;
import io.ax.validation.ScheduleValidator;

/**
 * Reads the RETRY_WAITING log back from {@code ax.retry} and arms the retry timer of the execution it names.
 * A record that no longer matches (the execution was cancelled or replaced meanwhile) is recorded as IGNORED.
 */
final class ApplyRetryRecord {
    private ApplyRetryRecord() {
    }

    /**
     * The rules of a retry record's fields ({@link Rules#requireValid(Input)}): the scheduler writes them, but anyone can write
     * to the topic: an executionId, an attempt from 2 to the most a task may make, a next attempt time in range.
     */
    static void requireValid(RetryRecord retry) {
        ScheduleValidator.requireId("executionId", retry.getExecutionId());
        if (retry.getAttempt() < 2 || retry.getAttempt() > ScheduleValidator.MAX_RETRIES + 1) {
            throw new InvalidRequestException("attempt", "a retry's attempt must be between 2 and " + (ScheduleValidator.MAX_RETRIES + 1)
                    + ": " + retry.getAttempt());
        }
        ScheduleValidator.requireInstant("nextAttemptAtMs", retry.getNextAttemptAtMs());
    }

    static Decision decide(Step step, StoredTask task, Input.RetryLogged input) {
        RetryRecord retry = input.retry();
        StoredExecution execution = task == null ? null : task.getExecution();
        if (execution == null || !execution.getExecutionId().equals(retry.getExecutionId())
                || execution.getState() != TaskState.RETRY_WAITING || execution.getAttempt() + 1 != retry.getAttempt()
                || execution.getRetryAtMs() != null) {
            step.ignored(EventCode.STALE_RETRY, task, retry.getExecutionId(), retry.getAttempt(),
                    "retry record ignored: the execution no longer waits for attempt " + retry.getAttempt()
                            + (execution == null ? "" : " (" + execution.getState() + ", attempt " + execution.getAttempt() + ")"),
                    input.source());
            return step.unchanged();
        }
        step.setTimer(retry.getNextAttemptAtMs(), task.getRequest().getPriority(), TimerKind.RETRY);
        return step.saveExecution(task, Executions.copyOf(execution).setRetryAtMs(retry.getNextAttemptAtMs()).build());
    }
}
