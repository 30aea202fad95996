package io.ax.app.internal.lifecycle;

import io.ax.app.internal.retry.RetryOrDeadLetter;
import io.ax.app.internal.schedule.Dispatches;
import io.ax.app.internal.topology.SchedulerContext;
import io.ax.app.internal.wheel.TimerKind;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;

/**
 * TRIGGERED / RUNNING → TIMED_OUT → RETRY_WAITING or FAILED, when no report or heartbeat came within the
 * task's timeout, measured from the last sign of life (dispatch, STARTED, HEARTBEAT). A worker killed mid-
 * handler therefore never leaves a task RUNNING forever.
 *
 * <p>The timeout timer is re-armed lazily: heartbeats only move {@code lastSignMs}; when the armed timer
 * fires before the real deadline it is set again at the deadline. So a heartbeat costs one store write, not a
 * timer-index delete and insert. The timed-out attempt also gets a CANCEL signal, in case a worker still runs
 * it; its later reports are stale and ignored.
 */
public final class TimeOutSilentExecution {
    private final SchedulerContext ctx;
    private final RetryOrDeadLetter retryOrDeadLetter;

    public TimeOutSilentExecution(SchedulerContext ctx, RetryOrDeadLetter retryOrDeadLetter) {
        this.ctx = ctx;
        this.retryOrDeadLetter = retryOrDeadLetter;
    }

    public void maybeTimeOut(StoredTask task, long dueAtMs, long nowMs) {
        StoredExecution execution = task.getExecution();
        if (execution == null || execution.getTimeoutAtMs() == null || execution.getTimeoutAtMs() != dueAtMs
                || (execution.getState() != TaskState.TRIGGERED && execution.getState() != TaskState.RUNNING)) {
            return;
        }
        long timeoutMs = ctx.timeoutMs(task);
        long deadlineMs = execution.getLastSignMs() + timeoutMs;
        if (nowMs < deadlineMs) {
            ctx.timers().set(deadlineMs, task.getRequest().getPriority(), task.getTaskId(), TimerKind.TIMEOUT);
            store(task, StoredExecution.newBuilder(execution).setTimeoutAtMs(deadlineMs).build(), nowMs);
            return;
        }
        String message = "timed out: no report or heartbeat for " + timeoutMs + " ms";
        StoredExecution timedOut = StoredExecution.newBuilder(execution).setState(TaskState.TIMED_OUT).setTimeoutAtMs(null).build();
        ctx.events().transition(task, timedOut, execution.getState(), message, nowMs);
        ctx.outputs().dispatch(Dispatches.cancel(task, execution, ctx.settings().defaultTimeoutMs(), nowMs), nowMs);
        store(task, retryOrDeadLetter.fail(task, timedOut, TaskState.TIMED_OUT, true, true, message, "", nowMs), nowMs);
    }

    private void store(StoredTask task, StoredExecution execution, long nowMs) {
        ctx.tasks().saveExecution(task, execution, nowMs);
    }
}
