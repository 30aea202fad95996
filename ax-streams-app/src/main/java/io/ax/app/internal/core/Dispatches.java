package io.ax.app.internal.core;

import io.ax.schema.DispatchKind;
import io.ax.schema.DispatchTask;
import io.ax.schema.ScheduleRequest;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;

/** Builds the records of {@code ax.dispatch}. */
public final class Dispatches {
    private Dispatches() {
    }

    /**
     * Run the current attempt of {@code execution}, due at {@code attemptDueAtMs} (the occurrence's due time for a
     * first attempt, the retry time for a retry): the worker never starts it before then.
     */
    public static DispatchTask run(StoredTask task, StoredExecution execution, long attemptDueAtMs, long defaultTimeoutMs,
                                   long nowMs) {
        return build(task, execution, DispatchKind.RUN, attemptDueAtMs, defaultTimeoutMs, nowMs)
                .setPayload(task.getRequest().getPayload()).build();
    }

    /** A dispatch of {@code execution} with the occurrence's due time (for the dead letter). */
    public static DispatchTask run(StoredTask task, StoredExecution execution, long defaultTimeoutMs, long nowMs) {
        return run(task, execution, execution.getDueAtMs(), defaultTimeoutMs, nowMs);
    }

    /** Stop {@code execution} if a worker runs it. */
    public static DispatchTask cancel(StoredTask task, StoredExecution execution, long defaultTimeoutMs, long nowMs) {
        return build(task, execution, DispatchKind.CANCEL, execution.getDueAtMs(), defaultTimeoutMs, nowMs).build();
    }

    private static DispatchTask.Builder build(StoredTask task, StoredExecution execution, DispatchKind kind,
                                              long dueAtMs, long defaultTimeoutMs, long nowMs) {
        ScheduleRequest request = task.getRequest();
        return DispatchTask.newBuilder()
                .setKind(kind)
                .setTaskId(task.getTaskId())
                .setExecutionId(execution.getExecutionId())
                .setAttempt(execution.getAttempt())
                .setJobType(request.getJobType())
                .setPayload(null)
                .setDueAtMs(dueAtMs)
                .setFiredAtMs(nowMs)
                .setPriority(request.getPriority())
                .setOwner(request.getOwner())
                .setTimeoutMs(request.getHeartbeatTimeoutMs() != null ? request.getHeartbeatTimeoutMs()
                        : request.getTimeoutMs() != null ? request.getTimeoutMs() : defaultTimeoutMs)
                .setProgress(execution.getProgress())
                .setShard(execution.getShard())
                .setShards(execution.getShard() == null ? null : request.getShards());
    }
}
