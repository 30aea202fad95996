package io.ax.app.internal.lifecycle;

import io.ax.app.internal.retry.RetryOrDeadLetter;
import io.ax.app.internal.topology.SchedulerContext;
import io.ax.schema.ExecutionReport;
import io.ax.schema.ReportStatus;
import io.ax.schema.SourceRecord;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;
import io.ax.validation.Quote;
import io.ax.validation.ScheduleValidator;

/**
 * Applies a worker's {@link ExecutionReport}: STARTED → RUNNING, SUCCEEDED → SUCCESS, FAILED → RETRY_WAITING
 * or FAILED ({@link RetryOrDeadLetter}); HEARTBEAT only refreshes the execution's last sign of life. Reports for an unknown task, another
 * execution, an old attempt or a finished execution are recorded as IGNORED and change nothing; a report
 * whose transition the table forbids is REJECTED.
 */
public final class ApplyExecutionReport {
    private final SchedulerContext ctx;
    private final Attempts attempts;
    private final RetryOrDeadLetter retryOrDeadLetter;

    public ApplyExecutionReport(SchedulerContext ctx, Attempts attempts, RetryOrDeadLetter retryOrDeadLetter) {
        this.ctx = ctx;
        this.attempts = attempts;
        this.retryOrDeadLetter = retryOrDeadLetter;
    }

    public void process(String taskId, ExecutionReport report, SourceRecord source) {
        long nowMs = ctx.nowMs();
        StoredTask task = ctx.tasks().get(taskId);
        String staleReason = staleReason(task, report);
        if (staleReason != null) {
            ctx.events().ignored(taskId, task, report.getExecutionId(), report.getAttempt(),
                    report.getStatus() + " report ignored: " + staleReason, source, nowMs);
            return;
        }
        StoredExecution execution = withProgress(task.getExecution(), report);
        if (report.getStatus() == ReportStatus.HEARTBEAT) {
            store(task, StoredExecution.newBuilder(execution).setLastSignMs(nowMs).build(), nowMs);
            return;
        }
        if (report.getStatus() == ReportStatus.STARTED && execution.getState() == TaskState.RUNNING) {
            ctx.events().ignored(taskId, task, report.getExecutionId(), report.getAttempt(),
                    "STARTED report ignored: execution is already RUNNING", source, nowMs);
            return;
        }
        TaskState target = targetOf(report.getStatus());
        if (!StateMachine.isLegal(execution.getState(), target)) {
            ctx.events().rejected(taskId, report.getStatus() + " report not allowed for an execution in state "
                    + execution.getState(), source, nowMs);
            return;
        }
        store(task, apply(task, execution, report, target, nowMs), nowMs);
    }

    private StoredExecution apply(StoredTask task, StoredExecution execution, ExecutionReport report, TaskState target,
                                  long nowMs) {
        String worker = report.getWorkerId() == null ? null : "worker " + report.getWorkerId();
        if (report.getStatus() == ReportStatus.FAILED) {
            String message = report.getMessage() == null ? "no message"
                    : Quote.truncate(report.getMessage(), ScheduleValidator.MAX_MESSAGE_CHARS);
            return retryOrDeadLetter.fail(task, execution, execution.getState(), false, report.getRetryable(), message,
                    worker == null ? "" : " (" + worker + ")", nowMs);
        }
        StoredExecution next = StoredExecution.newBuilder(execution).setState(target).setLastSignMs(nowMs).build();
        if (target == TaskState.SUCCESS) {
            next = attempts.disarm(task.getTaskId(), next);
        }
        ctx.events().transition(task, next, execution.getState(), worker, nowMs);
        return next;
    }

    /** The execution with the report's progress checkpoint, if it carries one: the next attempt gets it. */
    private static StoredExecution withProgress(StoredExecution execution, ExecutionReport report) {
        if (report.getProgress() == null) {
            return execution;
        }
        return StoredExecution.newBuilder(execution).setProgress(report.getProgress()).build();
    }

    /** Why the report concerns nothing current, or null when it applies to the current execution. */
    private static String staleReason(StoredTask task, ExecutionReport report) {
        if (task == null) {
            return "no such task";
        }
        StoredExecution execution = task.getExecution();
        if (execution == null || !execution.getExecutionId().equals(report.getExecutionId())) {
            return "not the task's current execution"
                    + (execution == null ? " (nothing fired yet)" : " (" + execution.getExecutionId() + ")");
        }
        if (report.getAttempt() != execution.getAttempt()) {
            return "stale attempt " + report.getAttempt() + " (current attempt " + execution.getAttempt() + ")";
        }
        if (StateMachine.isFinal(execution.getState())) {
            return "execution already " + execution.getState();
        }
        if (execution.getState() == TaskState.RETRY_WAITING) {
            return "attempt " + execution.getAttempt() + " already ended; the execution waits to retry";
        }
        return null;
    }

    private static TaskState targetOf(ReportStatus status) {
        switch (status) {
            case STARTED:
                return TaskState.RUNNING;
            case SUCCEEDED:
                return TaskState.SUCCESS;
            default:
                return TaskState.FAILED;
        }
    }

    private void store(StoredTask task, StoredExecution execution, long nowMs) {
        ctx.tasks().saveExecution(task, execution, nowMs);
    }
}
