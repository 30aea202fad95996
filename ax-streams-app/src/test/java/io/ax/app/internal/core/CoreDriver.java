package io.ax.app.internal.core;

import io.ax.codec.JsonForms;
import io.ax.schema.CancelRequest;
import io.ax.schema.DependencySignal;
import io.ax.schema.DispatchKind;
import io.ax.schema.DispatchTask;
import io.ax.schema.ExecutionReport;
import io.ax.schema.ReplayRequest;
import io.ax.schema.ReportStatus;
import io.ax.schema.RetryRecord;
import io.ax.schema.ScheduleRequest;
import io.ax.schema.SourceRecord;
import io.ax.schema.StateChange;
import io.ax.schema.StoredTask;
import io.ax.schema.TriggerRequest;
import io.ax.validation.ScheduleLimits;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Drives the pure {@link Rules} for one task the way the adapter does, with no Kafka at all: it keeps the stored
 * task (a fresh copy handed to every decision, as a store read would), the timers set and not given up, the
 * retry log not yet read back, and everything the decisions emitted. Strict settings: an illegal transition
 * throws.
 */
final class CoreDriver {
    static final String TASK = "t";
    static final long T0 = 1_796_083_200_000L; // 2026-12-01T00:00:00Z
    /** How long a finished task is kept unless a driver says otherwise (a week). */
    static final long RETENTION_MS = 604_800_000;

    record Timer(TimerKind kind, long dueAtMs) {
    }

    private final String taskId;
    private final Rules rules;
    private final TreeSet<Timer> timers = new TreeSet<>(Comparator.comparingLong(Timer::dueAtMs).thenComparing(Timer::kind));
    private final Deque<RetryRecord> retryLog = new ArrayDeque<>();
    private final List<DispatchTask> dispatches = new ArrayList<>();
    private StoredTask task;
    private long nowMs = T0;
    private long offset;
    private Decision last;
    /** The input of the last decision, and the stored task it was made on (null when none). */
    private Input lastInput;
    private StoredTask lastBefore;

    CoreDriver() {
        this(FlowLimits.NONE);
    }

    /** A driver whose rules see {@code flow} as the flow-control limits in force. */
    CoreDriver(FlowLimits flow) {
        this(TASK, flow, DependencyRules.NONE);
    }

    /**
     * A driver of the task {@code taskId}, whose rules see {@code flow} as the flow-control limits in force and read
     * {@code dependencies} as its partition's dependency side (a subscription to it, its end, purge or new schedule
     * request), as the adapter's rules read its store.
     */
    CoreDriver(String taskId, FlowLimits flow, DependencyRules.Reads dependencies) {
        this(taskId, flow, dependencies, RETENTION_MS);
    }

    /** As above, a finished task kept (and a purged one's tombstone answering) for {@code retentionMs}. */
    CoreDriver(String taskId, FlowLimits flow, DependencyRules.Reads dependencies, long retentionMs) {
        this.taskId = taskId;
        rules = new Rules(new RuleSettings(300_000, 1_000, 600_000, retentionMs, 0, 60_000, ScheduleLimits.defaults(), true, true),
                CalendarLookup.NONE, flow, dependencies);
    }

    Decision schedule(String json) {
        return decide(new Input.Schedule(taskId, (ScheduleRequest) JsonForms.parseRequest(json.getBytes(StandardCharsets.UTF_8)),
                nowMs, source("ax.requests")));
    }

    Decision cancel() {
        return decide(new Input.Cancel(taskId, new CancelRequest("test"), source("ax.requests")));
    }

    Decision replay() {
        return decide(new Input.Replay(taskId, new ReplayRequest(null), source("ax.requests")));
    }

    Decision pause() {
        return decide(new Input.Pause(taskId, new io.ax.schema.PauseRequest("test"), source("ax.requests")));
    }

    Decision resume() {
        return decide(new Input.Resume(taskId, new io.ax.schema.ResumeRequest("test"), source("ax.requests")));
    }

    /** The owner's live gate answers the admission the task awaits (if it awaits one). */
    Decision admission(boolean admitted) {
        String admissionId = task == null || task.getAdmissionId() == null ? "none" : task.getAdmissionId();
        String gate = task == null || task.getAdmissionGate() == null ? "live:owner:o" : task.getAdmissionGate();
        return decide(new Input.Admission(taskId, admissionId, gate, admitted, "owner o has 1 of 1 live tasks (maxLiveTasks)",
                source("ax.flow-grants")));
    }

    Decision trigger() {
        return decide(new Input.Trigger(taskId, new TriggerRequest("test"), source("ax.requests")));
    }

    /** The final state of a task this one waits for ({@code after}), as ax.deps brings it. */
    Decision dependencyOutcome(String upstream, String outcome) {
        return decide(new Input.DependencyOutcome(taskId, upstream, outcome, null, source("ax.deps")));
    }

    /** The outcome of an occurrence, due {@code nominalAtMs}, of a task this periodic one waits for, as ax.deps brings it. */
    Decision occurrenceOutcome(String upstream, String outcome, long nominalAtMs) {
        return decide(new Input.DependencyOutcome(taskId, upstream, outcome, null, nominalAtMs, source("ax.deps")));
    }

    /**
     * A record of the dependency protocol read from ax.deps, keyed by this task, as the adapter decodes it: its own fields
     * checked first, then a NOTIFY is an outcome of a task this one waits for, a SUBSCRIBE or UNSUBSCRIBE a subscription
     * to this one.
     */
    Decision signal(DependencySignal signal) {
        Rules.requireValid(taskId, signal);
        Input input = switch (signal.getKind()) {
            case SUBSCRIBE, UNSUBSCRIBE -> new Input.Subscription(taskId, signal, source("ax.deps"));
            case NOTIFY -> new Input.DependencyOutcome(taskId, signal.getUpstream(), signal.getOutcome(), signal.getExecutionId(),
                    signal.getNominalAtMs(), source("ax.deps"));
        };
        Rules.requireValid(input);
        return decide(input);
    }

    /** The last gate's grant of a slot to {@code executionId}'s {@code attempt}, as the grants topic brings it. */
    Decision grant(String executionId, int attempt, List<String> gates) {
        return decide(new Input.Granted(taskId, executionId, attempt, gates, source("ax.flow-grants")));
    }

    /** A gate's notice that it holds {@code executionId}'s {@code attempt}. */
    Decision gateHeld(String executionId, int attempt, String gate) {
        return decide(new Input.GateHeld(taskId, executionId, attempt, gate, "no slot free", source("ax.flow-grants")));
    }

    /** A report on the current execution and attempt (or on a made-up one when nothing fired yet). */
    Decision report(ReportStatus status, boolean retryable) {
        String executionId = task == null || task.getExecution() == null ? "none" : task.getExecution().getExecutionId();
        int attempt = task == null || task.getExecution() == null ? 1 : task.getExecution().getAttempt();
        return report(executionId, attempt, status, retryable);
    }

    Decision report(String executionId, int attempt, ReportStatus status, boolean retryable) {
        ExecutionReport report = ExecutionReport.newBuilder().setExecutionId(executionId).setAttempt(attempt).setStatus(status)
                .setRetryable(retryable).setMessage("boom").setWorkerId("w").build();
        return decide(new Input.Report(taskId, report, source("ax.results")));
    }

    /** Reads the oldest record of the retry log back, as the scheduler does. */
    Optional<Decision> deliverRetry() {
        RetryRecord retry = retryLog.poll();
        return retry == null ? Optional.empty() : Optional.of(decide(new Input.RetryLogged(taskId, retry, source("ax.retry"))));
    }

    /** Fires the earliest timer of {@code kind}, the clock moved to its due time if it is not there yet. */
    Optional<Decision> fire(TimerKind kind) {
        return timers.stream().filter(t -> t.kind() == kind).findFirst().map(this::fire);
    }

    /** Fires the earliest timer of any kind. */
    Optional<Decision> fireEarliest() {
        return timers.isEmpty() ? Optional.empty() : Optional.of(fire(timers.first()));
    }

    private Decision fire(Timer timer) {
        timers.remove(timer);
        nowMs = Math.max(nowMs, timer.dueAtMs());
        return decide(new Input.TimerFired(taskId, timer.kind(), timer.dueAtMs()));
    }

    void advanceMs(long ms) {
        nowMs += ms;
    }

    /** The clock moved to {@code atMs} if it is not there yet (drivers of tasks on one clock keep in step). */
    void advanceToMs(long atMs) {
        nowMs = Math.max(nowMs, atMs);
    }

    private Decision decide(Input input) {
        StoredTask copy = task == null ? null : StoredTask.newBuilder(task).build();
        lastBefore = task;
        lastInput = input;
        last = rules.decide(copy, input, nowMs);
        for (Effect effect : last.effects()) {
            if (effect instanceof Effect.SetTimer set) {
                timers.add(new Timer(set.kind(), set.dueAtMs()));
            } else if (effect instanceof Effect.UnsetTimer unset) {
                timers.remove(new Timer(unset.kind(), unset.dueAtMs()));
            } else if (effect instanceof Effect.Retry retry) {
                retryLog.add(retry.record());
            } else if (effect instanceof Effect.Dispatch dispatch) {
                dispatches.add(dispatch.task());
            }
        }
        switch (last.store()) {
            case SAVE -> task = last.task();
            case DELETE, DISCARD -> task = null;
            case UNCHANGED -> { }
        }
        checkArmedTimers(input);
        return last;
    }

    /**
     * The timer store is derived from the task store ({@link ArmedTimers}): after every decision, each timer derived
     * from the task must be one the rules have set and not given up, and each timer set but not derived must fire
     * stale (changing nothing), so that a rebuild from the task store loses nothing.
     */
    private void checkArmedTimers(Input input) {
        List<Timer> derived = task == null ? List.of()
                : ArmedTimers.of(task).stream().map(set -> new Timer(set.kind(), set.dueAtMs())).toList();
        for (Timer timer : derived) {
            if (!timers.contains(timer)) {
                throw new AssertionError("after " + input + ": derived " + timer + " but the rules armed " + timers + "; task " + task);
            }
        }
        for (Timer timer : timers) {
            if (derived.contains(timer)) {
                continue;
            }
            StoredTask copy = task == null ? null : StoredTask.newBuilder(task).build();
            Decision fired = rules.decide(copy, new Input.TimerFired(taskId, timer.kind(), timer.dueAtMs()), Math.max(nowMs, timer.dueAtMs()));
            if (fired.store() != Decision.Store.UNCHANGED || !fired.effects().isEmpty()) {
                throw new AssertionError("after " + input + ": armed " + timer + " is not derived from the task but fires "
                        + fired.store() + " " + fired.effects() + "; derived " + derived + "; task " + task);
            }
        }
    }

    private SourceRecord source(String topic) {
        return new SourceRecord(topic, 0, offset++);
    }

    StoredTask task() {
        return task;
    }

    /**
     * Whether the last decision finished the task: it saved the task with an end ({@code finishedAtMs}) that the task it
     * was made on had not (or a task of an earlier incarnation had). Read from the tasks, not from the effects, so a
     * property can hold the effects to it.
     */
    boolean finishedByLast() {
        if (last == null || last.store() != Decision.Store.SAVE || last.task().getFinishedAtMs() == null) {
            return false;
        }
        return lastBefore == null || lastBefore.getFinishedAtMs() == null || lastBefore.getIncarnation() != last.task().getIncarnation();
    }

    /** Whether the last decision accepted a schedule request (a new task, a replace or an update: it saved the task). */
    boolean acceptedByLast() {
        return lastInput instanceof Input.Schedule && last.store() == Decision.Store.SAVE;
    }

    /** Whether the last decision purged the task (its retention ended: deleted). */
    boolean purgedByLast() {
        return last != null && last.store() == Decision.Store.DELETE;
    }

    long nowMs() {
        return nowMs;
    }

    TreeSet<Timer> timers() {
        return timers;
    }

    Deque<RetryRecord> retryLog() {
        return retryLog;
    }

    List<DispatchTask> runDispatches() {
        return dispatches.stream().filter(d -> d.getKind() == DispatchKind.RUN).toList();
    }

    /** The state events of a decision. */
    static List<StateChange> events(Decision decision) {
        return decision.effects().stream().filter(e -> e instanceof Effect.Event).map(e -> ((Effect.Event) e).change()).toList();
    }
}
