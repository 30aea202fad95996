package io.ax.app.internal.core;

import io.ax.schema.AtTrigger;
import io.ax.schema.MisfirePolicy;
import io.ax.schema.OverlapPolicy;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A timer of the task came due:
 * <ul>
 *   <li>OCCURRENCE: PENDING → TRIGGERED, and a periodic task's next occurrence is timed;</li>
 *   <li>RETRY: RETRY_WAITING → TRIGGERED with attempt + 1 and the same executionId;</li>
 *   <li>TIMEOUT: a silent execution → TIMED_OUT ({@link TimeOutSilentExecution});</li>
 *   <li>PURGE: a finished task's retention ended: it leaves the store;</li>
 *   <li>DEPENDENCY_WAIT: a WAITING task's wait timed out ({@link AwaitDependencies}).</li>
 * </ul>
 * A timer that no longer matches its task (cancelled, replaced, moved, finished) is a stale copy: nothing
 * happens; so is an occurrence timer of a paused task. Overlap policy, when a periodic occurrence comes due while the
 * previous execution is still in flight: SKIP (default), it is SKIPPED; QUEUE_ONE, the first such one is held
 * ({@code queuedDueAtMs}) and dispatched when that execution ends ({@code SettleSavedTask}), further ones while it waits
 * are SKIPPED; ALLOW, it is dispatched as usual and the one in flight goes on beside it ({@link Alongside}), up to
 * {@link Alongside#MAX} in flight at once, further ones SKIPPED.
 */
final class FireTimer {
    private FireTimer() {
    }

    static Decision decide(Step step, StoredTask task, Input.TimerFired timer) {
        return switch (timer.kind()) {
            case OCCURRENCE -> fireOccurrence(step, task, timer.dueAtMs());
            case RETRY -> fireRetry(step, task, timer.dueAtMs());
            case TIMEOUT -> TimeOutSilentExecution.decide(step, task, timer.dueAtMs());
            case PURGE -> purge(step, task, timer.dueAtMs());
            case DEPENDENCY_WAIT -> task != null && OccurrenceDependencies.appliesTo(task)
                    ? occurrenceWaitEnded(step, task, timer.dueAtMs())
                    : AwaitDependencies.onWaitTimeout(step, task, timer.dueAtMs());
        };
    }

    /** The wait of the occurrence that waits for its upstreams ended: judged once more, with no time left to wait. */
    private static Decision occurrenceWaitEnded(Step step, StoredTask task, long dueAtMs) {
        if (!OccurrenceDependencies.endsTheWait(task, dueAtMs)) {
            return step.unchanged();
        }
        long occurrenceDueAtMs = task.getNextDueAtMs();
        return afterVerdict(step, task, occurrenceDueAtMs, OccurrenceDependencies.rejudge(step, task, true));
    }

    private static Decision fireOccurrence(Step step, StoredTask task, long dueAtMs) {
        if (task.getNextDueAtMs() == null || task.getNextDueAtMs() != dueAtMs || task.getPausedAtMs() != null) {
            // Stale, or paused: a pause gives the timer up (PauseTask), so one still firing is a stale copy.
            return step.unchanged();
        }
        return fire(step, task, dueAtMs, null);
    }

    /**
     * The verdict of {@link OccurrenceDependencies} on the occurrence due {@code dueAtMs} that waited for its upstreams:
     * still waiting (an outcome was recorded, others are awaited), SKIPPED, or run now (past its due time by design:
     * misfire SKIP does not apply to it). Also called by {@link ApplyDependencyOutcome}.
     */
    static Decision afterVerdict(Step step, StoredTask task, long dueAtMs, OccurrenceDependencies.Verdict verdict) {
        if (verdict instanceof OccurrenceDependencies.Wait) {
            return step.save(task);
        }
        if (verdict instanceof OccurrenceDependencies.Skip) {
            step.skipped(task, ExecutionIds.of(task.getTaskId(), task.getIncarnation(), dueAtMs), dueAtMs, 1, null, verdict.reason());
            return nextOccurrence(step, task, dueAtMs);
        }
        return fire(step, task, dueAtMs, verdict.reason());
    }

    /** {@code released}: the reason the occurrence's upstreams let it run after it waited for them; null at its fire. */
    private static Decision fire(Step step, StoredTask task, long dueAtMs, String released) {
        long nowMs = step.nowMs();
        String executionId = ExecutionIds.of(task.getTaskId(), task.getIncarnation(), dueAtMs);
        StoredExecution busy = Shards.firstBusy(task); // the execution, or a slice of a sharded task
        StoredExecution previous = busy != null ? busy : task.getExecution();
        boolean inFlight = busy != null;
        MisfirePolicy misfire = task.getRequest().getMisfire();
        boolean periodic = !(task.getRequest().getTrigger() instanceof AtTrigger);
        String exclusion = periodic ? CalendarExclusions.exclusionOf(step, task, dueAtMs) : null;
        if (exclusion != null) {
            // Excluded by the task's calendar as it stands now: not run, whatever overlap and misfire say.
            CalendarExclusions.excluded(step, task, dueAtMs, exclusion);
            return nextOccurrence(step, task, dueAtMs);
        }
        if (task.getCalendarSkips() != null) { // the reason is built only when a run of skips is reported
            CalendarExclusions.maybeReportRun(step, task, "the occurrence due " + Instant.ofEpochMilli(dueAtMs) + " is not excluded");
        }
        String dependencies = released;
        if (released == null && periodic && OccurrenceDependencies.appliesTo(task)) {
            OccurrenceDependencies.Verdict verdict = OccurrenceDependencies.atFire(step, task, dueAtMs);
            if (verdict instanceof OccurrenceDependencies.Wait) {
                return step.save(task); // held: an outcome or the end of its wait decides it
            }
            if (verdict instanceof OccurrenceDependencies.Skip) {
                return afterVerdict(step, task, dueAtMs, verdict);
            }
            dependencies = verdict.reason();
        }
        if (inFlight && periodic && misfire == MisfirePolicy.FIRE_ALL && dueAtMs <= previous.getFiredAtMs()) {
            // A missed occurrence, already due when the execution in flight was dispatched: it waits for that one to
            // end (SettleSavedTask sets its timer again then), rather than being skipped as an overlap.
            task.setCatchUpHeld(true);
            return step.save(task);
        }
        boolean queueOne = periodic && task.getRequest().getOverlap() == OverlapPolicy.QUEUE_ONE;
        boolean allow = periodic && task.getRequest().getOverlap() == OverlapPolicy.ALLOW;
        if (inFlight && allow && task.getAlongside().size() + 1 >= Alongside.MAX) {
            step.skipped(task, executionId, dueAtMs, 1, null, "overlap: " + Alongside.MAX + " executions of this task are"
                    + " already in flight side by side, the most overlap ALLOW runs at once (oldest: "
                    + task.getAlongside().get(0).getExecutionId() + ")");
        } else if (inFlight && queueOne && task.getQueuedDueAtMs() == null) {
            // Overlap QUEUE_ONE: this one waits; SettleSavedTask dispatches it once the execution in flight has ended.
            task.setQueuedDueAtMs(dueAtMs);
            step.held(task, executionId, dueAtMs, "held: previous execution " + previous.getExecutionId() + " is still "
                    + previous.getState() + "; this occurrence runs when it ends (overlap QUEUE_ONE)");
        } else if (inFlight && queueOne) {
            step.skipped(task, executionId, dueAtMs, 1, null, "overlap: previous execution " + previous.getExecutionId()
                    + " is still " + previous.getState() + " and the occurrence due " + Instant.ofEpochMilli(task.getQueuedDueAtMs())
                    + " already waits for it (overlap QUEUE_ONE)");
        } else if (inFlight && !allow) {
            step.skipped(task, executionId, dueAtMs, 1, null, "overlap: previous execution " + previous.getExecutionId()
                    + " is still " + previous.getState());
        } else if (periodic && released == null && misfire == MisfirePolicy.SKIP && nowMs - dueAtMs > step.settings().misfireThresholdMs()) {
            step.skipped(task, executionId, dueAtMs, 1, null, "missed: fired " + (nowMs - dueAtMs) + " ms after its due time,"
                    + " more than ax.misfire.threshold.ms (" + step.settings().misfireThresholdMs() + "); misfire SKIP");
        } else {
            StoredExecution execution = Executions.first(executionId, dueAtMs, nowMs);
            String reason = periodic ? CalendarExclusions.missingCalendarNote(step, task) : null;
            if (dependencies != null) {
                reason = reason == null ? dependencies : reason + "; " + dependencies;
            }
            if (inFlight) {
                // Overlap ALLOW: the one in flight goes on beside this one, followed by its own executionId (Alongside).
                List<StoredExecution> alongside = new ArrayList<>(task.getAlongside());
                alongside.add(previous);
                task.setAlongside(alongside);
                reason = (reason == null ? "" : reason + "; ") + "overlap ALLOW: runs beside " + alongside.size() + " execution(s) in flight (latest "
                        + previous.getExecutionId() + ", " + previous.getState() + ")";
            }
            task.setExecution(DispatchOccurrence.dispatch(step, task, execution, TaskState.PENDING, reason));
        }
        return nextOccurrence(step, task, dueAtMs);
    }

    /** The occurrence due at {@code dueAtMs} is done with (run, held or skipped): count it, time the next, save. */
    private static Decision nextOccurrence(Step step, StoredTask task, long dueAtMs) {
        // The task is this decision's own decoded copy: changed in place, saved once.
        task.setOccurrences(task.getOccurrences() + 1);
        task.setNextDueAtMs(null);
        if (OccurrenceDependencies.appliesTo(task)) {
            task.setPreviousDueAtMs(dueAtMs); // the start of the next occurrence's dependency period
        }
        task.setCatchUpHeld(false);
        maybeTimeNextOccurrence(step, task, dueAtMs);
        return step.save(task);
    }

    private static Decision fireRetry(Step step, StoredTask task, long dueAtMs) {
        StoredExecution execution = task.getExecution();
        if (execution == null || execution.getState() != TaskState.RETRY_WAITING || execution.getRetryAtMs() == null
                || execution.getRetryAtMs() != dueAtMs || FlowControl.isHeld(execution)) {
            return step.unchanged();
        }
        StoredExecution next = Executions.copyOf(execution).setAttempt(execution.getAttempt() + 1).build();
        String reason = "retry " + execution.getAttempt() + " of " + task.getRequest().getMaxRetries();
        return step.saveExecution(task, Attempts.dispatch(step, task, next, TaskState.RETRY_WAITING, reason));
    }

    private static Decision purge(Step step, StoredTask task, long purgeAtMs) {
        if (task.getPurgeAtMs() == null || task.getPurgeAtMs() != purgeAtMs || Liveness.isLive(task)) {
            return step.unchanged();
        }
        step.purged();
        return step.delete();
    }

    private static void maybeTimeNextOccurrence(Step step, StoredTask task, long dueAtMs) {
        Occurrences.Plan plan = Occurrences.afterFire(task.getTaskId(), task.getRequest(), task.getOccurrences(), dueAtMs,
                step.nowMs());
        MisfirePolicy misfire = task.getRequest().getMisfire();
        if (plan.skipped() > 0) {
            task.setOccurrences(task.getOccurrences() + plan.skipped());
            String what = plan.skipped() + (plan.countCapped() ? " or more" : "") + " occurrence(s) missed while the"
                    + " scheduler was down or behind";
            step.skipped(task, ExecutionIds.of(task.getTaskId(), task.getIncarnation(), plan.firstSkippedMs()),
                    plan.firstSkippedMs(), plan.skipped(), plan.lastSkippedMs(), switch (misfire) {
                        case FIRE_ONCE -> what + ", coalesced into the one due " + Instant.ofEpochMilli(dueAtMs) + " (misfire FIRE_ONCE)";
                        case FIRE_ALL -> what + ", more than maxCatchUp (" + task.getRequest().getMaxCatchUp()
                                + ") behind (misfire FIRE_ALL)";
                        case SKIP -> what + " (misfire SKIP)";
                    });
        }
        if (plan.next().isEmpty()) {
            return;
        }
        long nextDueMs = plan.next().getAsLong();
        task.setNextDueAtMs(nextDueMs);
        step.setTimer(nextDueMs, task.getRequest().getPriority(), TimerKind.OCCURRENCE);
        step.pending(task, ExecutionIds.of(task.getTaskId(), task.getIncarnation(), nextDueMs), nextDueMs,
                plan.catchUp() ? "missed while the scheduler was down or behind: runs once the execution before it ends"
                        + " (misfire FIRE_ALL)" : null);
    }
}
