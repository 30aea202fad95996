package io.ax.app.internal.core;

import io.ax.schema.TaskState;

/**
 * Why an attempt failed, as {@link RetryOrDeadLetter} needs it.
 *
 * @param from      the state the failure is recorded from (TRIGGERED, RUNNING or TIMED_OUT)
 * @param timedOut  no report came in time (rather than a FAILED report)
 * @param retryable whether another attempt may succeed
 * @param message   the worker's message, or the timeout's description
 * @param detail    appended to the state event's reason (e.g. which worker reported)
 */
record Failure(TaskState from, boolean timedOut, boolean retryable, String message, String detail) {
    static Failure reported(TaskState from, boolean retryable, String message, String detail) {
        return new Failure(from, false, retryable, message, detail);
    }

    static Failure timedOut(String message) {
        return new Failure(TaskState.TIMED_OUT, true, true, message, "");
    }
}
