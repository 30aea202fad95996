package io.ax.app.internal.core;

import io.ax.schema.CalendarRequest;
import io.ax.schema.DispatchTask;
import io.ax.schema.RetryRecord;
import io.ax.schema.SourceRecord;
import io.ax.schema.StateChange;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;
import io.ax.validation.Quote;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * One decision in the making: the task it concerns, the clock reading it is made at, the settings, and the
 * effects collected so far, in order. The transitions write their outcome here; {@link #save}, {@link #unchanged}
 * and {@link #delete} close it into a {@link Decision}. State events are checked against the {@link StateMachine}
 * as they are written. Not thread-safe; one per input.
 */
final class Step {
    /** Longest reason a rejection carries. */
    static final int MAX_REJECTION_CHARS = 2000;

    private final String taskId;
    private final long nowMs;
    private final RuleSettings settings;
    private final CalendarLookup calendars;
    private final List<Effect> effects = new ArrayList<>();
    private final FlowLimits flow;
    private final DependencyRules.Reads dependencies;
    /** Where {@link DependencyRules} hands what it decides for this step's task (made at its first use). */
    private DependencyRules.TaskEffects dependencyEffects;

    Step(String taskId, long nowMs, RuleSettings settings) {
        this(taskId, nowMs, settings, CalendarLookup.NONE, FlowLimits.NONE, DependencyRules.NONE);
    }

    /**
     * @param dependencies what this partition's dependency side holds (subscribers, owed sweeps, tombstones), read by
     *                     {@link DependencyRules} as the step's task ends, is purged or is scheduled again
     */
    Step(String taskId, long nowMs, RuleSettings settings, CalendarLookup calendars, FlowLimits flow,
         DependencyRules.Reads dependencies) {
        this.taskId = taskId;
        this.nowMs = nowMs;
        this.settings = settings;
        this.calendars = calendars;
        this.flow = flow;
        this.dependencies = dependencies;
    }

    /** What {@link DependencyRules} decides for this step's task, collected as this decision's effects. */
    private DependencyRules.TaskEffects dependencyEffects() {
        if (dependencyEffects == null) {
            dependencyEffects = new DependencyRules.TaskEffects() {
                @Override
                public void oweSweep(String upstream, Sweep sweep) {
                    effects.add(new Effect.OweSweep(upstream, sweep));
                }

                @Override
                public void oweOccurrenceSweep(String upstream, OccurrenceSweep sweep) {
                    effects.add(new Effect.OweOccurrenceSweep(upstream, sweep));
                }

                @Override
                public void tombstone(String upstream, long purgedAtMs) {
                    effects.add(new Effect.LeaveTombstone(upstream, purgedAtMs));
                }

                @Override
                public void forgetTombstone(String upstream, long purgedAtMs) {
                    effects.add(new Effect.ForgetTombstone(upstream, purgedAtMs));
                }
            };
        }
        return dependencyEffects;
    }

    /** The exclusion calendars as they stand now. */
    CalendarLookup calendars() {
        return calendars;
    }

    /** The flow-control limits in force. */
    FlowLimits flowLimits() {
        return flow;
    }

    String taskId() {
        return taskId;
    }

    long nowMs() {
        return nowMs;
    }

    RuleSettings settings() {
        return settings;
    }

    /** The execution timeout in force for {@code task}, ms. */
    long timeoutMs(StoredTask task) {
        Long timeoutMs = task.getRequest().getTimeoutMs();
        return timeoutMs != null ? timeoutMs : settings.defaultTimeoutMs();
    }

    // ---- effects ----

    void setTimer(long dueAtMs, int priority, TimerKind kind) {
        effects.add(new Effect.SetTimer(taskId, dueAtMs, priority, kind));
    }

    void unsetTimer(long dueAtMs, TimerKind kind) {
        effects.add(new Effect.UnsetTimer(taskId, dueAtMs, kind));
    }

    void dispatch(DispatchTask task) {
        effects.add(new Effect.Dispatch(task));
    }

    void retry(RetryRecord record) {
        effects.add(new Effect.Retry(taskId, record));
    }

    void deadLetter(io.ax.schema.DeadLetter letter) {
        effects.add(new Effect.DeadLetter(letter));
    }

    void flow(FlowMessage message) {
        effects.add(new Effect.Flow(message));
    }

    /**
     * A schedule request is accepted under this step's taskId ({@link AcceptScheduleRequest}, {@link UpdateSchedule}): a
     * tombstone an earlier task with this id left at its purge is forgotten ({@link DependencyRules#scheduledAgain}), so
     * the tasks that wait for the new one are not answered PURGED. Called once per accepted request.
     */
    void scheduled() {
        DependencyRules.scheduledAgain(taskId, dependencies, dependencyEffects());
    }

    /**
     * The task is purged now (its retention ended, {@link FireTimer}): the tasks that waited for it are let go and a
     * tombstone answers later ones ({@link DependencyRules#purged}).
     */
    void purged() {
        DependencyRules.purged(taskId, nowMs, dependencies, dependencyEffects());
    }

    /**
     * The task reached its end in {@code outcome} ({@link SettleSavedTask}): the tasks waiting for it are owed it
     * ({@link DependencyRules#finished}). {@code executionId} is its last execution's, or null when it never ran.
     */
    void finished(String outcome, String executionId) {
        DependencyRules.finished(taskId, outcome, executionId, dependencies, dependencyEffects());
    }

    /** Ask {@code upstream}'s partition for its final state (this task waits for it). */
    void subscribe(String upstream) {
        effects.add(DependencySignals.subscribe(upstream, taskId, false, nowMs));
    }

    /** This task waits for {@code upstream} no more. */
    void unsubscribe(String upstream) {
        effects.add(DependencySignals.unsubscribe(upstream, taskId, false, nowMs));
    }

    /** A periodic task asks {@code upstream}'s partition for the outcome of each of its occurrences. */
    void subscribeEveryOccurrence(String upstream) {
        effects.add(DependencySignals.subscribe(upstream, taskId, true, nowMs));
    }

    void unsubscribeEveryOccurrence(String upstream) {
        effects.add(DependencySignals.unsubscribe(upstream, taskId, true, nowMs));
    }

    // ---- state events ----

    /** (new) → WAITING: accepted, waiting for the tasks its request names ({@code after}); no execution yet. */
    void waiting(StoredTask task, String reason) {
        event(base(task).setTo(TaskState.WAITING).setReason(reason).build());
    }

    /** A WAITING task recorded a met (or settled) condition and still waits: from = to = WAITING, not a transition. */
    void stillWaiting(StoredTask task, String reason) {
        event(base(task).setFrom(TaskState.WAITING.name()).setTo(TaskState.WAITING).setReason(reason).build());
    }

    /** WAITING → {@code to} (PENDING with its due time, or CANCELLED). */
    void waitEnded(StoredTask task, String executionId, Long dueAtMs, TaskState to, String reason) {
        StateMachine.requireLegal(TaskState.WAITING, to);
        event(base(task).setExecutionId(executionId).setAttempt(executionId == null ? null : 1)
                .setFrom(TaskState.WAITING.name()).setTo(to).setDueAtMs(dueAtMs).setReason(reason).build());
    }

    /** A new execution is pending (its timer is set). */
    void pending(StoredTask task, String executionId, long dueAtMs, String reason) {
        event(base(task).setExecutionId(executionId).setAttempt(1).setTo(TaskState.PENDING).setDueAtMs(dueAtMs)
                .setReason(reason).build());
    }

    /** A pending occurrence that never fired ends (cancelled or replaced). */
    void pendingEnded(StoredTask task, String executionId, long dueAtMs, TaskState to, String reason) {
        StateMachine.requireLegal(TaskState.PENDING, to);
        event(base(task).setExecutionId(executionId).setAttempt(1).setFrom(TaskState.PENDING.name()).setTo(to)
                .setDueAtMs(dueAtMs).setReason(reason).build());
    }

    /** The fired execution moves from {@code from} to its current state. */
    void transition(StoredTask task, StoredExecution execution, TaskState from, String reason) {
        transition(task, execution, from, reason, null);
    }

    /** A transition with the code that counts it in metrics (a TIMED_OUT's kind of limit). */
    void transition(StoredTask task, StoredExecution execution, TaskState from, String reason, EventCode code) {
        StateMachine.requireLegal(from, execution.getState());
        maybeOccurrenceEnded(execution.getShard(), from == null ? null : from.name(), execution.getState(), execution.getExecutionId(),
                execution.getDueAtMs(), null);
        effects.add(new Effect.Event(base(task).setShard(execution.getShard()).setExecutionId(execution.getExecutionId()).setAttempt(execution.getAttempt())
                .setFrom(from == null ? null : from.name()).setTo(execution.getState()).setDueAtMs(execution.getDueAtMs())
                .setReason(reason).build(), code));
    }

    /**
     * The running execution stays RUNNING with a new deadline (from = to = RUNNING, not a transition): a heartbeat
     * extended its start-to-close limit.
     */
    void extended(StoredTask task, StoredExecution execution, String reason) {
        event(base(task).setShard(execution.getShard()).setExecutionId(execution.getExecutionId()).setAttempt(execution.getAttempt())
                .setFrom(TaskState.RUNNING.name()).setTo(TaskState.RUNNING).setDueAtMs(execution.getDueAtMs())
                .setReason(reason).build());
    }

    /**
     * A state the task already had, restated by the deployment that adopted it ({@code ./ax migrate}): not a
     * transition, so {@code from} and {@code to} are the same state and the table is not consulted.
     */
    void restated(StoredTask task, String executionId, Integer attempt, TaskState state, Long dueAtMs, String reason,
                  SourceRecord source) {
        event(base(task).setExecutionId(executionId).setAttempt(attempt).setFrom(state.name()).setTo(state)
                .setDueAtMs(dueAtMs).setReason(reason).setSource(source).build());
    }

    /**
     * {@code count} occurrences of a periodic task that will not run, the first due at {@code dueAtMs} (its
     * executionId), the last at {@code lastDueAtMs} (null for one).
     */
    void skipped(StoredTask task, String executionId, long dueAtMs, long count, Long lastDueAtMs, String reason) {
        event(base(task).setExecutionId(executionId).setTo(TaskState.SKIPPED).setDueAtMs(dueAtMs)
                .setSkipped(count > 1 ? count : null).setLastDueAtMs(count > 1 ? lastDueAtMs : null).setReason(reason).build());
    }

    /** {@link #skipped}, of occurrences the task's exclusion calendar {@code calendar} excluded. */
    void skippedByCalendar(StoredTask task, String executionId, long dueAtMs, long count, Long lastDueAtMs, String reason,
                           String calendar) {
        event(base(task).setExecutionId(executionId).setTo(TaskState.SKIPPED).setDueAtMs(dueAtMs)
                .setSkipped(count > 1 ? count : null).setLastDueAtMs(count > 1 ? lastDueAtMs : null).setReason(reason)
                .setCalendar(calendar).build());
    }

    /**
     * The pending occurrence due at {@code dueAtMs} stays PENDING but is held (from = to = PENDING, not a transition):
     * queued behind the execution in flight (overlap QUEUE_ONE), or not to fire because the task was paused.
     */
    void held(StoredTask task, String executionId, long dueAtMs, String reason) {
        event(base(task).setExecutionId(executionId).setAttempt(1).setFrom(TaskState.PENDING.name()).setTo(TaskState.PENDING)
                .setDueAtMs(dueAtMs).setReason(reason).build());
    }

    /**
     * The execution stays in its state (PENDING or RETRY_WAITING) but is held by flow control (from = to, not a
     * transition): it waits for a grant from its gates.
     */
    void flowHeld(StoredTask task, StoredExecution execution, String reason) {
        event(base(task).setShard(execution.getShard()).setExecutionId(execution.getExecutionId()).setAttempt(execution.getAttempt())
                .setFrom(execution.getState().name()).setTo(execution.getState()).setDueAtMs(execution.getDueAtMs())
                .setReason(reason).build());
    }

    /**
     * A sharded task's occurrence ended ({@link SettleSavedTask}): no slice has anything ahead. One event for the
     * occurrence as a whole (its executionId, {@code shards} without {@code shard}): RUNNING → its outcome.
     */
    void occurrenceEnded(StoredTask task, String occurrenceId, TaskState outcome, String reason) {
        StateMachine.requireLegal(TaskState.RUNNING, outcome);
        if (task.getExecution() != null) { // the event names no due time: the occurrence's is its slice 0's
            maybeOccurrenceEnded(null, TaskState.RUNNING.name(), outcome, occurrenceId, task.getExecution().getDueAtMs(), null);
        }
        event(base(task).setExecutionId(occurrenceId).setFrom(TaskState.RUNNING.name()).setTo(outcome).setReason(reason).build());
    }

    /** Input that changes nothing: a duplicate request, a cancel of an unknown task, a stale report. */
    void ignored(EventCode code, StoredTask task, String executionId, Integer attempt, String reason, SourceRecord source) {
        Change change = task != null ? base(task) : new Change().setTaskId(taskId).setAtMs(nowMs);
        effects.add(new Effect.Event(change.setExecutionId(executionId).setAttempt(attempt).setTo(TaskState.IGNORED)
                .setReason(reason).setSource(source).build(), code));
    }

    /**
     * Input that could not be decoded or broke a rule. Both the key and the reason come from the input: an invalid
     * key is named by a short stand-in, a reason is cut to a bound.
     */
    void rejected(EventCode code, String reason, SourceRecord source) {
        effects.add(new Effect.Event(rejection(reason, source).build(), code));
    }

    /** {@link #rejected} of a calendar request ({@link CalendarRules}): the event names the calendar too. */
    void rejectedCalendar(EventCode code, String reason, SourceRecord source) {
        effects.add(new Effect.Event(rejection(reason, source).setCalendar(Quote.key(taskId)).build(), code));
    }

    private Change rejection(String reason, SourceRecord source) {
        return new Change().setTaskId(Quote.key(taskId)).setTo(TaskState.REJECTED).setAtMs(nowMs)
                .setReason(Quote.truncate(reason, MAX_REJECTION_CHARS)).setSource(source);
    }

    /** A calendar request that changes nothing (the delete of a calendar that does not exist), keyed by its calendar. */
    void ignoredCalendar(EventCode code, String reason, SourceRecord source) {
        effects.add(new Effect.Event(new Change().setTaskId(taskId).setTo(TaskState.IGNORED).setAtMs(nowMs)
                .setCalendar(taskId).setReason(reason).setSource(source).build(), code));
    }

    /**
     * A calendar request is accepted: the calendar named by this step's key is published ({@code request}, or null for a
     * delete) and its ACCEPTED line, with {@code reason}, written to the state topic.
     */
    void publishCalendar(CalendarRequest request, String reason, SourceRecord source) {
        effects.add(new Effect.PublishCalendar(taskId, request));
        effects.add(new Effect.CalendarAccepted(taskId, reason, source));
    }

    private Change base(StoredTask task) {
        int shards = task.getRequest().getShards(); // Shards#isSharded written out: Step sits below every class that uses it
        return new Change().setTaskId(task.getTaskId()).setJobType(task.getRequest().getJobType()).setAtMs(nowMs)
                .setShards(shards > 1 ? shards : null);
    }

    private void event(StateChange change) {
        maybeOccurrenceEnded(change.getShard(), change.getFrom(), change.getTo(), change.getExecutionId(), change.getDueAtMs(),
                change.getLastDueAtMs());
        effects.add(new Effect.Event(change, null));
    }

    /**
     * An event that ends an occurrence (its execution, or the occurrence as a whole for a sharded task, reaches SUCCESS,
     * FAILED or CANCELLED; or it is SKIPPED) is owed to the task's periodic dependents, if it has any
     * ({@link DependencyRules#occurrenceEnded}): every place an occurrence ends writes its event here, so none is missed. A
     * slice's end is not the occurrence's.
     */
    private void maybeOccurrenceEnded(Integer shard, String from, TaskState to, String executionId, Long dueAtMs, Long lastDueAtMs) {
        if (shard != null || dueAtMs == null || to.name().equals(from)) {
            return;
        }
        if (to == TaskState.SUCCESS || to == TaskState.FAILED || to == TaskState.CANCELLED || to == TaskState.SKIPPED) {
            DependencyRules.occurrenceEnded(taskId, to.name(), executionId, lastDueAtMs != null ? lastDueAtMs : dueAtMs,
                    dependencies, dependencyEffects());
        }
    }

    // ---- outcomes ----

    /** The effects, handed over without a copy: a step ends with its one decision. */
    private List<Effect> effects() {
        return Collections.unmodifiableList(effects);
    }

    /**
     * Stores {@code task}, as the transition left it. {@link Rules#decide} then settles it ({@link SettleSavedTask}:
     * shards, the queued or held occurrence, the calendar run, the finish and the purge timer) before it is stored.
     */
    Decision save(StoredTask task) {
        return new Decision(taskId, Decision.Store.SAVE, task, effects());
    }

    /** Sets the task's execution (in place: the task is this decision's own copy) and stores it. */
    Decision saveExecution(StoredTask task, StoredExecution execution) {
        task.setExecution(execution);
        return save(task);
    }

    Decision unchanged() {
        return new Decision(taskId, Decision.Store.UNCHANGED, null, effects());
    }

    Decision delete() {
        return new Decision(taskId, Decision.Store.DELETE, null, effects());
    }

    /** Removes a provisional task refused at admission (no purge tombstone: it was never accepted). */
    Decision discard() {
        return new Decision(taskId, Decision.Store.DISCARD, null, effects());
    }
}
