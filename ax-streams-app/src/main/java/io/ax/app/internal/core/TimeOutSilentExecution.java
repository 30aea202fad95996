package io.ax.app.internal.core;

import io.ax.app.internal.timer.TimerKind;
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
final class TimeOutSilentExecution {
    private TimeOutSilentExecution() {
    }

    static Decision decide(Step step, StoredTask task, long dueAtMs) {
        StoredExecution execution = task.getExecution();
        if (execution == null || execution.getTimeoutAtMs() == null || execution.getTimeoutAtMs() != dueAtMs
                || !StateMachine.canTimeOut(execution.getState())) {
            return step.unchanged();
        }
        long timeoutMs = step.timeoutMs(task);
        long deadlineMs = execution.getLastSignMs() + timeoutMs;
        if (step.nowMs() < deadlineMs) {
            step.setTimer(deadlineMs, task.getRequest().getPriority(), TimerKind.TIMEOUT);
            return step.saveExecution(task, StoredExecution.newBuilder(execution).setTimeoutAtMs(deadlineMs).build());
        }
        String message = "timed out: no report or heartbeat for " + timeoutMs + " ms";
        StoredExecution timedOut = StoredExecution.newBuilder(execution).setState(TaskState.TIMED_OUT).setTimeoutAtMs(null).build();
        step.transition(task, timedOut, execution.getState(), message);
        step.dispatch(Dispatches.cancel(task, execution, step.settings().defaultTimeoutMs(), step.nowMs()));
        return step.saveExecution(task, RetryOrDeadLetter.fail(step, task, timedOut, Failure.timedOut(message)));
    }
}
