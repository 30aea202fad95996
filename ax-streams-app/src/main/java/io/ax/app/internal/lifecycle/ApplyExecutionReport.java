package io.ax.app.internal.lifecycle;

import io.ax.app.internal.topology.SchedulerContext;
import io.ax.schema.ExecutionReport;
import io.ax.schema.ReportStatus;
import io.ax.schema.SourceRecord;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;

/**
 * Applies a worker's {@link ExecutionReport}: STARTED → RUNNING, SUCCEEDED → SUCCESS, FAILED → FAILED;
 * HEARTBEAT only refreshes the execution's last sign of life. Reports for an unknown task, another
 * execution, an old attempt or a finished execution are recorded as IGNORED and change nothing; a report
 * whose transition the table forbids is REJECTED.
 */
public final class ApplyExecutionReport {
    private final SchedulerContext ctx;

    public ApplyExecutionReport(SchedulerContext ctx) {
        this.ctx = ctx;
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
        StoredExecution execution = task.getExecution();
        if (report.getStatus() == ReportStatus.HEARTBEAT) {
            store(task, StoredExecution.newBuilder(execution).setLastSignMs(nowMs).build(), false, nowMs);
            return;
        }
        TaskState target = targetOf(report.getStatus());
        if (report.getStatus() == ReportStatus.STARTED && execution.getState() == TaskState.RUNNING) {
            ctx.events().ignored(taskId, task, report.getExecutionId(), report.getAttempt(),
                    "STARTED report ignored: execution is already RUNNING", source, nowMs);
            return;
        }
        if (!StateMachine.isLegal(execution.getState(), target)) {
            ctx.events().rejected(taskId, report.getStatus() + " report not allowed for an execution in state "
                    + execution.getState(), source, nowMs);
            return;
        }
        StoredExecution next = StoredExecution.newBuilder(execution)
                .setState(target)
                .setLastSignMs(nowMs)
                .setLastError(report.getStatus() == ReportStatus.FAILED ? report.getMessage() : execution.getLastError())
                .build();
        ctx.events().transition(task, next, execution.getState(), reasonOf(report), nowMs);
        store(task, next, StateMachine.isFinal(target), nowMs);
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

    private static String reasonOf(ExecutionReport report) {
        String worker = report.getWorkerId() == null ? null : "worker " + report.getWorkerId();
        if (report.getStatus() == ReportStatus.FAILED) {
            return (report.getRetryable() ? "retryable failure: " : "non-retryable failure: ")
                    + (report.getMessage() == null ? "no message" : report.getMessage()) + (worker == null ? "" : " (" + worker + ")");
        }
        return worker;
    }

    private void store(StoredTask task, StoredExecution execution, boolean executionEnded, long nowMs) {
        StoredTask.Builder updated = StoredTask.newBuilder(task).setExecution(execution);
        if (executionEnded && task.getNextDueAtMs() == null) {
            updated.setFinishedAtMs(nowMs);
        }
        ctx.tasks().put(task.getTaskId(), updated.build());
    }
}
