package io.ax.app.internal.core;

import io.ax.schema.AtTrigger;
import io.ax.schema.DelayTrigger;
import io.ax.schema.IfExists;
import io.ax.schema.ScheduleRequest;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;
import io.ax.validation.ScheduleValidator;

/**
 * (new) → PENDING: validates a request, applies {@code ifExists} against a live task with the same taskId
 * (KEEP: ignored; REPLACE: the old one is cancelled; UPDATE: a periodic task's schedule changes, {@link UpdateSchedule}), stores the task and sets its first timer. A finished
 * task (kept until its retention ends) does not block a new request with its taskId.
 */
final class AcceptScheduleRequest {
    private AcceptScheduleRequest() {
    }

    /** @throws io.ax.InvalidRequestException when the request breaks a rule (the caller rejects it) */
    static Decision decide(Step step, StoredTask existing, Input.Schedule input) {
        ScheduleRequest request = input.request();
        new ScheduleValidator(step.settings().limits()).validate(input.taskId(), request);
        long firstDueMs = Occurrences.firstDue(input.taskId(), request, input.recordTimestampMs());
        CalendarExclusions.requireAllowsSomeOccurrence(step, input.taskId(), request, firstDueMs);
        boolean replacing = existing != null && Liveness.isLive(existing);
        // A task awaiting admission has no occurrence yet: UPDATE replaces its request, as REPLACE does.
        boolean awaiting = replacing && Admission.isAwaiting(existing);
        if (replacing && request.getIfExists() == IfExists.UPDATE && !awaiting) {
            return UpdateSchedule.decide(step, existing, input, firstDueMs);
        }
        if (replacing && request.getIfExists() == IfExists.KEEP) {
            step.ignored(EventCode.DUPLICATE, existing, null, null, "duplicate: a live task with this taskId exists (ifExists=KEEP)"
                    + (awaiting ? "; it awaits admission at " + existing.getAdmissionGate() : ""), input.source());
            return step.unchanged();
        }
        step.scheduled(); // from here on the request is accepted: every way below saves the new task
        if (replacing) {
            CalendarExclusions.maybeReportRun(step, existing, "the task was replaced");
            CancelTask.endLive(step, existing, TaskState.CANCELLED, "replaced by the request at offset " + input.source().getOffset());
        }
        StoredTask task = Executions.newTask(input.taskId(), input.source().getOffset(), resolveDelay(request, firstDueMs),
                step.nowMs(), firstDueMs);
        if (Admission.maybeAwait(step, replacing ? existing : null, task)) {
            return Admission.awaiting(step, task, replacing);
        }
        if (!request.getAfter().isEmpty() && !OccurrenceDependencies.appliesTo(task)) {
            return AwaitDependencies.accept(step, task, replacing);
        }
        step.setTimer(firstDueMs, request.getPriority(), TimerKind.OCCURRENCE);
        step.pending(task, ExecutionIds.of(input.taskId(), task.getIncarnation(), firstDueMs), firstDueMs,
                replacing ? "replaces the live task (ifExists=REPLACE)" : null);
        OccurrenceDependencies.maybeSubscribe(step, task);
        return step.save(task);
    }

    /** A delay is relative to the request's timestamp: store the instant it resolved to. */
    private static ScheduleRequest resolveDelay(ScheduleRequest request, long firstDueMs) {
        if (request.getTrigger() instanceof DelayTrigger) {
            return ScheduleRequest.newBuilder(request).setTrigger(new AtTrigger(firstDueMs)).build();
        }
        return request;
    }
}
