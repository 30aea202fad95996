package io.ax.app.internal.retry;

import io.ax.app.internal.topology.SchedulerContext;
import io.ax.app.internal.wheel.TimerKind;
import io.ax.schema.RetryRecord;
import io.ax.schema.SourceRecord;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;

/**
 * Reads the RETRY_WAITING log back from {@code ax.retry} and arms the retry timer of the execution it names.
 * A record that no longer matches (the execution was cancelled or replaced meanwhile) is recorded as IGNORED.
 */
public final class ApplyRetryRecord {
    private final SchedulerContext ctx;

    public ApplyRetryRecord(SchedulerContext ctx) {
        this.ctx = ctx;
    }

    public void process(String taskId, RetryRecord retry, SourceRecord source) {
        long nowMs = ctx.nowMs();
        StoredTask task = ctx.tasks().get(taskId);
        StoredExecution execution = task == null ? null : task.getExecution();
        if (execution == null || !execution.getExecutionId().equals(retry.getExecutionId())
                || execution.getState() != TaskState.RETRY_WAITING || execution.getAttempt() + 1 != retry.getAttempt()
                || execution.getRetryAtMs() != null) {
            ctx.events().ignored(taskId, task, retry.getExecutionId(), retry.getAttempt(),
                    "retry record ignored: the execution no longer waits for attempt " + retry.getAttempt()
                            + (execution == null ? "" : " (" + execution.getState() + ", attempt " + execution.getAttempt() + ")"),
                    source, nowMs);
            return;
        }
        ctx.timers().set(retry.getNextAttemptAtMs(), task.getRequest().getPriority(), taskId, TimerKind.RETRY);
        ctx.tasks().saveExecution(task,
                StoredExecution.newBuilder(execution).setRetryAtMs(retry.getNextAttemptAtMs()).build(), nowMs);
    }
}
