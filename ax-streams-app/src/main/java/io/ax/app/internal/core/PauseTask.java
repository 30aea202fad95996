package io.ax.app.internal.core;

import io.ax.schema.AtTrigger;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import java.time.Instant;

/**
 * A periodic task is paused by request ({@code {"pause":true}}): its next occurrence stays PENDING but its timer is
 * given up, so no occurrence fires until it is resumed ({@link ResumeTask}); the occurrences due meanwhile are
 * SKIPPED at the resume, as one event. The execution in flight is not disturbed: its reports, timeout and retries
 * apply as before; nor is one held by flow control (it fired at its due time and waits for a slot only): it is
 * dispatched when granted. An occurrence queued behind it (overlap QUEUE_ONE) is SKIPPED now, a missed one held for it
 * (misfire FIRE_ALL) is counted with the paused ones. The pause shows on {@code ax.state} as a PENDING → PENDING
 * event of the next occurrence with the reason.
 *
 * <p>IGNORED with the reason: an unknown task, a finished one, a one-shot, one already paused, one whose schedule has
 * ended (only its last execution is left).
 */
final class PauseTask {
    private PauseTask() {
    }

    static Decision decide(Step step, StoredTask task, Input.Pause input) {
        EventCode refusal = refusal(task);
        if (refusal != null) {
            step.ignored(refusal, task, null, null, "pause: " + refusalReason(task, refusal), input.source());
            return step.unchanged();
        }
        long nextDueAtMs = task.getNextDueAtMs();
        if (!task.getCatchUpHeld()) {
            step.unsetTimer(nextDueAtMs, TimerKind.OCCURRENCE);
        }
        task.setCatchUpHeld(false);
        // An occurrence waiting for its upstreams stops waiting: it is one of those the resume skips as paused over.
        OccurrenceDependencies.maybeEndHold(step, task, null);
        Long queuedDueAtMs = task.getQueuedDueAtMs();
        if (queuedDueAtMs != null) {
            step.skipped(task, ExecutionIds.of(task.getTaskId(), task.getIncarnation(), queuedDueAtMs), queuedDueAtMs, 1, null,
                    "paused by request before it ran: it was queued behind the execution in flight (overlap QUEUE_ONE)");
            task.setQueuedDueAtMs(null);
        }
        task.setPausedAtMs(step.nowMs());
        StoredExecution execution = task.getExecution();
        boolean inFlight = execution != null && StateMachine.isInFlight(execution.getState());
        // A held execution fired at its due time and waits for a flow-control slot only: not recalled, as one in flight.
        boolean held = FlowControl.isHeld(execution);
        String reason = input.request().getReason();
        step.held(task, ExecutionIds.of(task.getTaskId(), task.getIncarnation(), nextDueAtMs), nextDueAtMs,
                "paused by request" + (reason == null ? "" : ": " + reason) + " (no occurrence fires until resumed"
                        + (inFlight ? "; execution " + execution.getExecutionId() + " keeps running" : "")
                        + (held ? "; execution " + execution.getExecutionId() + ", held by flow control, is dispatched when granted"
                        : "") + ")");
        // The task is this decision's own decoded copy: changed in place, saved once.
        return step.save(task);
    }

    private static EventCode refusal(StoredTask task) {
        if (task == null) {
            return EventCode.UNKNOWN_TASK;
        }
        if (!Liveness.isLive(task)) {
            return EventCode.FINISHED;
        }
        if (task.getRequest().getTrigger() instanceof AtTrigger) {
            return EventCode.NOT_PERIODIC;
        }
        if (task.getPausedAtMs() != null || task.getNextDueAtMs() == null) {
            return EventCode.REFUSED;
        }
        return null;
    }

    private static String refusalReason(StoredTask task, EventCode refusal) {
        return switch (refusal) {
            case UNKNOWN_TASK -> "no such task";
            case FINISHED -> "task already ended (" + Liveness.endState(task) + ")";
            case NOT_PERIODIC -> "a one-shot task has no occurrences to pause (only interval and cron tasks can be paused)";
            default -> task.getPausedAtMs() != null ? "already paused since " + Instant.ofEpochMilli(task.getPausedAtMs())
                    : "the schedule has ended: nothing is ahead of the execution in flight";
        };
    }
}
