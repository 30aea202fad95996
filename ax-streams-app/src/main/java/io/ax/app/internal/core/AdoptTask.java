package io.ax.app.internal.core;

import io.ax.InvalidRequestException;
import io.ax.schema.AdoptRequest;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;
import io.ax.validation.AdoptValidator;

/**
 * (held by another deployment) → the same state here: takes a task handed over by {@code ./ax migrate} exactly as
 * the old deployment stored it (request, incarnation, next due time, execution id, attempt, error history), so
 * every executionId it will produce is the one the old deployment would have produced, and a worker's report for an
 * attempt dispatched by the old deployment matches. Its timers are set from the stored state:
 * <ul>
 *   <li>a next occurrence (PENDING): the occurrence timer at its due time;</li>
 *   <li>an execution TRIGGERED or RUNNING: its timeout timer where it was armed (the deadline moves with heartbeats
 *       as usual);</li>
 *   <li>an execution in RETRY_WAITING whose retry was timed: the retry timer at that time (one whose RetryRecord the
 *       old deployment had not read back yet gets it from the retry topic, where {@code ./ax migrate} copies it);</li>
 *   <li>a finished task: the purge timer at the time the old deployment would have purged it.</li>
 * </ul>
 * Each thing the task carries over is restated on {@code ax.state} (from = to, reason "migrated from ..."). Nothing
 * is dispatched. An adopt for a taskId this deployment already holds is IGNORED (re-running the command is safe);
 * one that breaks a rule ({@link AdoptValidator}) is REJECTED.
 */
final class AdoptTask {
    private AdoptTask() {
    }

    /** @throws io.ax.InvalidRequestException when the adopt breaks a rule (the caller rejects it) */
    static Decision decide(Step step, StoredTask existing, Input.Adopt input) {
        if (!step.settings().adoptEnabled()) {
            // An adopt hands over a task in any state with the executionId it names, which an ordinary producer must not be
            // able to do: a deployment takes adopts only while its operator has opened the door for a migration.
            throw new InvalidRequestException(null, "AdoptRequest refused: this scheduler runs with ax.adopt.enabled=false;"
                    + " set it to true while migrating into this deployment (topology-docs/MIGRATION.md)");
        }
        AdoptRequest adopt = input.request();
        new AdoptValidator(step.settings().limits()).validate(input.taskId(), adopt);
        String origin = "migrated from " + adopt.getFromTopic() + " partition " + adopt.getFromPartition()
                + " (application " + adopt.getFromApplicationId() + ")";
        if (existing != null) {
            step.ignored(EventCode.ALREADY_HELD, existing, null, null, "adopt ignored: this deployment already holds the task (" + origin + ")",
                    input.source());
            return step.unchanged();
        }
        // The decoded adopt is this decision's own copy: the task is stored as it came.
        StoredTask task = adopt.getTask();
        // An owner's admission slot lives at the old deployment's gate: an adopted task holds none here (FLOW-CONTROL.md).
        task.setAdmissionGate(null);
        task.setAdmissionId(null);
        task.setAdmissionSinceMs(null);
        int priority = task.getRequest().getPriority();
        boolean restated = OccurrenceDependencies.appliesTo(task) ? adoptOccurrenceDependencies(step, task)
                : AwaitDependencies.maybeAdoptWait(step, task, origin, input.source());
        restated |= maybeAdoptOccurrence(step, task, priority, origin, input);
        restated |= maybeAdoptExecution(step, task, priority, origin, input);
        if (!restated) {
            adoptFinished(step, task, origin, input);
        }
        return step.save(task);
    }

    /**
     * A periodic task that waits for other tasks' occurrences: its subscriptions live on the old deployment's partitions,
     * so it subscribes afresh here (each upstream answers with its latest ended occurrence); an occurrence that waited
     * there gives its wait up and is timed again at its due time (already past: it fires at once and is judged here, its
     * wait counted from its due time as before). Returns false: the occurrence is restated by {@link #maybeAdoptOccurrence}.
     */
    private static boolean adoptOccurrenceDependencies(Step step, StoredTask task) {
        task.setWaitTimeoutAtMs(null);
        OccurrenceDependencies.maybeSubscribe(step, task);
        return false;
    }

    private static boolean maybeAdoptOccurrence(Step step, StoredTask task, int priority, String origin, Input.Adopt input) {
        Long nextDueAtMs = task.getNextDueAtMs();
        if (nextDueAtMs == null) {
            return false;
        }
        String reason = origin;
        if (task.getPausedAtMs() != null) {
            // Paused there, paused here: no timer until it is resumed (ResumeTask times it then).
            reason += "; paused since " + java.time.Instant.ofEpochMilli(task.getPausedAtMs())
                    + " (no occurrence fires until resumed)";
        } else {
            step.setTimer(nextDueAtMs, priority, TimerKind.OCCURRENCE);
        }
        step.restated(task, ExecutionIds.of(task.getTaskId(), task.getIncarnation(), nextDueAtMs), 1, TaskState.PENDING,
                nextDueAtMs, reason, input.source());
        return true;
    }

    private static boolean maybeAdoptExecution(Step step, StoredTask task, int priority, String origin, Input.Adopt input) {
        boolean restated = false;
        for (StoredExecution beside : task.getAlongside()) {
            // Overlap ALLOW: each execution in flight beside the current one keeps its timers too.
            restated |= adoptExecution(step, task, beside, priority, origin + " (in flight beside the current execution,"
                    + " overlap ALLOW)", input);
        }
        return adoptExecution(step, task, task.getExecution(), priority, origin, input) || restated;
    }

    private static boolean adoptExecution(Step step, StoredTask task, StoredExecution execution, int priority, String origin,
                                          Input.Adopt input) {
        if (execution == null || !StateMachine.isInFlight(execution.getState()) || task.getCancelled()) {
            return false;
        }
        if (execution.getTimeoutAtMs() != null) {
            step.setTimer(execution.getTimeoutAtMs(), priority, TimerKind.TIMEOUT);
        }
        String reason = origin;
        if (execution.getRetryAtMs() != null) {
            step.setTimer(execution.getRetryAtMs(), priority, TimerKind.RETRY);
        } else if (execution.getState() == TaskState.RETRY_WAITING) {
            reason += "; its retry is timed when the RetryRecord for attempt " + (execution.getAttempt() + 1) + " is read";
        }
        step.restated(task, execution.getExecutionId(), execution.getAttempt(), execution.getState(), execution.getDueAtMs(),
                reason, input.source());
        return true;
    }

    /** A task with nothing ahead of it keeps its remaining retention (readable, replayable if it FAILED). */
    private static void adoptFinished(Step step, StoredTask task, String origin, Input.Adopt input) {
        StoredExecution execution = task.getExecution();
        // Only a cancelled task ends without an execution (AdoptValidator refuses any other such shape).
        TaskState ended = task.getCancelled() || execution == null ? TaskState.CANCELLED : execution.getState();
        if (task.getPurgeAtMs() != null) {
            step.setTimer(task.getPurgeAtMs(), 0, TimerKind.PURGE);
        } else if (task.getFinishedAtMs() != null) {
            long purgeAtMs = step.nowMs() + step.settings().retentionMs();
            task.setPurgeAtMs(purgeAtMs);
            step.setTimer(purgeAtMs, 0, TimerKind.PURGE);
        }
        step.restated(task, execution == null ? null : execution.getExecutionId(),
                execution == null ? null : execution.getAttempt(), ended, execution == null ? null : execution.getDueAtMs(),
                origin + "; finished, purged at its retention's end", input.source());
    }
}
