package io.ax.app.internal.core;

import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;

/**
 * TRIGGERED / RUNNING → TIMED_OUT → RETRY_WAITING or FAILED, when the first of the attempt's time limits
 * ({@link Deadlines}) passed: by default no report or heartbeat within the task's timeout, measured from the last sign
 * of life (dispatch, STARTED, HEARTBEAT); with the timeout kinds set, schedule-to-start, start-to-close or heartbeat.
 * The reason names the kind; so does the metric. A worker killed mid-handler therefore never leaves a task RUNNING
 * forever.
 *
 * <p>One TIMEOUT timer per attempt, at the earliest deadline, re-armed lazily: heartbeats (and extensions) only move
 * the deadline later; when the armed timer fires before the real deadline it is set again at the deadline (a STARTED
 * that brings the deadline earlier re-arms at once, {@code ApplyExecutionReport}). So a heartbeat costs one store write, not a
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
        Deadlines.Deadline deadline = Deadlines.next(step, task, execution);
        if (step.nowMs() < deadline.atMs()) {
            step.setTimer(deadline.atMs(), task.getRequest().getPriority(), TimerKind.TIMEOUT);
            return step.saveExecution(task, Executions.copyOf(execution).setTimeoutAtMs(deadline.atMs()).build());
        }
        String message = deadline.reason();
        StoredExecution timedOut = Executions.copyOf(execution).setState(TaskState.TIMED_OUT).setTimeoutAtMs(null).build();
        step.transition(task, timedOut, execution.getState(), message, deadline.kind());
        step.dispatch(Dispatches.cancel(task, execution, step.settings().defaultTimeoutMs(), step.nowMs()));
        return step.saveExecution(task, RetryOrDeadLetter.fail(step, task, timedOut, Failure.timedOut(message)));
    }
}
