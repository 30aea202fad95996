package io.ax.app.internal.core;

import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;
import java.util.List;

/**
 * Starting and ending attempts: the dispatch of an attempt arms its timeout timer; an attempt that ends
 * (or waits for a retry) has its timers disarmed, so the timer index holds only what can still matter.
 */
final class Attempts {
    private Attempts() {
    }

    /**
     * {@code from} → TRIGGERED: dispatches {@code execution}'s current attempt and arms its timeout (silence, or
     * schedule-to-start when the task sets it, see {@link Deadlines}), measured from the dispatch (the first sign of
     * life), or from the due time when the dispatch went out ahead of it (the worker holds it until then). One
     * execution: a new occurrence of a sharded task goes through {@link DispatchOccurrence}, which calls this per slice.
     */
    static StoredExecution dispatch(Step step, StoredTask task, StoredExecution execution, TaskState from, String reason) {
        List<String> gates = step.flowLimits().gatesFor(task.getRequest().getJobType(), task.getRequest().getOwner());
        if (!gates.isEmpty()) {
            // Gated (topology-docs/FLOW-CONTROL.md): held in its state until its gates grant it (ApplyGrant#grant).
            return FlowControl.hold(step, task, execution, from, gates, reason);
        }
        return trigger(step, task, execution, from, reason);
    }

    /** {@code from} → TRIGGERED without asking flow control: ungated, or granted. */
    static StoredExecution trigger(Step step, StoredTask task, StoredExecution execution, TaskState from, String reason) {
        long nowMs = step.nowMs();
        long dueAtMs = from == TaskState.RETRY_WAITING ? execution.getRetryAtMs() : execution.getDueAtMs();
        long signMs = Math.max(nowMs, dueAtMs);
        StoredExecution triggered = Executions.copyOf(execution)
                .setState(TaskState.TRIGGERED)
                .setFiredAtMs(nowMs)
                .setLastSignMs(signMs)
                .setRetryAtMs(null)
                .setWorkerId(null) // the new attempt's worker reports its own
                .setStartedAtMs(null)
                .setDeadlineAtMs(Deadlines.onDispatch(task, signMs))
                .build();
        long timeoutAtMs = Deadlines.next(step, task, triggered).atMs();
        triggered.setTimeoutAtMs(timeoutAtMs);
        step.setTimer(timeoutAtMs, task.getRequest().getPriority(), TimerKind.TIMEOUT);
        step.dispatch(Dispatches.run(task, triggered, dueAtMs, step.settings().defaultTimeoutMs(), nowMs));
        step.transition(task, triggered, from, reason);
        return triggered;
    }

    /**
     * Unsets the execution's timeout and retry timers and releases its flow-control slots (it leaves flight, or waits
     * for a retry); returns it without them.
     */
    static StoredExecution disarm(Step step, StoredExecution execution) {
        execution = FlowControl.release(step, execution);
        if (execution.getTimeoutAtMs() != null) {
            step.unsetTimer(execution.getTimeoutAtMs(), TimerKind.TIMEOUT);
        }
        if (execution.getRetryAtMs() != null) {
            step.unsetTimer(execution.getRetryAtMs(), TimerKind.RETRY);
        }
        return Executions.copyOf(execution).setTimeoutAtMs(null).setRetryAtMs(null).build();
    }
}
