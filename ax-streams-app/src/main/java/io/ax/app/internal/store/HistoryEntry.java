package io.ax.app.internal.store;

import io.ax.schema.StoredHistoryEntry;
import io.ax.schema.TaskState;

/**
 * One state change of a task as its history ({@link TaskHistory}) keeps it: the event's own fields as written to
 * {@code ax.state}, the reason cut to {@link TaskHistory#MAX_REASON_CHARS}, and the worker that held the attempt where
 * the task store knew it.
 *
 * @param from        the previous state (a TaskState name), or null for a new execution
 * @param executionId the execution concerned (null only for events that have none)
 * @param attempt     the attempt concerned, or null
 * @param workerId    the reporting worker of that attempt, or null when no worker reported one (yet)
 * @param dueAtMs     the execution's due time, or null
 */
public record HistoryEntry(String from, TaskState to, long atMs, String executionId, Integer attempt, String reason,
                           String workerId, Long dueAtMs) {

    /** The stored entry, with its previous state and execution resolved by the caller (stored, either may say "as before"). */
    static HistoryEntry of(StoredHistoryEntry stored, String from, String executionId) {
        return new HistoryEntry(from, TaskState.valueOf(stored.getTo()), stored.getAtMs(), executionId,
                stored.getAttempt(), stored.getReason(), stored.getWorkerId(), stored.getDueAtMs());
    }
}
