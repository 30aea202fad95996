package io.ax.app.internal.core;

import io.ax.schema.SourceRecord;
import io.ax.schema.StateChange;
import io.ax.schema.TaskState;
import java.util.Objects;

/**
 * A state change under construction, with the setters of Avro's {@code StateChange.Builder}, built through the record's
 * all-arguments constructor: Avro's builder validates each value it is given against the field's schema and, in
 * {@code build}, looks up and deep-copies the default of each of the dozen optional fields left unset, ~1 % of the
 * stream thread for the one change an accepted request writes. Every field's default is null; {@code to} and
 * {@code atMs} have none, and building without them fails as Avro's builder does ({@code ChangeTest} compares the two).
 */
final class Change {
    private String taskId;
    private String executionId;
    private Integer attempt;
    private String from;
    private TaskState to;
    private Long atMs;
    private Long dueAtMs;
    private String jobType;
    private String reason;
    private SourceRecord source;
    private Long skipped;
    private Long lastDueAtMs;
    private String calendar;
    private Integer shard;
    private Integer shards;

    Change setTaskId(String taskId) {
        this.taskId = taskId;
        return this;
    }

    Change setExecutionId(String executionId) {
        this.executionId = executionId;
        return this;
    }

    Change setAttempt(Integer attempt) {
        this.attempt = attempt;
        return this;
    }

    Change setFrom(String from) {
        this.from = from;
        return this;
    }

    Change setTo(TaskState to) {
        this.to = to;
        return this;
    }

    Change setAtMs(long atMs) {
        this.atMs = atMs;
        return this;
    }

    Change setDueAtMs(Long dueAtMs) {
        this.dueAtMs = dueAtMs;
        return this;
    }

    Change setJobType(String jobType) {
        this.jobType = jobType;
        return this;
    }

    Change setReason(String reason) {
        this.reason = reason;
        return this;
    }

    Change setSource(SourceRecord source) {
        this.source = source;
        return this;
    }

    Change setSkipped(Long skipped) {
        this.skipped = skipped;
        return this;
    }

    Change setLastDueAtMs(Long lastDueAtMs) {
        this.lastDueAtMs = lastDueAtMs;
        return this;
    }

    Change setCalendar(String calendar) {
        this.calendar = calendar;
        return this;
    }

    Change setShard(Integer shard) {
        this.shard = shard;
        return this;
    }

    Change setShards(Integer shards) {
        this.shards = shards;
        return this;
    }

    StateChange build() {
        Objects.requireNonNull(to, "a state change needs its 'to'");
        Objects.requireNonNull(atMs, "a state change needs its 'atMs'");
        return new StateChange(taskId, executionId, attempt, from, to, atMs, dueAtMs, jobType, reason, source, skipped, lastDueAtMs,
                calendar, shard, shards);
    }
}
