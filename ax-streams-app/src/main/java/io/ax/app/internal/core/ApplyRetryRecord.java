package io.ax.app.internal.core;

import io.ax.app.internal.timer.TimerKind;
import io.ax.schema.RetryRecord;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;

/**
 * Reads the RETRY_WAITING log back from {@code ax.retry} and arms the retry timer of the execution it names.
 * A record that no longer matches (the execution was cancelled or replaced meanwhile) is recorded as IGNORED.
 */
final class ApplyRetryRecord {
    private ApplyRetryRecord() {
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
        return step.saveExecution(task, StoredExecution.newBuilder(execution).setRetryAtMs(retry.getNextAttemptAtMs()).build());
    }
}
