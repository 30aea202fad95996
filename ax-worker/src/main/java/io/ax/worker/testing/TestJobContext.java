package io.ax.worker.testing;

import io.ax.schema.DispatchKind;
import io.ax.schema.DispatchTask;
import io.ax.worker.JobContext;
import io.ax.worker.internal.DispatchJobContext;
import io.ax.worker.internal.ExecutionControl;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link JobContext} for unit tests: build it with the fields the handler reads, then inspect how often the
 * handler called {@link #heartbeat()}, or {@link #cancel()} it from the test. Thread-safe.
 *
 * <p>It reads its fields through the worker's own context over the dispatch a scheduler would send with them, so
 * a handler sees what it sees in production: times to the millisecond, a fresh payload copy per call, a checkpoint
 * over the limit refused where it is saved.
 *
 * <pre>{@code
 * TestJobContext context = TestJobContext.builder("invoice-42").jobType("email").payload("{\"to\":\"a@b.c\"}").build();
 * assertThat(HandlerTester.create().run(handler, context)).isEqualTo(Result.success());
 * }</pre>
 */
public final class TestJobContext implements JobContext {
    private final JobContext dispatched;
    private final AtomicInteger heartbeats = new AtomicInteger();
    private final java.util.List<Duration> extensions = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final AtomicBoolean cancelled = new AtomicBoolean();
    private final List<String> savedProgress = new CopyOnWriteArrayList<>();

    private TestJobContext(Builder b) {
        long dueAtMs = b.dueAt.toEpochMilli();
        DispatchTask task = DispatchTask.newBuilder()
                .setKind(DispatchKind.RUN)
                .setTaskId(b.taskId)
                .setExecutionId(b.executionId != null ? b.executionId : b.taskId + "-execution")
                .setAttempt(b.attempt)
                .setJobType(b.jobType)
                .setPayload(b.payload == null ? null : ByteBuffer.wrap(b.payload))
                .setDueAtMs(dueAtMs)
                .setFiredAtMs(dueAtMs)
                .setPriority(b.priority)
                .setOwner(b.owner)
                .setTimeoutMs(b.timeout.toMillis())
                .setProgress(b.lastProgress)
                .setShard(b.shards > 1 ? b.shard : null)
                .setShards(b.shards > 1 ? b.shards : null)
                .build();
        this.dispatched = DispatchJobContext.of(task, new RecordingControl());
    }

    /** Starts a context for {@code taskId}; executionId defaults to {@code taskId + "-execution"}. */
    public static Builder builder(String taskId) {
        return new Builder(taskId);
    }

    /** Signals cancellation, as a cancel dispatch would (the worker also interrupts the handler's thread). */
    public void cancel() {
        cancelled.set(true);
    }

    /** The extensions the handler asked for with {@link #heartbeat(Duration)}, in order. */
    public java.util.List<Duration> extensions() {
        return java.util.List.copyOf(extensions);
    }

    /** How many times the handler called {@link #heartbeat()} or {@link #heartbeat(Duration)}. */
    public int heartbeats() {
        return heartbeats.get();
    }

    /** Every checkpoint the handler saved, oldest first. */
    public List<String> savedProgress() {
        return List.copyOf(savedProgress);
    }

    @Override
    public void heartbeat() {
        dispatched.heartbeat();
    }

    @Override
    public void heartbeat(Duration extend) {
        dispatched.heartbeat(extend);
    }

    @Override
    public boolean isCancelled() {
        return dispatched.isCancelled();
    }

    @Override
    public Optional<String> lastProgress() {
        return dispatched.lastProgress();
    }

    @Override
    public void saveProgress(String progress) {
        dispatched.saveProgress(progress);
    }

    @Override
    public String taskId() {
        return dispatched.taskId();
    }

    @Override
    public int shardIndex() {
        return dispatched.shardIndex();
    }

    @Override
    public int shardCount() {
        return dispatched.shardCount();
    }

    @Override
    public String executionId() {
        return dispatched.executionId();
    }

    @Override
    public int attempt() {
        return dispatched.attempt();
    }

    @Override
    public String jobType() {
        return dispatched.jobType();
    }

    @Override
    public byte[] payload() {
        return dispatched.payload();
    }

    @Override
    public String payloadAsString() {
        return dispatched.payloadAsString();
    }

    @Override
    public Instant dueAt() {
        return dispatched.dueAt();
    }

    @Override
    public String owner() {
        return dispatched.owner();
    }

    @Override
    public int priority() {
        return dispatched.priority();
    }

    @Override
    public Duration timeout() {
        return dispatched.timeout();
    }

    @Override
    public String toString() {
        return dispatched.toString();
    }

    /** Where the worker would send heartbeats and checkpoints and look for a cancel signal: this test's records. */
    private final class RecordingControl implements ExecutionControl {
        @Override
        public void heartbeat() {
            heartbeats.incrementAndGet();
        }

        @Override
        public void heartbeat(long extendMs) {
            heartbeats.incrementAndGet();
            extensions.add(Duration.ofMillis(extendMs));
        }

        @Override
        public boolean isCancelled() {
            return cancelled.get();
        }

        @Override
        public void saveProgress(String progress) {
            savedProgress.add(progress);
        }
    }

    /**
     * Builds a {@link TestJobContext}. Defaults: attempt 1, jobType "test", due at the epoch, priority 4, timeout 5 min.
     * Times are kept to the millisecond, as on the wire.
     */
    public static final class Builder {
        private final String taskId;
        private String executionId;
        private int attempt = 1;
        private String jobType = "test";
        private byte[] payload;
        private Instant dueAt = Instant.EPOCH;
        private String owner;
        private int priority = 4;
        private Duration timeout = Duration.ofMinutes(5);
        private String lastProgress;
        private int shard;
        private int shards = 1;

        private Builder(String taskId) {
            this.taskId = Objects.requireNonNull(taskId, "taskId");
        }

        public Builder executionId(String executionId) {
            this.executionId = Objects.requireNonNull(executionId, "executionId");
            return this;
        }

        public Builder attempt(int attempt) {
            if (attempt < 1) {
                throw new IllegalArgumentException("attempt must be >= 1: " + attempt);
            }
            this.attempt = attempt;
            return this;
        }

        public Builder jobType(String jobType) {
            this.jobType = Objects.requireNonNull(jobType, "jobType");
            return this;
        }

        public Builder payload(byte[] payload) {
            this.payload = payload == null ? null : payload.clone();
            return this;
        }

        /** The payload as UTF-8 text, e.g. JSON. */
        public Builder payload(String payload) {
            return payload(payload == null ? null : payload.getBytes(StandardCharsets.UTF_8));
        }

        public Builder dueAt(Instant dueAt) {
            this.dueAt = Objects.requireNonNull(dueAt, "dueAt");
            return this;
        }

        public Builder owner(String owner) {
            this.owner = owner;
            return this;
        }

        public Builder priority(int priority) {
            if (priority < 0 || priority > 9) {
                throw new IllegalArgumentException("priority must be 0-9: " + priority);
            }
            this.priority = priority;
            return this;
        }

        public Builder timeout(Duration timeout) {
            this.timeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /** The checkpoint an earlier attempt saved, as a retry would see it. */
        public Builder lastProgress(String lastProgress) {
            this.lastProgress = lastProgress;
            return this;
        }

        /** A slice of a sharded task: {@code shard} from 0 to {@code shards} - 1. */
        public Builder shard(int shard, int shards) {
            if (shards < 1 || shard < 0 || shard >= shards) {
                throw new IllegalArgumentException("shard must be in [0, shards) and shards >= 1: " + shard + "/" + shards);
            }
            this.shard = shard;
            this.shards = shards;
            return this;
        }

        public TestJobContext build() {
            return new TestJobContext(this);
        }
    }
}
