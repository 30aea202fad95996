package io.ax.app.internal.lifecycle;

import io.ax.app.internal.metrics.FireLateness;
import io.ax.app.internal.schedule.Dispatches;
import io.ax.app.internal.topology.SchedulerContext;
import io.ax.app.internal.wheel.TimerKind;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;

/**
 * Starting and ending attempts: the dispatch of an attempt arms its timeout timer; an attempt that ends
 * (or waits for a retry) has its timers disarmed, so the timer index holds only what can still matter.
 */
public final class Attempts {
    private final SchedulerContext ctx;
    private final FireLateness fireLateness;

    public Attempts(SchedulerContext ctx, FireLateness fireLateness) {
        this.ctx = ctx;
        this.fireLateness = fireLateness;
    }

    /**
     * {@code from} → TRIGGERED: dispatches {@code execution}'s current attempt and arms its timeout, measured
     * from the dispatch (the first sign of life), or from the due time when the dispatch went out ahead of it
     * (the worker holds it until then).
     */
    public StoredExecution dispatch(StoredTask task, StoredExecution execution, TaskState from, String reason, long nowMs) {
        long dueAtMs = from == TaskState.RETRY_WAITING ? execution.getRetryAtMs() : execution.getDueAtMs();
        long signMs = Math.max(nowMs, dueAtMs);
        long timeoutAtMs = signMs + ctx.timeoutMs(task);
        StoredExecution triggered = StoredExecution.newBuilder(execution)
                .setState(TaskState.TRIGGERED)
                .setFiredAtMs(nowMs)
                .setLastSignMs(signMs)
                .setTimeoutAtMs(timeoutAtMs)
                .setRetryAtMs(null)
                .build();
        ctx.timers().set(timeoutAtMs, task.getRequest().getPriority(), task.getTaskId(), TimerKind.TIMEOUT);
        ctx.outputs().dispatch(Dispatches.run(task, triggered, dueAtMs, ctx.settings().defaultTimeoutMs(), nowMs), nowMs);
        fireLateness.record(dueAtMs, nowMs);
        ctx.events().transition(task, triggered, from, reason, nowMs);
        return triggered;
    }

    /** Unsets the execution's timeout and retry timers; returns it without them. */
    public StoredExecution disarm(String taskId, StoredExecution execution) {
        if (execution.getTimeoutAtMs() != null) {
            ctx.timers().unset(execution.getTimeoutAtMs(), taskId, TimerKind.TIMEOUT);
        }
        if (execution.getRetryAtMs() != null) {
            ctx.timers().unset(execution.getRetryAtMs(), taskId, TimerKind.RETRY);
        }
        return StoredExecution.newBuilder(execution).setTimeoutAtMs(null).setRetryAtMs(null).build();
    }
}
