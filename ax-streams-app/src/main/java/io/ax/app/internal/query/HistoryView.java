package io.ax.app.internal.query;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ax.app.internal.store.HistoryEntry;
import io.ax.schema.TaskState;
import java.util.List;

/**
 * A task's history of state changes as the HTTP API shows it ({@code history}: oldest first, each {@code from, to, at,
 * executionId, attempt, dueAt, workerId, reason}), and an execution told from it alone: what {@code GET
 * /executions/{id}} answers for an execution that is no longer the task's latest.
 */
final class HistoryView {
    private HistoryView() {
    }

    static ArrayNode of(List<HistoryEntry> entries) {
        ArrayNode json = TaskView.MAPPER.createArrayNode();
        for (HistoryEntry entry : entries) {
            json.addObject().put("from", entry.from()).put("to", entry.to().name()).put("at", TaskView.instant(entry.atMs()))
                    .put("executionId", entry.executionId()).put("attempt", entry.attempt())
                    .put("dueAt", TaskView.instant(entry.dueAtMs())).put("workerId", entry.workerId())
                    .put("reason", entry.reason());
        }
        return json;
    }

    /**
     * Replaces the task view's {@code execution} and {@code attempts} (which describe the latest execution) by what the
     * history knows of {@code executionId}: its last state, highest attempt, due time, last worker and time fired, and
     * each failed attempt (an entry to RETRY_WAITING or FAILED, its reason as the message). {@code execution.fromHistory}
     * is true, and {@code execution.complete} says whether the history still holds the execution's first change (older
     * changes have left the ring of {@code ax.history.max.events}).
     */
    static void describeExecution(ObjectNode task, List<HistoryEntry> entries, String executionId) {
        ObjectNode execution = TaskView.MAPPER.createObjectNode();
        ArrayNode attempts = TaskView.MAPPER.createArrayNode();
        HistoryEntry last = null;
        boolean complete = false;
        int attempt = 0;
        String workerId = null;
        Long firedAtMs = null;
        for (HistoryEntry entry : entries) {
            if (!executionId.equals(entry.executionId())) {
                continue;
            }
            if (last == null) {
                complete = entry.from() == null || entry.to() == TaskState.PENDING;
            }
            last = entry;
            attempt = Math.max(attempt, entry.attempt() == null ? 0 : entry.attempt());
            workerId = entry.workerId() != null ? entry.workerId() : workerId;
            if (entry.to() == TaskState.TRIGGERED) {
                firedAtMs = entry.atMs();
            }
            if (entry.to() == TaskState.RETRY_WAITING || entry.to() == TaskState.FAILED) {
                attempts.addObject().put("attempt", entry.attempt()).put("at", TaskView.instant(entry.atMs()))
                        .put("timedOut", TaskState.TIMED_OUT.name().equals(entry.from()))
                        .put("retryable", entry.to() == TaskState.RETRY_WAITING ? Boolean.TRUE : null)
                        .put("workerId", entry.workerId()).put("message", entry.reason());
            }
        }
        if (last == null) {
            return;
        }
        execution.put("executionId", executionId);
        execution.put("attempt", attempt);
        execution.put("state", last.to().name());
        execution.put("dueAt", TaskView.instant(last.dueAtMs()));
        execution.put("firedAt", TaskView.instant(firedAtMs));
        execution.put("workerId", workerId);
        execution.put("lastChangeAt", TaskView.instant(last.atMs()));
        execution.put("fromHistory", true);
        execution.put("complete", complete);
        task.set("execution", execution);
        task.set("attempts", attempts);
    }
}
