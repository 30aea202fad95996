package io.ax.app.internal.core;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * Execution ids are deterministic: a name-based UUID of (taskId, incarnation, due time). Re-processing the
 * same input yields the same id, and a task re-created under the same taskId (a new incarnation, the
 * offset of its request) never reuses an old one, so workers' idempotency keys stay sound.
 */
public final class ExecutionIds {
    private ExecutionIds() {
    }

    public static String of(String taskId, long incarnation, long dueAtMs) {
        String name = "ax-execution\n" + taskId + "\n" + incarnation + "\n" + dueAtMs;
        return UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8)).toString();
    }
}
