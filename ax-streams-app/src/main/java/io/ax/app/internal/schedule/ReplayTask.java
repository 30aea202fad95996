package io.ax.app.internal.schedule;

import io.ax.app.internal.store.Liveness;
import io.ax.app.internal.topology.SchedulerContext;
import io.ax.app.internal.wheel.TimerKind;
import io.ax.schema.ReplayRequest;
import io.ax.schema.SourceRecord;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;

/**
 * Runs a dead-lettered task again: a task whose last execution is FAILED (and that has nothing else ahead of it)
 * gets a new execution, due now, with a new executionId (the replay request's offset becomes the task's
 * incarnation), so a worker's idempotency guard treats it as new work. Anything else is answered IGNORED.
 */
public final class ReplayTask {
    private final SchedulerContext ctx;

    public ReplayTask(SchedulerContext ctx) {
        this.ctx = ctx;
    }

    public void process(String taskId, ReplayRequest request, SourceRecord source) {
        long nowMs = ctx.nowMs();
        StoredTask task = ctx.tasks().get(taskId);
        String refusal = refusal(task);
        if (refusal != null) {
            ctx.events().ignored(taskId, task, null, null, "replay: " + refusal, source, nowMs);
            return;
        }
        if (task.getPurgeAtMs() != null) {
            ctx.timers().unset(task.getPurgeAtMs(), taskId, TimerKind.PURGE);
        }
        StoredTask replayed = StoredTask.newBuilder(task)
                .setIncarnation(source.getOffset())
                .setNextDueAtMs(nowMs)
                .setCancelled(false)
                .setFinishedAtMs(null)
                .setPurgeAtMs(null)
                .build();
        ctx.tasks().save(replayed, nowMs);
        ctx.timers().set(nowMs, task.getRequest().getPriority(), taskId, TimerKind.OCCURRENCE);
        ctx.events().pending(replayed, ExecutionIds.of(taskId, source.getOffset(), nowMs), nowMs,
                "replay of failed execution " + task.getExecution().getExecutionId()
                        + (request.getReason() == null ? "" : ": " + request.getReason()), nowMs);
    }

    private static String refusal(StoredTask task) {
        if (task == null) {
            return "no such task";
        }
        if (Liveness.isLive(task)) {
            return "the task is still live; only a task that ended FAILED can be replayed";
        }
        if (task.getCancelled() || task.getExecution() == null || task.getExecution().getState() != TaskState.FAILED) {
            return "only a task that ended FAILED can be replayed; this one ended " + Liveness.endState(task);
        }
        return null;
    }
}
