package io.ax.app.internal.core;

import io.ax.schema.StoredExecution;
import io.ax.schema.TaskState;
import java.util.ArrayList;

/** New executions, built field by field: Avro's builder deep-copies each unset field's default from its schema. */
final class Executions {
    private Executions() {
    }

    /** The first attempt of an occurrence due at {@code dueAtMs}, PENDING, dispatched (and last heard of) at {@code nowMs}. */
    static StoredExecution first(String executionId, long dueAtMs, long nowMs) {
        // The schema's defaults: null for every optional field, empty arrays (a test compares with the builder's result).
        return new StoredExecution(executionId, 1, TaskState.PENDING, dueAtMs, nowMs, nowMs, null, new ArrayList<>(), null, null,
                null, null, null, null, null, new ArrayList<>(), null);
    }
}
