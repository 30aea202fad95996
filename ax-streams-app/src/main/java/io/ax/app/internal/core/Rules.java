package io.ax.app.internal.core;

import io.ax.InvalidRequestException;
import io.ax.schema.DependencySignal;
import io.ax.schema.StoredTask;
import io.ax.validation.ScheduleValidator;

/**
 * The scheduler's rules as one pure function: given the stored task (or null), one input and the clock reading,
 * the {@link Decision}: what becomes of the task and the ordered effects (timers, dispatches, state events, retry
 * and dead-letter records). No I/O, no clock, no Kafka: the adapter reads the task, calls {@link #decide} and
 * applies the decision. Each input kind is handled by one transition class named for it; a decision that saves its
 * task is then settled by {@link SettleSavedTask} (what every saved task is owed, whichever transition saved it). What
 * a task's end, purge, occurrence's end or new schedule request owes its partition's dependency side (a sweep to its
 * subscribers, a tombstone left or forgotten) is decided with the decision too, by {@link DependencyRules} on the reads
 * the rules are given, and carried as plain effects.
 *
 * <p>An input that breaks a rule is answered with a REJECTED event. A transition the state table forbids is a bug
 * in the rules: with {@code strict} settings (tests) it throws; otherwise the input is answered IGNORED with the
 * reason and changes nothing.
 *
 * <p>The stored task passed in is the caller's own decoded copy: a decision may change it in place and return it.
 */
public final class Rules {
    private final RuleSettings settings;
    private final CalendarLookup calendars;
    private final FlowLimits flow;
    private final DependencyRules.Reads dependencies;

    public Rules(RuleSettings settings) {
        this(settings, CalendarLookup.NONE, FlowLimits.NONE);
    }

    /**
     * Rules that read no dependency side (no subscriber, owed sweep or tombstone: a subscription to a task that is not
     * stored is kept, a task's end owes nothing): for tests and tools that decide no dependency.
     */
    public Rules(RuleSettings settings, CalendarLookup calendars, FlowLimits flow) {
        this(settings, calendars, flow, DependencyRules.NONE);
    }

    /**
     * @param calendars the exclusion calendars periodic tasks may name (read as they stand at each decision)
     * @param flow      the flow-control limits in force (topology-docs/FLOW-CONTROL.md)
     * @param dependencies this partition's dependency side, as {@link DependencyRules} reads it: the purged tasks'
     *                   tombstones, which answer a subscription to a purged task, and what a task's end, purge or new
     *                   schedule request owes its subscribers or changes of its tombstone, decided with that decision
     */
    public Rules(RuleSettings settings, CalendarLookup calendars, FlowLimits flow, DependencyRules.Reads dependencies) {
        this.settings = settings;
        this.calendars = calendars;
        this.flow = flow;
        this.dependencies = dependencies;
    }

    public Decision decide(StoredTask current, Input input, long nowMs) {
        try {
            if (input instanceof Input.Subscription subscription) {
                // The upstream's side of a dependency: about its subscribers, not one of its executions.
                return DependencyRules.subscription(subscription, current, endedIn(current), nowMs, dependencies);
            }
            if (current != null && !current.getAlongside().isEmpty()) {
                // Overlap ALLOW: an input about an execution in flight beside the current one is decided for that one.
                return Alongside.decide(current, input, task -> transition(task, input, nowMs));
            }
            if (current != null && !current.getSlices().isEmpty()) {
                // A sharded task: an input about one slice is decided for that slice (Shards).
                return Shards.decide(current, input, task -> transition(task, input, nowMs));
            }
            return transition(current, input, nowMs);
        } catch (InvalidRequestException e) {
            return reject(input, e, nowMs);
        } catch (IllegalTransitionException e) {
            if (settings.strict()) {
                throw e;
            }
            Step ignored = new Step(input.taskId(), nowMs, settings);
            ignored.ignored(EventCode.ILLEGAL_TRANSITION, current, null, null, "input ignored: the rules tried an " + e.getMessage(), input.source());
            return ignored.unchanged();
        }
    }

    /**
     * The final state of {@code task} when it has ended (finished, and not live again), else null: what a subscriber to
     * it is answered at once ({@link DependencyRules#subscription}).
     */
    private static String endedIn(StoredTask task) {
        return task != null && task.getFinishedAtMs() != null && !Liveness.isLive(task) ? Liveness.finalOutcome(task) : null;
    }

    /**
     * The rules of an input's own fields, which need no task: the adapter checks them as it decodes the record, before it
     * reads the task or counts the input anywhere, and answers an input that breaks one with {@link #reject} (REJECTED,
     * the reason naming the field). A report's ({@link ApplyExecutionReport}), a retry record's
     * ({@link ApplyRetryRecord}), a dependency outcome's ({@link AwaitDependencies}), and the reason a cancel, replay,
     * trigger, pause or resume may carry. A schedule request is checked by {@link AcceptScheduleRequest}, a calendar
     * request by {@link CalendarRules}, as they are decided (their checks need the settings); a grants-topic record by
     * {@link #requireValid(FlowGrant)} before it becomes an input.
     *
     * @throws InvalidRequestException naming the field (null: the record as a whole)
     */
    public static void requireValid(Input input) {
        if (input instanceof Input.Report report) {
            ApplyExecutionReport.requireValid(report.report());
        } else if (input instanceof Input.RetryLogged retry) {
            ApplyRetryRecord.requireValid(retry.retry());
        } else if (input instanceof Input.DependencyOutcome outcome) {
            AwaitDependencies.requireValid(outcome);
        } else if (input instanceof Input.Cancel cancel) {
            requireReason(cancel.request().getReason());
        } else if (input instanceof Input.Replay replay) {
            requireReason(replay.request().getReason());
        } else if (input instanceof Input.Trigger trigger) {
            requireReason(trigger.request().getReason());
        } else if (input instanceof Input.Pause pause) {
            requireReason(pause.request().getReason());
        } else if (input instanceof Input.Resume resume) {
            requireReason(resume.request().getReason());
        }
    }

    /**
     * The rules of a dependency-protocol record's own fields ({@link DependencyRules#requireValid}), whichever its kind: a
     * NOTIFY then becomes an input ({@link Input.DependencyOutcome}, checked by {@link #requireValid(Input)} too), a
     * SUBSCRIBE or UNSUBSCRIBE an {@link Input.Subscription}, decided by {@link DependencyRules#subscription}.
     *
     * @param key the record's key
     * @throws InvalidRequestException naming the field
     */
    public static void requireValid(String key, DependencySignal signal) {
        DependencyRules.requireValid(key, signal);
    }

    /**
     * The rules of a grants-topic record's own fields, which decide which input it is ({@link FlowGrant#input}): its
     * executionId and gates (none null), a notice only {@link FlowGrant#HELD} with its reason and no admission, an
     * admission only {@link FlowGrant#ADMITTED} or {@link FlowGrant#REFUSED}. The gates write no other; a record that
     * breaks one is answered with {@link #reject}, as a bad input is, and decided no further.
     *
     * @throws InvalidRequestException naming the field (null: the record as a whole)
     */
    public static void requireValid(FlowGrant grant) {
        grant.requireValid();
    }

    /** The reason a request gives is repeated on ax.state and in the task's history: bounded. */
    private static void requireReason(String reason) {
        ScheduleValidator.requireLength("reason", reason, ScheduleValidator.MAX_REASON_CHARS);
    }

    /** The answer to an input that broke a rule. */
    private Decision reject(Input input, InvalidRequestException e, long nowMs) {
        Step rejected = new Step(input.taskId(), nowMs, settings);
        rejected.rejected(EventCode.of(e), e.getMessage(), input.source());
        return rejected.unchanged();
    }

    /**
     * The answer to a record that could not be decoded into an input, keyed {@code key} (maybe invalid or null);
     * {@code code} says why, for metrics.
     */
    public Decision reject(String key, EventCode code, String reason, io.ax.schema.SourceRecord source, long nowMs) {
        Step rejected = new Step(key, nowMs, settings);
        rejected.rejected(code, reason, source);
        return rejected.unchanged();
    }

    /**
     * One transition: {@code input} decided for {@code task} (the stored task, or a view of it for an execution beside
     * the current one) by the class named for it, then, when it saves the task, settled ({@link SettleSavedTask}).
     */
    private Decision transition(StoredTask task, Input input, long nowMs) {
        Step step = new Step(input.taskId(), nowMs, settings, calendars, flow, dependencies);
        return SettleSavedTask.settle(step, route(step, task, input));
    }

    private static Decision route(Step step, StoredTask current, Input input) {
        if (Admission.isAwaiting(current) && Admission.heldBack(input)) {
            return Admission.refuseWhileAwaiting(step, current, input);
        }
        if (input instanceof Input.Admission admission) {
            return ApplyAdmission.answer(step, current, admission);
        }
        if (input instanceof Input.TimerFired timer) {
            return current == null ? step.unchanged() : FireTimer.decide(step, current, timer);
        }
        if (input instanceof Input.Report report) {
            return ApplyExecutionReport.decide(step, current, report);
        }
        if (input instanceof Input.Schedule schedule) {
            return AcceptScheduleRequest.decide(step, current, schedule);
        }
        if (input instanceof Input.Cancel cancel) {
            return CancelTask.decide(step, current, cancel);
        }
        if (input instanceof Input.Replay replay) {
            return ReplayTask.decide(step, current, replay);
        }
        if (input instanceof Input.Trigger trigger) {
            return TriggerTask.decide(step, current, trigger);
        }
        if (input instanceof Input.Pause pause) {
            return PauseTask.decide(step, current, pause);
        }
        if (input instanceof Input.Resume resume) {
            return ResumeTask.decide(step, current, resume);
        }
        if (input instanceof Input.Calendar calendar) {
            return CalendarRules.decide(step, calendar, step.calendars()); // concerns no task: current is null
        }
        if (input instanceof Input.Granted grant) {
            return ApplyGrant.grant(step, current, grant);
        }
        if (input instanceof Input.GateHeld held) {
            return ApplyGrant.gateHeld(step, current, held);
        }
        if (input instanceof Input.DependencyOutcome outcome) {
            return ApplyDependencyOutcome.decide(step, current, outcome);
        }
        if (input instanceof Input.Adopt adopt) {
            return AdoptTask.decide(step, current, adopt);
        }
        return ApplyRetryRecord.decide(step, current, (Input.RetryLogged) input);
    }
}
