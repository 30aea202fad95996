package io.ax.app.internal.schedule;

import io.ax.app.internal.store.Liveness;

import io.ax.app.internal.lifecycle.Attempts;
import io.ax.app.internal.lifecycle.StateMachine;
import io.ax.app.internal.topology.SchedulerContext;
import io.ax.app.internal.wheel.TimerKind;
import io.ax.schema.CancelRequest;
import io.ax.schema.SourceRecord;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;

/**
 * PENDING / TRIGGERED / RUNNING / RETRY_WAITING → CANCELLED. A fired execution also gets a CANCEL signal on
 * {@code ax.dispatch}, so a worker running it can stop; its later reports are recorded as ignored.
 * Cancelling an unknown or finished task is answered with IGNORED on {@code ax.state}.
 */
public final class CancelTask {
    private final SchedulerContext ctx;
    private final Attempts attempts;

    public CancelTask(SchedulerContext ctx, Attempts attempts) {
        this.ctx = ctx;
        this.attempts = attempts;
    }

    public void process(String taskId, CancelRequest request, SourceRecord source) {
        long nowMs = ctx.nowMs();
        StoredTask task = ctx.tasks().get(taskId);
        if (task == null) {
            ctx.events().ignored(taskId, null, null, null, "cancel: no such task", source, nowMs);
            return;
        }
        if (!Liveness.isLive(task)) {
            ctx.events().ignored(taskId, task, null, null, "cancel: task already ended (" + Liveness.endState(task) + ")",
                    source, nowMs);
            return;
        }
        String reason = "cancelled" + (request.getReason() == null ? "" : ": " + request.getReason());
        ctx.tasks().save(endLive(task, TaskState.CANCELLED, reason, nowMs), nowMs);
    }

    /**
     * Ends everything {@code task} has ahead of it: the pending timer and the execution in flight (its timers
     * too). Returns the task marked cancelled; the caller stores it (or overwrites it, for a replace).
     */
    public StoredTask endLive(StoredTask task, TaskState to, String reason, long nowMs) {
        StoredTask.Builder ended = StoredTask.newBuilder(task).setCancelled(true);
        Long nextDueAtMs = task.getNextDueAtMs();
        if (nextDueAtMs != null) {
            ctx.timers().unset(nextDueAtMs, task.getTaskId(), TimerKind.OCCURRENCE);
            ctx.events().pendingEnded(task, ExecutionIds.of(task.getTaskId(), task.getIncarnation(), nextDueAtMs),
                    nextDueAtMs, to, reason, nowMs);
            ended.setNextDueAtMs(null);
        }
        StoredExecution execution = task.getExecution();
        if (execution != null && StateMachine.isInFlight(execution.getState())) {
            StoredExecution cancelled = StoredExecution.newBuilder(attempts.disarm(task.getTaskId(), execution)).setState(to).build();
            ctx.events().transition(task, cancelled, execution.getState(), reason, nowMs);
            if (execution.getState() != TaskState.RETRY_WAITING) {
                ctx.outputs().dispatch(Dispatches.cancel(task, execution, ctx.settings().defaultTimeoutMs(), nowMs), nowMs);
            }
            ended.setExecution(cancelled);
        }
        return ended.build();
    }
}
