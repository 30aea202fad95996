package io.ax.app.internal.core;

import io.ax.InvalidRequestException;
import io.ax.schema.ExecutionReport;
import io.ax.schema.ReportStatus;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;
import io.ax.validation.Quote;
import io.ax.validation.ScheduleValidator;
import java.time.Instant;

/**
 * Applies a worker's {@link ExecutionReport}: STARTED → RUNNING, SUCCEEDED → SUCCESS, FAILED → RETRY_WAITING
 * or FAILED ({@link RetryOrDeadLetter}); HEARTBEAT refreshes the execution's last sign of life and may extend its
 * start-to-close deadline ({@link Deadlines}). Reports for
 * an unknown task, another execution, an old attempt or a finished execution are recorded as IGNORED and change
 * nothing; a report whose transition the table forbids is REJECTED.
 */
final class ApplyExecutionReport {
    private ApplyExecutionReport() {
    }

    /**
     * The rules of a report's fields ({@link Rules#requireValid(Input)}): an executionId, an attempt from 1, bounded worker id
     * and progress (the failure message is cut, not refused: see {@link #apply}).
     */
    static void requireValid(ExecutionReport report) {
        ScheduleValidator.requireId("executionId", report.getExecutionId());
        if (report.getAttempt() < 1) {
            throw new InvalidRequestException("attempt", "attempt must be >= 1: " + report.getAttempt());
        }
        ScheduleValidator.requireLength("workerId", report.getWorkerId(), ScheduleValidator.MAX_ID_CHARS);
        ScheduleValidator.requireLength("progress", report.getProgress(), ScheduleValidator.MAX_PROGRESS_CHARS);
    }

    static Decision decide(Step step, StoredTask task, Input.Report input) {
        ExecutionReport report = input.report();
        String staleReason = staleReason(task, report);
        if (staleReason != null) {
            step.ignored(EventCode.STALE_REPORT, task, report.getExecutionId(), report.getAttempt(),
                    report.getStatus() + " report ignored: " + staleReason, input.source());
            return step.unchanged();
        }
        StoredExecution execution = withReported(task.getExecution(), report);
        if (report.getStatus() == ReportStatus.HEARTBEAT) {
            return step.saveExecution(task, heartbeat(step, task, execution, report));
        }
        TaskState target = StateMachine.targetOf(report.getStatus());
        if (target == execution.getState()) {
            step.ignored(EventCode.STALE_REPORT, task, report.getExecutionId(), report.getAttempt(),
                    report.getStatus() + " report ignored: execution is already " + target, input.source());
            return step.unchanged();
        }
        if (!StateMachine.isLegal(execution.getState(), target)) {
            step.rejected(EventCode.NOT_ALLOWED, report.getStatus() + " report not allowed for an execution in state " + execution.getState(),
                    input.source());
            return step.unchanged();
        }
        return step.saveExecution(task, apply(step, task, execution, report, target));
    }

    private static StoredExecution apply(Step step, StoredTask task, StoredExecution execution, ExecutionReport report,
                                         TaskState target) {
        String worker = report.getWorkerId() == null ? null : "worker " + report.getWorkerId();
        if (report.getStatus() == ReportStatus.FAILED) {
            String message = report.getMessage() == null ? "no message"
                    : Quote.truncate(report.getMessage(), ScheduleValidator.MAX_MESSAGE_CHARS);
            return RetryOrDeadLetter.fail(step, task, execution, Failure.reported(execution.getState(), report.getRetryable(),
                    message, worker == null ? "" : " (" + worker + ")"));
        }
        StoredExecution next = Executions.copyOf(execution).setState(target).setLastSignMs(step.nowMs()).build();
        if (StateMachine.isFinal(target)) {
            next = Attempts.disarm(step, next);
        } else if (target == TaskState.RUNNING) {
            next = started(step, task, next);
            FlowControl.started(step, next);
        }
        step.transition(task, next, execution.getState(), worker);
        return next;
    }

    /**
     * STARTED: the start-to-close limit begins, and the heartbeat limit replaces the silence one. Their earliest deadline
     * may come before the armed timer (a long schedule-to-start, a short start-to-close): then the timer moves there
     * now; a later one is left to the lazy re-arm ({@link TimeOutSilentExecution}).
     */
    private static StoredExecution started(Step step, StoredTask task, StoredExecution running) {
        running.setStartedAtMs(step.nowMs());
        running.setDeadlineAtMs(Deadlines.onStart(task, step.nowMs()));
        long deadlineMs = Deadlines.next(step, task, running).atMs();
        Long armedMs = running.getTimeoutAtMs();
        if (armedMs == null || deadlineMs < armedMs) {
            if (armedMs != null) {
                step.unsetTimer(armedMs, TimerKind.TIMEOUT);
            }
            step.setTimer(deadlineMs, task.getRequest().getPriority(), TimerKind.TIMEOUT);
            running.setTimeoutAtMs(deadlineMs);
        }
        return running;
    }

    /**
     * HEARTBEAT: a sign of life; with {@code extendMs}, on a running attempt with a start-to-close limit, it may push
     * that deadline ({@link Deadlines#extended}), which ax.state tells as RUNNING → RUNNING with the new deadline.
     * Deadlines only move later here, so the armed timer is left to the lazy re-arm.
     */
    private static StoredExecution heartbeat(Step step, StoredTask task, StoredExecution execution, ExecutionReport report) {
        StoredExecution next = Executions.copyOf(execution).setLastSignMs(step.nowMs()).build();
        Long extendedMs = Deadlines.extended(task, execution, report.getExtendMs(), step.nowMs());
        if (extendedMs != null) {
            next.setDeadlineAtMs(extendedMs);
            boolean capped = extendedMs == Deadlines.capMs(task, execution);
            step.extended(task, next, "start-to-close deadline extended to " + Instant.ofEpochMilli(extendedMs)
                    + ": heartbeat asked extendMs " + report.getExtendMs()
                    + (capped ? " (capped at STARTED + " + Deadlines.MAX_RUNNING_FACTOR + " x startToCloseTimeoutMs)" : "")
                    + (report.getWorkerId() == null ? "" : " (worker " + report.getWorkerId() + ")"));
        }
        return next;
    }

    /**
     * The execution with what the report carries: its progress checkpoint (the next attempt gets it) and its workerId
     * (who holds the attempt now). Copied once, and only when either is new.
     */
    private static StoredExecution withReported(StoredExecution execution, ExecutionReport report) {
        boolean progress = report.getProgress() != null;
        boolean worker = report.getWorkerId() != null && !report.getWorkerId().equals(execution.getWorkerId());
        if (!progress && !worker) {
            return execution;
        }
        StoredExecution.Builder next = Executions.copyOf(execution);
        if (progress) {
            next.setProgress(report.getProgress());
        }
        if (worker) {
            next.setWorkerId(report.getWorkerId());
        }
        return next.build();
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
        if (!StateMachine.canTimeOut(execution.getState())) {
            return "attempt " + execution.getAttempt() + " already ended; the execution waits to retry";
        }
        return null;
    }
}
