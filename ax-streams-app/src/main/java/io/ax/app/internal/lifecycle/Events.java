package io.ax.app.internal.lifecycle;

import io.ax.app.internal.topology.Outputs;
import io.ax.schema.SourceRecord;
import io.ax.schema.StateChange;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;
import io.ax.validation.Quote;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the events of {@code ax.state}: transitions (checked against {@link StateMachine}), rejections,
 * ignored inputs and skipped occurrences. Every one is also logged with its taskId and executionId.
 */
public final class Events {
    private static final Logger log = LoggerFactory.getLogger(Events.class);

    /** Longest reason a rejection carries. */
    static final int MAX_REASON_CHARS = 2000;

    private final Outputs outputs;

    public Events(Outputs outputs) {
        this.outputs = outputs;
    }

    /** A new execution is pending (its timer is set). */
    public void pending(StoredTask task, String executionId, long dueAtMs, String reason, long nowMs) {
        emit(base(task, nowMs).setExecutionId(executionId).setAttempt(1).setTo(TaskState.PENDING).setDueAtMs(dueAtMs)
                .setReason(reason).build());
    }

    /** A pending occurrence that never fired ends (cancelled or replaced). */
    public void pendingEnded(StoredTask task, String executionId, long dueAtMs, TaskState to, String reason, long nowMs) {
        StateMachine.requireLegal(TaskState.PENDING, to);
        emit(base(task, nowMs).setExecutionId(executionId).setAttempt(1).setFrom(TaskState.PENDING.name()).setTo(to)
                .setDueAtMs(dueAtMs).setReason(reason).build());
    }

    /** The fired execution moves from {@code from} to its current state. */
    public void transition(StoredTask task, StoredExecution execution, TaskState from, String reason, long nowMs) {
        StateMachine.requireLegal(from, execution.getState());
        emit(base(task, nowMs).setExecutionId(execution.getExecutionId()).setAttempt(execution.getAttempt())
                .setFrom(from == null ? null : from.name()).setTo(execution.getState()).setDueAtMs(execution.getDueAtMs())
                .setReason(reason).build());
    }

    /** An occurrence of a periodic task that will not run. */
    public void skipped(StoredTask task, String executionId, long dueAtMs, String reason, long nowMs) {
        emit(base(task, nowMs).setExecutionId(executionId).setTo(TaskState.SKIPPED).setDueAtMs(dueAtMs)
                .setReason(reason).build());
    }

    /** Input that changes nothing: a duplicate request, a cancel of an unknown task, a stale report. */
    public void ignored(String taskId, StoredTask task, String executionId, Integer attempt, String reason,
                        SourceRecord source, long nowMs) {
        StateChange.Builder change = task != null ? base(task, nowMs) : StateChange.newBuilder().setTaskId(taskId).setAtMs(nowMs);
        emit(change.setExecutionId(executionId).setAttempt(attempt).setTo(TaskState.IGNORED).setReason(reason)
                .setSource(source).build());
    }

    /** Input that could not be decoded or broke a rule. */
    public void rejected(String taskId, String reason, SourceRecord source, long nowMs) {
        // Both come from the input: an invalid key is named by a short stand-in, a reason is cut to a bound.
        String key = Quote.key(taskId);
        String boundedReason = Quote.truncate(reason, MAX_REASON_CHARS);
        log.warn("Rejected record taskId={} from {}-{}@{}: {}", key, source.getTopic(), source.getPartition(),
                source.getOffset(), boundedReason);
        emit(StateChange.newBuilder().setTaskId(key).setTo(TaskState.REJECTED).setAtMs(nowMs).setReason(boundedReason)
                .setSource(source).build());
    }

    private static StateChange.Builder base(StoredTask task, long nowMs) {
        return StateChange.newBuilder().setTaskId(task.getTaskId()).setJobType(task.getRequest().getJobType()).setAtMs(nowMs);
    }

    private void emit(StateChange change) {
        if (change.getTo() != TaskState.REJECTED) {
            log.debug("taskId={} executionId={} attempt={} {} -> {} {}", change.getTaskId(), change.getExecutionId(),
                    change.getAttempt(), change.getFrom(), change.getTo(), change.getReason() == null ? "" : change.getReason());
        }
        outputs.state(change);
    }
}
