package io.ax.app.internal.core;

import io.ax.schema.ShardFailurePolicy;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;
import java.util.ArrayList;
import java.util.List;

/**
 * What every decision that saves its task owes the task before it is stored, whichever transition made it: a
 * transition says what changed ({@link Step#save}), and this stage draws the consequences that do not depend on which
 * input it was. In order:
 * <ol>
 *   <li>a sharded occurrence whose slices have nothing ahead ends as a whole (below);</li>
 *   <li>the occurrence queued behind the execution in flight (overlap QUEUE_ONE) is dispatched once that has ended;</li>
 *   <li>a missed occurrence held during the execution in flight (misfire FIRE_ALL) gets its timer again;</li>
 *   <li>the excluded occurrences counted in a calendar run are reported once the task times no further one;</li>
 *   <li>a task with nothing left ahead is finished: its admission slot released ({@link Admission#maybeRelease}),
 *   {@code finishedAtMs} and {@code purgeAtMs} set with the PURGE timer ({@code ax.retention.ms} later), its waiting
 *   tasks owed its end ({@link Step#finished}: a sweep, when it has subscribers) and its own periodic subscriptions
 *   given up.</li>
 * </ol>
 * {@link Rules#decide} runs it once for each saved decision: after the one transition of an input, or, for a task with
 * executions beside its current one ({@link SideExecutions}), after each transition on its view, before the view is
 * turned back. A finished task stays readable until its purge and answers late reports and dependents, but does not
 * hold its taskId: a new schedule request with it is a new task ({@link AcceptScheduleRequest}).
 */
final class SettleSavedTask {
    private SettleSavedTask() {
    }

    /** {@code decision}, settled when it saves its task (its effects follow the transition's); any other as it is. */
    static Decision settle(Step step, Decision decision) {
        if (decision.store() != Decision.Store.SAVE) {
            return decision;
        }
        StoredTask task = decision.task();
        settleShards(step, task);
        maybeRunQueuedOccurrence(step, task);
        maybeReleaseHeldOccurrence(step, task);
        maybeEndCalendarRun(step, task);
        maybeFinish(step, task);
        return step.save(task);
    }

    /**
     * Decides what a sharded task's slices make of its occurrence ({@link Shards}), before {@code task} is stored:
     * cancels the others once one is FAILED (CANCEL_OTHERS), and once none has anything ahead records and announces the
     * occurrence's outcome. Keeps every slice within its bounds. Changes {@code task} in place (the decision's own
     * copy, maybe a view).
     */
    private static void settleShards(Step step, StoredTask task) {
        if (task.getExecution() == null || task.getExecution().getShard() == null) {
            // Not sharded, or not fanned out yet (the slices decide, not the request: an UPDATE applies from the next occurrence).
            return;
        }
        Shards.compactAll(task);
        if (task.getShardsOutcome() != null) {
            return;
        }
        List<StoredExecution> all = Shards.all(task);
        StoredExecution failed = all.stream().filter(slice -> slice.getState() == TaskState.FAILED).findFirst().orElse(null);
        int shards = all.size();
        if (failed != null && task.getRequest().getShardFailure() == ShardFailurePolicy.CANCEL_OTHERS && Shards.anyBusy(task)) {
            String reason = "slice " + failed.getShard() + "/" + shards + " (" + failed.getExecutionId() + ") failed for good:"
                    + " the other slices are cancelled (shardFailure CANCEL_OTHERS)";
            StoredExecution zero = task.getExecution();
            StoredExecution ended = CancelTask.end(step, task, zero, TaskState.CANCELLED, reason);
            if (ended != null) {
                task.setExecution(ended);
            }
            List<StoredExecution> slices = new ArrayList<>(task.getSlices().size());
            for (StoredExecution slice : task.getSlices()) {
                StoredExecution cancelled = CancelTask.end(step, task, slice, TaskState.CANCELLED, reason);
                slices.add(cancelled != null ? cancelled : slice);
            }
            task.setSlices(slices);
            all = Shards.all(task);
        }
        if (Shards.anyBusy(task)) {
            return;
        }
        long succeeded = all.stream().filter(slice -> slice.getState() == TaskState.SUCCESS).count();
        TaskState outcome = failed != null ? TaskState.FAILED : succeeded == shards ? TaskState.SUCCESS : TaskState.CANCELLED;
        task.setShardsOutcome(outcome.name());
        String reason = switch (outcome) {
            case SUCCESS -> "all " + shards + " slices succeeded";
            case FAILED -> "slice " + failed.getShard() + "/" + shards + " failed for good (" + failed.getExecutionId() + "); "
                    + succeeded + " of " + shards + " slices succeeded";
            default -> succeeded + " of " + shards + " slices succeeded, the others were cancelled";
        };
        step.occurrenceEnded(task, Shards.occurrenceId(task.getExecution()), outcome, reason);
    }

    /** A task with nothing left ahead is marked finished and gets its purge timer. */
    private static void maybeFinish(Step step, StoredTask task) {
        if (task.getFinishedAtMs() != null || Liveness.isLive(task)) {
            return;
        }
        Admission.maybeRelease(step, task);
        long purgeAtMs = step.nowMs() + step.settings().retentionMs();
        task.setFinishedAtMs(step.nowMs());
        task.setPurgeAtMs(purgeAtMs);
        step.setTimer(purgeAtMs, 0, TimerKind.PURGE);
        step.finished(AwaitDependencies.outcomeOf(task), task.getExecution() == null ? null : task.getExecution().getExecutionId());
        if (!task.getCancelled()) { // a cancel or replace unsubscribed (CancelTask)
            OccurrenceDependencies.maybeUnsubscribe(step, task);
        }
    }

    /**
     * Excluded occurrences counted by {@link CalendarExclusions} are reported once the task times no further
     * occurrence (cancelled, replaced, paused, schedule ended): nothing counted is left unreported.
     */
    private static void maybeEndCalendarRun(Step step, StoredTask task) {
        if (task.getCalendarSkips() == null) {
            return;
        }
        if (task.getCancelled() || task.getNextDueAtMs() == null) {
            CalendarExclusions.maybeReportRun(step, task, "the task times no further occurrence");
        } else if (task.getPausedAtMs() != null) {
            CalendarExclusions.maybeReportRun(step, task, "the task was paused");
        }
    }

    /**
     * A missed occurrence held while an execution was in flight (misfire FIRE_ALL, see {@code FireTimer}) gets its
     * timer again once that execution has ended, whichever input ended it; it is already due, so it fires at the next
     * tick.
     */
    private static void maybeReleaseHeldOccurrence(Step step, StoredTask task) {
        if (!task.getCatchUpHeld() || task.getCancelled() || task.getNextDueAtMs() == null || task.getPausedAtMs() != null) {
            return;
        }
        if (Shards.anyBusy(task)) {
            return;
        }
        task.setCatchUpHeld(false);
        step.setTimer(task.getNextDueAtMs(), task.getRequest().getPriority(), TimerKind.OCCURRENCE);
    }

    /**
     * The occurrence queued behind the execution in flight (overlap QUEUE_ONE, see {@code FireTimer}) is dispatched as
     * soon as that execution has ended, whichever input ended it: PENDING → TRIGGERED in this same decision, its
     * executionId from its due time.
     */
    private static void maybeRunQueuedOccurrence(Step step, StoredTask task) {
        Long queuedDueAtMs = task.getQueuedDueAtMs();
        if (queuedDueAtMs == null || task.getCancelled() || task.getPausedAtMs() != null) {
            return;
        }
        StoredExecution previous = task.getExecution();
        if (Shards.anyBusy(task)) { // the execution, or a slice of a sharded task
            return;
        }
        task.setQueuedDueAtMs(null);
        StoredExecution queued = StoredExecution.newBuilder()
                .setExecutionId(ExecutionIds.of(task.getTaskId(), task.getIncarnation(), queuedDueAtMs))
                .setAttempt(1)
                .setState(TaskState.PENDING)
                .setDueAtMs(queuedDueAtMs)
                .setFiredAtMs(step.nowMs())
                .setLastSignMs(step.nowMs())
                .build();
        task.setExecution(DispatchOccurrence.dispatch(step, task, queued, TaskState.PENDING, "queued behind execution "
                + (previous == null ? "(none)" : previous.getExecutionId() + ", which ended " + previous.getState())
                + ": runs now (overlap QUEUE_ONE)"));
    }
}
