package io.ax.app.internal.core;

import io.ax.schema.ScheduleRequest;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;
import java.util.ArrayList;
import java.util.HashMap;

/**
 * New executions and tasks, and copies of executions, built field by field: Avro's builder looks up and deep-copies each
 * unset field's default from its schema (a concurrent map and a copy per field: 7% of an accept's CPU for the task
 * alone), and its copy of a record deep-copies every field.
 */
final class Executions {
    private Executions() {
    }

    /** The first attempt of an occurrence due at {@code dueAtMs}, PENDING, dispatched (and last heard of) at {@code nowMs}. */
    static StoredExecution first(String executionId, long dueAtMs, long nowMs) {
        // The schema's defaults: null for every optional field, empty arrays (a test compares with the builder's result).
        return new StoredExecution(executionId, 1, TaskState.PENDING, dueAtMs, nowMs, nowMs, null, new ArrayList<>(), null, null,
                null, null, null, null, null, new ArrayList<>(), null);
    }

    /**
     * A builder of a copy of {@code execution} that shares its fields' values: Avro's {@code newBuilder(execution)}
     * deep-copies each (a union resolved per optional field, the lists of errors and gates copied), 2 % of the stream
     * thread at 5,000 tasks/s for a copy of which one or two fields then change. Safe because no execution, and no list
     * of one, is changed in place once built (a list that changes is a new list: {@code RetryOrDeadLetter},
     * {@code Shards.compact}). Every field of the schema is copied ({@code ExecutionsTest} fails on one left out).
     */
    static StoredExecution.Builder copyOf(StoredExecution execution) {
        return StoredExecution.newBuilder()
                .setExecutionId(execution.getExecutionId())
                .setAttempt(execution.getAttempt())
                .setState(execution.getState())
                .setDueAtMs(execution.getDueAtMs())
                .setFiredAtMs(execution.getFiredAtMs())
                .setLastSignMs(execution.getLastSignMs())
                .setLastError(execution.getLastError())
                .setErrors(execution.getErrors() == null ? new ArrayList<>() : execution.getErrors()) // null: the default, as Avro's
                .setRetryAtMs(execution.getRetryAtMs())
                .setProgress(execution.getProgress())
                .setTimeoutAtMs(execution.getTimeoutAtMs())
                .setWorkerId(execution.getWorkerId())
                .setStartedAtMs(execution.getStartedAtMs())
                .setDeadlineAtMs(execution.getDeadlineAtMs())
                .setHeldSinceMs(execution.getHeldSinceMs())
                .setGates(execution.getGates() == null ? new ArrayList<>() : execution.getGates())
                .setShard(execution.getShard());
    }

    /** A task just accepted: nothing fired yet, every other field at the schema's default (a test compares with the builder). */
    static StoredTask newTask(String taskId, long incarnation, ScheduleRequest request, long acceptedAtMs, Long nextDueAtMs) {
        return new StoredTask(taskId, incarnation, request, acceptedAtMs, nextDueAtMs, 0L, null, false, null, null, false, null, null,
                new ArrayList<>(), null, null, new HashMap<>(), new ArrayList<>(), null, null, null, null, new ArrayList<>(), new HashMap<>(),
                null);
    }
}
