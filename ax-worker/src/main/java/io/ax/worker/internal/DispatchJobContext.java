package io.ax.worker.internal;

import io.ax.schema.DispatchTask;
import io.ax.worker.JobContext;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * A {@link JobContext} read once from a decoded {@link DispatchTask}, so handlers never see Avro types.
 * Its fields are immutable (the payload is copied in and out); heartbeats and the cancel flag go to the
 * worker through an {@link ExecutionControl}. (Not a record, because a record would expose its array.)
 */
public final class DispatchJobContext implements JobContext {
    private final DispatchTask task;
    private final byte[] payload;
    private final ExecutionControl control;

    private DispatchJobContext(DispatchTask task, byte[] payload, ExecutionControl control) {
        this.task = task;
        this.payload = payload;
        this.control = control;
    }

    /** Takes ownership of {@code task}: the caller must not change it afterwards. */
    public static DispatchJobContext of(DispatchTask task, ExecutionControl control) {
        return new DispatchJobContext(task, bytes(task.getPayload()), control);
    }

    @Override
    public void heartbeat() {
        control.heartbeat();
    }

    @Override
    public void heartbeat(Duration extend) {
        control.heartbeat(extendMs(extend));
    }

    /** {@code extend} in milliseconds, checked: positive, at least 1 ms. */
    static long extendMs(Duration extend) {
        java.util.Objects.requireNonNull(extend, "extend");
        if (extend.isNegative() || extend.isZero()) {
            throw new IllegalArgumentException("extend must be positive: " + extend);
        }
        return Math.max(1, extend.toMillis());
    }

    @Override
    public boolean isCancelled() {
        return control.isCancelled();
    }

    @Override
    public Optional<String> lastProgress() {
        return Optional.ofNullable(task.getProgress());
    }

    @Override
    public void saveProgress(String progress) {
        control.saveProgress(ProgressCheckpoint.check(progress));
    }

    @Override
    public String taskId() {
        return task.getTaskId();
    }

    @Override
    public String executionId() {
        return task.getExecutionId();
    }

    @Override
    public int attempt() {
        return task.getAttempt();
    }

    @Override
    public String jobType() {
        return task.getJobType();
    }

    @Override
    public byte[] payload() {
        return payload == null ? null : payload.clone();
    }

    @Override
    public String payloadAsString() {
        return payload == null ? null : new String(payload, StandardCharsets.UTF_8);
    }

    @Override
    public Instant dueAt() {
        return Instant.ofEpochMilli(task.getDueAtMs());
    }

    @Override
    public String owner() {
        return task.getOwner();
    }

    @Override
    public int priority() {
        return task.getPriority();
    }

    @Override
    public Duration timeout() {
        return Duration.ofMillis(task.getTimeoutMs());
    }

    @Override
    public int shardIndex() {
        return task.getShard() == null ? 0 : task.getShard();
    }

    @Override
    public int shardCount() {
        return task.getShard() == null || task.getShards() == null ? 1 : task.getShards();
    }

    @Override
    public String toString() {
        return "JobContext[taskId=" + taskId() + ", executionId=" + executionId() + ", attempt=" + attempt()
                + ", jobType=" + jobType() + ", dueAt=" + dueAt()
                + (task.getShard() == null ? "" : ", shard=" + shardIndex() + "/" + shardCount()) + "]";
    }

    private static byte[] bytes(ByteBuffer buffer) {
        if (buffer == null) {
            return null;
        }
        ByteBuffer view = buffer.duplicate();
        byte[] bytes = new byte[view.remaining()];
        view.get(bytes);
        return bytes;
    }
}
