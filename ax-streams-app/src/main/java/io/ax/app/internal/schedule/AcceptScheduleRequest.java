package io.ax.app.internal.schedule;

import io.ax.app.internal.store.Liveness;

import io.ax.app.internal.topology.SchedulerContext;
import io.ax.app.internal.wheel.TimerKind;
import io.ax.schema.AtTrigger;
import io.ax.schema.DelayTrigger;
import io.ax.schema.IfExists;
import io.ax.schema.ScheduleRequest;
import io.ax.schema.SourceRecord;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;
import io.ax.validation.ScheduleValidator;

/**
 * (new) → PENDING: validates a request, applies {@code ifExists} against a live task with the same taskId
 * (KEEP: ignored; REPLACE: the old one is cancelled), stores the task and sets its first timer. A finished
 * task (kept until its retention ends) does not block a new request with its taskId.
 */
public final class AcceptScheduleRequest {
    private final SchedulerContext ctx;
    private final ScheduleValidator validator;
    private final CancelTask cancelTask;

    public AcceptScheduleRequest(SchedulerContext ctx, CancelTask cancelTask) {
        this.ctx = ctx;
        this.validator = new ScheduleValidator(ctx.settings().limits());
        this.cancelTask = cancelTask;
    }

    /** @throws io.ax.InvalidRequestException when the request breaks a rule (the caller rejects it) */
    public void process(String taskId, ScheduleRequest request, long requestTimestampMs, SourceRecord source) {
        validator.validate(taskId, request);
        long firstDueMs = Occurrences.firstDue(request, requestTimestampMs);
        long nowMs = ctx.nowMs();
        StoredTask existing = ctx.tasks().get(taskId);
        boolean replacing = existing != null && Liveness.isLive(existing);
        if (replacing && isKeep(request)) {
            ctx.events().ignored(taskId, existing, null, null, "duplicate: a live task with this taskId exists (ifExists=KEEP)",
                    source, nowMs);
            return;
        }
        if (replacing) {
            cancelTask.endLive(existing, TaskState.CANCELLED, "replaced by the request at offset " + source.getOffset(), nowMs);
        }
        rememberNewTask(taskId, request, firstDueMs, source, nowMs, replacing);
    }

    private static boolean isKeep(ScheduleRequest request) {
        return request.getIfExists() != IfExists.REPLACE;
    }

    private void rememberNewTask(String taskId, ScheduleRequest request, long firstDueMs, SourceRecord source,
                                 long nowMs, boolean replacing) {
        StoredTask task = StoredTask.newBuilder()
                .setTaskId(taskId)
                .setIncarnation(source.getOffset())
                .setRequest(resolveDelay(request, firstDueMs))
                .setAcceptedAtMs(nowMs)
                .setNextDueAtMs(firstDueMs)
                .setOccurrences(0)
                .setExecution(null)
                .setCancelled(false)
                .setFinishedAtMs(null)
                .setPurgeAtMs(null)
                .build();
        ctx.tasks().save(task, nowMs);
        ctx.timers().set(firstDueMs, request.getPriority(), taskId, TimerKind.OCCURRENCE);
        ctx.events().pending(task, ExecutionIds.of(taskId, task.getIncarnation(), firstDueMs), firstDueMs,
                replacing ? "replaces the live task (ifExists=REPLACE)" : null, nowMs);
    }

    /** A delay is relative to the request's timestamp: store the instant it resolved to. */
    private static ScheduleRequest resolveDelay(ScheduleRequest request, long firstDueMs) {
        if (request.getTrigger() instanceof DelayTrigger) {
            return ScheduleRequest.newBuilder(request).setTrigger(new AtTrigger(firstDueMs)).build();
        }
        return request;
    }
}
