package io.ax.app.internal.metrics;

import io.ax.app.internal.core.EventCode;
import io.ax.app.internal.store.TaskIndex;
import io.ax.app.internal.store.TaskStore;
import io.ax.app.internal.core.ExecutionIds;
import io.ax.app.internal.timer.Overdue;
import io.ax.app.internal.core.TimerKind;
import io.ax.app.internal.timer.WheelTimer;
import io.ax.app.internal.timer.Timers;
import io.ax.schema.DeadLetter;
import io.ax.schema.DispatchTask;
import io.ax.schema.StateChange;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * One stream task's (partition's) part of the {@link SchedulerMetrics}: counts what the decisions it applies do
 * ({@link #observe}), and every {@code ax.metrics.refresh.ms} recomputes its gauges from its own stores on its own
 * stream thread ({@link #maybeRefresh}): pending tasks and executions in flight by job type from the index's counters
 * (in memory: {@link TaskIndex#count}), the backlog from the timers, the executions running longest from the index
 * store's range of tasks in flight by fire time, read only when one may have run long (the index knows a lower bound
 * of the oldest fire time in flight, {@link TaskIndex#mayHaveInFlightFiredBefore}: a read of a memtable being written
 * sorts it, see {@link io.ax.app.internal.store.AxRocksDBConfig})
 * (only the long-running ones are read, at most {@link MetricsSettings#scanMax}). No task is read or decoded but the
 * most overdue one.
 */
public final class PartitionMetrics implements AutoCloseable {
    private static final Set<TaskState> IN_FLIGHT = Set.of(TaskState.TRIGGERED, TaskState.RUNNING);
    private static final Set<TaskState> ATTEMPT_ENDS = Set.of(TaskState.RETRY_WAITING, TaskState.FAILED, TaskState.TIMED_OUT);

    private final SchedulerMetrics metrics;
    private final int partition;
    private final TaskIndex counters;
    private final KeyValueStore<Bytes, byte[]> index;
    private final TaskStore tasks;
    private final Timers timers;
    private long refreshedAtMs = Long.MIN_VALUE;

    public PartitionMetrics(SchedulerMetrics metrics, int partition, TaskIndex counters, KeyValueStore<Bytes, byte[]> index,
                            TaskStore tasks, Timers timers) {
        this.metrics = metrics;
        this.partition = partition;
        this.counters = counters;
        this.index = index;
        this.tasks = tasks;
        this.timers = timers;
        metrics.indexCounts(partition, counters.published()); // for GET /stats, until close()
    }

    // ---- counters, from the decisions applied ----

    /** An attempt dispatched, {@code latenessMs} after it was due. */
    public void fired(io.ax.schema.DispatchTask dispatch, long latenessMs) {
        metrics.fired(dispatch.getJobType(), latenessMs, dispatch.getTaskId(), dispatch.getExecutionId(), dispatch.getOwner());
    }

    /** A request accepted: {@code input} is its kind (see {@code topology-docs/METRICS.md}). */
    public void accepted(String input) {
        metrics.count("ax.requests.accepted", "Requests accepted", "input", input);
    }

    /**
     * A STARTED report moved {@code change}'s execution from TRIGGERED to RUNNING: observes its dispatch-to-start wait,
     * from the later of its fire and due time (a dispatch sent ahead is held by its worker until due) to the start the
     * worker reported ({@code reportedAtMs}, its clock), cut into [that time, {@code nowMs}] so that a worker's clock
     * ahead or behind cannot make it negative or later than the report's arrival; a report without a time starts at
     * {@code nowMs}. Reads only {@code task}, already in memory: no store read, no record.
     */
    public void started(StateChange change, StoredTask task, Long reportedAtMs, long nowMs) {
        StoredExecution execution = executionOf(task, change.getExecutionId());
        if (execution == null) {
            return;
        }
        long fromMs = Math.max(execution.getFiredAtMs(), execution.getDueAtMs());
        long startedAtMs = reportedAtMs == null ? nowMs : Math.max(fromMs, Math.min(reportedAtMs, nowMs));
        metrics.started(change.getJobType(), startedAtMs - fromMs);
    }

    private static StoredExecution executionOf(StoredTask task, String executionId) {
        if (task == null || executionId == null) {
            return null;
        }
        if (task.getExecution() != null && executionId.equals(task.getExecution().getExecutionId())) {
            return task.getExecution();
        }
        for (StoredExecution other : task.getAlongside()) {
            if (executionId.equals(other.getExecutionId())) {
                return other;
            }
        }
        for (StoredExecution slice : task.getSlices()) {
            if (executionId.equals(slice.getExecutionId())) {
                return slice;
            }
        }
        return null;
    }

    /** An execution failed for good: counted by job type, and named as its job type's latest dead letter. */
    public void deadLettered(DeadLetter letter) {
        DispatchTask dispatch = letter.getDispatch();
        String jobType = metrics.jobType(dispatch.getJobType());
        metrics.count(SchedulerMetrics.DEAD_LETTERS, SchedulerMetrics.DEAD_LETTERS_DESCRIPTION, Tags.of("job_type", jobType));
        metrics.deadLettered(new PartitionSnapshot.Named(jobType, dispatch.getTaskId(), dispatch.getExecutionId(),
                letter.getOwner(), letter.getFailedAtMs() / 1000.0));
    }

    /**
     * A state event emitted for {@code task} (the task as stored after the decision, or null) in answer to
     * {@code input}; {@code code} says why for IGNORED and REJECTED.
     */
    public void observe(StateChange change, EventCode code, StoredTask task, String input) {
        TaskState to = change.getTo();
        String reason = code == null ? "other" : code.label();
        switch (to) {
            case REJECTED -> metrics.count("ax.requests.rejected", "Inputs answered REJECTED", Tags.of("input", input, "reason", reason));
            case IGNORED -> metrics.count("ax.inputs.ignored", "Inputs answered IGNORED", Tags.of("input", input, "reason", reason));
            case SUCCESS -> metrics.count("ax.executions.succeeded", "Attempts that ended SUCCESS", "job_type", metrics.jobType(change.getJobType()));
            default -> { }
        }
        if (ATTEMPT_ENDS.contains(to) && change.getFrom() != null && IN_FLIGHT.contains(TaskState.valueOf(change.getFrom()))) {
            metrics.count("ax.executions.failed", "Attempts that ended in failure, time-outs included", jobType(change));
            String owner = task == null ? null : task.getRequest().getOwner();
            metrics.failed(new PartitionSnapshot.Named(metrics.jobType(change.getJobType()), change.getTaskId(),
                    change.getExecutionId(), owner, change.getAtMs() / 1000.0));
        }
        if (to == TaskState.RETRY_WAITING) {
            metrics.count("ax.retries", "Failed attempts that go to RETRY_WAITING", jobType(change));
        } else if (to == TaskState.TIMED_OUT) {
            metrics.count("ax.timeouts", "Attempts ended by their time-out", jobType(change)
                    .and("kind", code == null ? EventCode.SILENCE_TIMEOUT.label() : code.label()));
        }
    }

    private Tags jobType(StateChange change) {
        return Tags.of("job_type", metrics.jobType(change.getJobType()));
    }

    // ---- gauges, from the stores ----

    /** Recomputes the gauges when {@code ax.metrics.refresh.ms} has passed since the last time. */
    public void maybeRefresh(long nowMs) {
        if (refreshedAtMs != Long.MIN_VALUE && nowMs - refreshedAtMs < metrics.settings().refreshMs()) {
            return;
        }
        refreshedAtMs = nowMs;
        metrics.publish(partition, refresh(nowMs));
    }

    PartitionSnapshot refresh(long nowMs) {
        MetricsSettings settings = metrics.settings();
        long pending = count(TaskState.PENDING) + count(TaskState.RETRY_WAITING);
        Overdue overdue = timers.overdue(nowMs, settings.scanMax());
        PartitionSnapshot.Named oldest = null;
        WheelTimer timer = overdue.oldest();
        if (timer != null) {
            StoredTask task = tasks.get(timer.taskId());
            oldest = new PartitionSnapshot.Named(Integer.toString(partition), timer.taskId(), executionIdOf(task, timer),
                    task == null ? null : task.getRequest().getOwner(), (nowMs - timer.dueAtMs()) / 1000.0);
        }
        Map<String, Long> inFlight = new HashMap<>();
        counters.inFlightByJobType().forEach((jobType, count) -> inFlight.merge(metrics.jobType(jobType), count, Long::sum));
        Map<String, Long> runningLong = new HashMap<>();
        List<PartitionSnapshot.Named> longest = new ArrayList<>();
        long longSinceMs = nowMs - settings.longRunningMs();
        List<TaskIndex.InFlight> runningLongest = List.of();
        if (counters.mayHaveInFlightFiredBefore(longSinceMs)) { // else the store's range would be empty: not read
            TaskIndex.InFlightScan scan = TaskIndex.inFlightSince(index, longSinceMs, settings.scanMax());
            counters.inFlightRead(scan);
            runningLongest = scan.found();
        }
        for (TaskIndex.InFlight task : runningLongest) {
            String jobType = metrics.jobType(task.jobType());
            runningLong.merge(jobType, 1L, Long::sum);
            if (longest.size() < settings.longRunningListed()) { // oldest first: the first ones run longest
                longest.add(new PartitionSnapshot.Named(jobType, task.taskId(), task.executionId(), task.owner(),
                        (nowMs - task.firedAtMs()) / 1000.0));
            }
        }
        List<PartitionSnapshot.Named> listed = List.copyOf(longest);
        return new PartitionSnapshot(pending, overdue.count(), oldest, inFlight, runningLong, listed);
    }

    /** The execution a due timer is to start: a retry's is the task's current one, an occurrence's is made from its due time. */
    private static String executionIdOf(StoredTask task, WheelTimer timer) {
        if (task == null) {
            return null;
        }
        if (timer.kind() == TimerKind.RETRY) {
            return task.getExecution() == null ? null : task.getExecution().getExecutionId();
        }
        return ExecutionIds.of(task.getTaskId(), task.getIncarnation(), timer.dueAtMs());
    }

    private long count(TaskState state) {
        return counters.count(TaskIndex.BY_STATE, state.name());
    }

    /** The partition leaves this instance: its gauges go. */
    @Override
    public void close() {
        metrics.forget(partition);
    }
}
