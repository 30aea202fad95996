package io.ax.app.internal.core;

import io.ax.InvalidRequestException;
import io.ax.schema.AtTrigger;
import io.ax.schema.Dependency;
import io.ax.schema.DependencyCondition;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;
import io.ax.validation.Quote;
import io.ax.validation.ScheduleValidator;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A task that waits for other tasks ({@code after} in its request; topology-docs/WORKFLOWS.md):
 * <ul>
 *   <li>(new) → WAITING: accepted without a timer for its occurrence; a SUBSCRIBE per task it waits for goes to that
 *       task's partition, and its wait timeout (a DEPENDENCY_WAIT timer) is set;</li>
 *   <li>a reported final state of a task it waits for is recorded ({@code dependencyOutcomes}); once every condition
 *       is met, WAITING → PENDING, due {@code afterDelayMs} later or at its own trigger's time, whichever is later;</li>
 *   <li>a condition that can no longer be met (the task ended otherwise, or was purged): WAITING → CANCELLED with the
 *       reason, or, with {@code afterRunAnyway}, the condition counts as settled;</li>
 *   <li>the wait timeout: still WAITING → CANCELLED, naming what it still waits for (so a cycle ends too);</li>
 *   <li>an outcome that arrives when the task no longer waits (a replayed upstream ended again after this task was
 *       released or ended) changes nothing and is answered IGNORED.</li>
 * </ul>
 */
final class AwaitDependencies {
    /** How many taskIds a reason names before it says "and N more" (reasons stay short). */
    private static final int NAMED_IN_REASON = 10;
    static final String PURGED = "PURGED";

    private AwaitDependencies() {
    }

    /** The state a finished task reports to the tasks that wait for it. */
    static String outcomeOf(StoredTask task) {
        return Liveness.finalOutcome(task);
    }

    /** (new) → WAITING for the task just built by {@link AcceptScheduleRequest} (not yet timed). */
    static Decision accept(Step step, StoredTask task, boolean replacing) {
        return accept(step, task, replacing, null);
    }

    /**
     * {@link #accept(Step, StoredTask, boolean)} of a task that waited for admission (owner maxLiveTasks) and was
     * admitted: its WAITING was announced then, so the wait's start is {@code WAITING → WAITING} with {@code admitted}.
     */
    static Decision accept(Step step, StoredTask task, boolean replacing, String admitted) {
        long timeoutAtMs = step.nowMs() + task.getRequest().getAfterTimeoutMs();
        task.setNextDueAtMs(null);
        task.setWaitTimeoutAtMs(timeoutAtMs);
        task.setDependencyOutcomes(new HashMap<>());
        step.setTimer(timeoutAtMs, 0, TimerKind.DEPENDENCY_WAIT);
        List<Dependency> after = task.getRequest().getAfter();
        String waits = "waits for " + name(conditions(after)) + "; the wait times out at " + Instant.ofEpochMilli(timeoutAtMs)
                + (replacing ? "; replaces the live task (ifExists=REPLACE)" : "");
        if (admitted == null) {
            step.waiting(task, waits);
        } else {
            step.stillWaiting(task, admitted + "; " + waits);
        }
        for (Dependency dependency : after) {
            step.subscribe(dependency.getTaskId());
        }
        return step.save(task);
    }

    /**
     * A WAITING task adopted from another deployment ({@code ./ax migrate}): its wait timeout is set again and it
     * subscribes afresh to each task that has not reported yet (subscriptions live on the old deployment's partitions
     * and do not move); restated {@code WAITING} (from = to). False when the task does not wait.
     */
    static boolean maybeAdoptWait(Step step, StoredTask task, String origin, io.ax.schema.SourceRecord source) {
        if (task.getWaitTimeoutAtMs() == null) {
            return false;
        }
        step.setTimer(task.getWaitTimeoutAtMs(), 0, TimerKind.DEPENDENCY_WAIT);
        List<String> waitingFor = new ArrayList<>();
        for (Dependency dependency : task.getRequest().getAfter()) {
            if (!task.getDependencyOutcomes().containsKey(dependency.getTaskId())) {
                waitingFor.add(dependency.getTaskId() + " (" + dependency.getOn() + ")");
                step.subscribe(dependency.getTaskId());
            }
        }
        step.restated(task, null, null, TaskState.WAITING, null, origin + "; waits for " + name(waitingFor), source);
        return true;
    }

    /** The final states a NOTIFY reports to a task that waits once. */
    private static final List<String> OUTCOMES = List.of("SUCCESS", "FAILED", "CANCELLED", PURGED);
    /** What a NOTIFY with a nominal time (one occurrence's outcome, for a periodic dependent) may say. */
    private static final List<String> OCCURRENCE_OUTCOMES = List.of("SUCCESS", "FAILED", "CANCELLED", TaskState.SKIPPED.name());

    /** The rules of a reported outcome's fields ({@link Rules#requireValid(Input)}): an outcome the protocol knows, a bounded id. */
    static void requireValid(Input.DependencyOutcome input) {
        String outcome = input.outcome();
        if (outcome == null || !(input.nominalAtMs() == null ? OUTCOMES : OCCURRENCE_OUTCOMES).contains(outcome)) {
            throw new InvalidRequestException("outcome", "NOTIFY outcome must be one of " + OUTCOMES + ": " + Quote.of(outcome));
        }
        ScheduleValidator.requireLength("executionId", input.executionId(), ScheduleValidator.MAX_ID_CHARS);
    }

    /**
     * A task this one (a WAITING one-shot task) waits for, {@code dependency}, reported its final state ({@code about}
     * says which); checked by {@link ApplyDependencyOutcome} to concern this task.
     */
    static Decision onOutcome(Step step, StoredTask task, Input.DependencyOutcome input, Dependency dependency, String about) {
        if (task.getWaitTimeoutAtMs() == null) {
            step.ignored(EventCode.REFUSED, task, null, null, "dependency outcome: " + about + " after this task stopped waiting ("
                    + IndexEntryState.of(task) + "); it is not re-evaluated", input.source());
            return step.unchanged();
        }
        Map<String, String> outcomes = new HashMap<>(task.getDependencyOutcomes());
        if (input.outcome().equals(outcomes.put(input.upstream(), input.outcome()))) {
            return step.unchanged(); // told twice (a subscription answered at once and by the sweep): nothing new
        }
        task.setDependencyOutcomes(outcomes);
        return evaluate(step, task, about + ": " + (met(dependency.getOn(), input.outcome()) ? "met" : "not " + dependency.getOn()));
    }

    /** The wait timed out: a task still WAITING ends CANCELLED, naming what it still waits for. */
    static Decision onWaitTimeout(Step step, StoredTask task, long dueAtMs) {
        if (task.getWaitTimeoutAtMs() == null || task.getWaitTimeoutAtMs() != dueAtMs) {
            return step.unchanged();
        }
        List<String> waitingFor = new ArrayList<>();
        for (Dependency dependency : task.getRequest().getAfter()) {
            if (!task.getDependencyOutcomes().containsKey(dependency.getTaskId())) {
                waitingFor.add(dependency.getTaskId() + " (" + dependency.getOn() + ")");
            }
        }
        return end(step, task, "wait timed out after " + task.getRequest().getAfterTimeoutMs() + " ms (afterTimeoutMs): still waiting for "
                + name(waitingFor.isEmpty() ? List.of("(nothing)") : waitingFor), false);
    }

    /**
     * Ends the wait of a WAITING task that is cancelled or replaced: WAITING → {@code to}, its timer given up, the tasks
     * it waits for told. Called by {@link CancelTask#endLive}; the caller marks the task cancelled.
     */
    static void endWait(Step step, StoredTask task, StoredTask.Builder ended, TaskState to, String reason) {
        step.unsetTimer(task.getWaitTimeoutAtMs(), TimerKind.DEPENDENCY_WAIT);
        step.waitEnded(task, null, null, to, reason);
        unsubscribeUnreported(step, task);
        ended.setWaitTimeoutAtMs(null);
    }

    private static Decision evaluate(Step step, StoredTask task, String news) {
        List<String> waitingFor = new ArrayList<>();
        List<String> broken = new ArrayList<>();
        for (Dependency dependency : task.getRequest().getAfter()) {
            String outcome = task.getDependencyOutcomes().get(dependency.getTaskId());
            if (outcome == null) {
                waitingFor.add(dependency.getTaskId());
            } else if (PURGED.equals(outcome)) {
                broken.add(dependency.getTaskId() + " was purged (its retention ended) before this task asked");
            } else if (!met(dependency.getOn(), outcome)) {
                broken.add(dependency.getTaskId() + " ended " + outcome + ", not " + dependency.getOn());
            }
        }
        boolean runAnyway = task.getRequest().getAfterRunAnyway();
        if (!broken.isEmpty() && !runAnyway) {
            return end(step, task, "a condition can no longer be met: " + name(broken), true);
        }
        if (!waitingFor.isEmpty()) {
            // Not a transition (from = to = WAITING): what was met, and what it still waits for.
            step.stillWaiting(task, news + "; still waits for " + waitingFor.size() + ": " + name(waitingFor));
            return step.save(task);
        }
        return release(step, task, broken);
    }

    /** WAITING → PENDING: every condition is met (or settled, with afterRunAnyway). */
    private static Decision release(Step step, StoredTask task, List<String> broken) {
        long nowMs = step.nowMs();
        long afterDelayMs = task.getRequest().getAfterDelayMs();
        long dueAtMs = nowMs + afterDelayMs;
        String timedBy = afterDelayMs == 0 ? "due now" : "due " + afterDelayMs + " ms after the last (afterDelayMs)";
        if (task.getRequest().getTrigger() instanceof AtTrigger at && at.getAtMs() > dueAtMs) {
            dueAtMs = at.getAtMs();
            timedBy = "due at its own trigger's time";
        }
        step.unsetTimer(task.getWaitTimeoutAtMs(), TimerKind.DEPENDENCY_WAIT);
        task.setWaitTimeoutAtMs(null);
        task.setNextDueAtMs(dueAtMs);
        step.setTimer(dueAtMs, task.getRequest().getPriority(), TimerKind.OCCURRENCE);
        int count = task.getRequest().getAfter().size();
        step.waitEnded(task, ExecutionIds.of(task.getTaskId(), task.getIncarnation(), dueAtMs), dueAtMs, TaskState.PENDING,
                (broken.isEmpty() ? "every condition met (" + count + ")"
                        : "every condition settled; runs anyway (afterRunAnyway) although " + name(broken)) + "; " + timedBy);
        return step.save(task);
    }

    /** WAITING → CANCELLED. */
    private static Decision end(Step step, StoredTask task, String reason, boolean unsetTimer) {
        if (unsetTimer) {
            step.unsetTimer(task.getWaitTimeoutAtMs(), TimerKind.DEPENDENCY_WAIT);
        }
        step.waitEnded(task, null, null, TaskState.CANCELLED, reason);
        unsubscribeUnreported(step, task);
        task.setWaitTimeoutAtMs(null);
        task.setCancelled(true);
        return step.save(task);
    }

    private static void unsubscribeUnreported(Step step, StoredTask task) {
        for (Dependency dependency : task.getRequest().getAfter()) {
            if (!task.getDependencyOutcomes().containsKey(dependency.getTaskId())) {
                step.unsubscribe(dependency.getTaskId());
            }
        }
    }

    static boolean met(DependencyCondition on, String outcome) {
        return switch (on) {
            case SUCCESS -> TaskState.SUCCESS.name().equals(outcome);
            case FAILURE -> TaskState.FAILED.name().equals(outcome);
            case COMPLETED -> !PURGED.equals(outcome);
        };
    }

    /** The condition {@code task} names on {@code upstream}, or null when it does not wait for it. */
    static Dependency dependencyOn(StoredTask task, String upstream) {
        for (Dependency dependency : task.getRequest().getAfter()) {
            if (dependency.getTaskId().equals(upstream)) {
                return dependency;
            }
        }
        return null;
    }

    private static List<String> conditions(List<Dependency> after) {
        List<String> named = new ArrayList<>(after.size());
        for (Dependency dependency : after) {
            named.add(dependency.getTaskId() + " (" + dependency.getOn() + ")");
        }
        return named;
    }

    /** The first few of {@code items}, then how many more. */
    private static String name(List<String> items) {
        if (items.size() <= NAMED_IN_REASON) {
            return String.join(", ", items);
        }
        return String.join(", ", items.subList(0, NAMED_IN_REASON)) + " and " + (items.size() - NAMED_IN_REASON) + " more";
    }

    /** Where a task that no longer waits stands, for IGNORED reasons. */
    private static final class IndexEntryState {
        static String of(StoredTask task) {
            if (Liveness.isLive(task)) {
                return task.getExecution() == null ? "PENDING" : task.getExecution().getState().name();
            }
            return Liveness.endState(task);
        }
    }
}
