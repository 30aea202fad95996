package io.ax.app.internal.store;

import io.ax.app.internal.core.StateMachine;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;

/**
 * What the secondary indexes know of one task (see {@link TaskIndex}): the fields a listing filters on, and the
 * latest executionId. Computed from the stored task before and after each decision, never stored; when it did not
 * change, no index is written.
 *
 * @param executionId the latest execution's id, or null before the first fire
 * @param nextDueAtMs the next occurrence's due time, or null when no occurrence is ahead
 * @param firedAtMs   while the task is in flight (TRIGGERED, RUNNING): when its current attempt was dispatched; else null
 */
public record IndexEntry(TaskState state, String jobType, String owner, String executionId, Long nextDueAtMs, Long firedAtMs) {

    public static IndexEntry of(StoredTask task) {
        TaskState state = stateOf(task);
        Long firedAtMs = isInFlight(state) && task.getExecution() != null ? task.getExecution().getFiredAtMs() : null;
        return new IndexEntry(state, task.getRequest().getJobType(), task.getRequest().getOwner(),
                task.getExecution() == null ? null : task.getExecution().getExecutionId(), task.getNextDueAtMs(), firedAtMs);
    }

    /** The states the in-flight gauges count (an attempt dispatched and not ended): TRIGGERED, RUNNING. */
    public static boolean isInFlight(TaskState state) {
        return state == TaskState.TRIGGERED || state == TaskState.RUNNING;
    }

    /**
     * The state of a task as a whole, which the query API shows and the state index files it under: CANCELLED when
     * cancelled; WAITING while it waits for the tasks its request names ({@code after}); the latest execution's state while it is in flight (TRIGGERED, RUNNING, RETRY_WAITING); PENDING while
     * an occurrence is ahead and none is in flight (so a periodic task whose last run failed is PENDING, its
     * {@code execution} telling how the last run ended); otherwise how the latest execution ended (SUCCESS, FAILED).
     */
    public static TaskState stateOf(StoredTask task) {
        if (task.getCancelled()) {
            return TaskState.CANCELLED;
        }
        if (task.getWaitTimeoutAtMs() != null) {
            return TaskState.WAITING;
        }
        TaskState execution = task.getExecution() == null ? null : task.getExecution().getState();
        if (!task.getSlices().isEmpty()) {
            // A sharded task: RUNNING while a slice runs, else the state of a slice in flight; else its occurrence's outcome.
            TaskState inFlight = null;
            for (io.ax.schema.StoredExecution slice : io.ax.app.internal.core.Shards.all(task)) {
                if (StateMachine.isInFlight(slice.getState()) && (inFlight == null || slice.getState() == TaskState.RUNNING)) {
                    inFlight = slice.getState();
                }
            }
            if (inFlight != null) {
                return inFlight;
            }
            if (task.getShardsOutcome() != null && task.getNextDueAtMs() == null) {
                return TaskState.valueOf(task.getShardsOutcome());
            }
        }
        if (execution != null && StateMachine.isInFlight(execution)) {
            return execution;
        }
        if (task.getNextDueAtMs() != null || execution == null) {
            return TaskState.PENDING;
        }
        return execution;
    }
}
