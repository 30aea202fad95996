package io.ax.app.internal.core;

import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;

/**
 * Runs a dead-lettered task again: a task whose last execution is FAILED (and that has nothing else ahead of it)
 * gets a new execution, due now, with a new executionId (the replay request's offset becomes the task's
 * incarnation), so a worker's idempotency guard treats it as new work. Anything else is answered IGNORED.
 */
final class ReplayTask {
    private ReplayTask() {
    }

    static Decision decide(Step step, StoredTask task, Input.Replay input) {
        String refusal = refusal(task);
        if (refusal != null) {
            step.ignored(EventCode.REFUSED, task, null, null, "replay: " + refusal, input.source());
            return step.unchanged();
        }
        long nowMs = step.nowMs();
        long incarnation = input.source().getOffset();
        if (task.getPurgeAtMs() != null) {
            step.unsetTimer(task.getPurgeAtMs(), TimerKind.PURGE);
        }
        StoredTask replayed = StoredTask.newBuilder(task)
                .setIncarnation(incarnation)
                .setNextDueAtMs(nowMs)
                .setCancelled(false)
                .setFinishedAtMs(null)
                .setPurgeAtMs(null)
                .build();
        step.setTimer(nowMs, task.getRequest().getPriority(), TimerKind.OCCURRENCE);
        String reason = input.request().getReason();
        step.pending(replayed, ExecutionIds.of(input.taskId(), incarnation, nowMs), nowMs,
                "replay of failed execution " + task.getExecution().getExecutionId() + (reason == null ? "" : ": " + reason));
        return step.save(replayed);
    }

    private static String refusal(StoredTask task) {
        if (task == null) {
            return "no such task";
        }
        if (Liveness.isLive(task)) {
            return "the task is still live; only a task that ended FAILED can be replayed";
        }
        if (!TaskState.FAILED.name().equals(Liveness.finalOutcome(task))) { // a sharded task: a slice failed (Shards)
            return "only a task that ended FAILED can be replayed; this one ended " + Liveness.endState(task);
        }
        return null;
    }
}
