package io.ax.app.internal.store;

import io.ax.app.internal.core.Decision;
import io.ax.app.internal.core.Effect;
import io.ax.schema.StateChange;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredHistoryEntry;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;
import io.ax.validation.Quote;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Per task, its last {@code maxEvents} state changes ({@code ax.history.max.events}), kept in the task record itself
 * ({@link StoredTask#getHistory()}, oldest first).
 *
 * <p>Why there: the history is read one task at a time ({@code GET /tasks/{id}}, {@code GET /executions/{id}}, the
 * console), always with the task, and written at every state change, which rewrites the task record anyway. So a
 * change costs no record, store write or changelog record of its own (a ring of keys beside the task cost four to six
 * changelog records per change), and the history moves, is restored and is purged with its task. {@code ax.state}
 * keeps every event whole; the history keeps the latest, with reasons cut to {@link #MAX_REASON_CHARS}, which bounds
 * what it adds to the task record: at the default 50 events about 50 × (100 + reason) bytes.
 *
 * <p>Which events: the transitions of a task that exists after the decision (the decision saves it), including
 * PENDING and SKIPPED occurrences; not REJECTED or IGNORED input, which changes nothing and may name no stored task.
 * A task replaced under the same taskId keeps the history of the one it replaced.
 */
public final class TaskHistory {
    /** Longest reason (a failure message, a cancel reason) an entry keeps; the whole one is on ax.state. */
    public static final int MAX_REASON_CHARS = 256;

    private final int maxEvents;

    public TaskHistory(int maxEvents) {
        if (maxEvents < 1) {
            throw new IllegalArgumentException("maxEvents must be >= 1: " + maxEvents);
        }
        this.maxEvents = maxEvents;
    }

    /**
     * Adds the decision's state changes to the history of the task it saves (a task built anew, as a REPLACE builds it,
     * starts from {@code priorHistory}); at most {@code maxEvents} are kept, the oldest leave first. A lowered setting
     * shrinks a history at its next change.
     */
    public void append(Decision decision, List<StoredHistoryEntry> priorHistory) {
        StoredTask task = decision.task();
        List<StoredHistoryEntry> history = null;
        for (Effect effect : decision.effects()) {
            if (effect instanceof Effect.Event event && isStateChange(event.change())) {
                if (history == null) {
                    List<StoredHistoryEntry> base = task.getHistory().isEmpty() && priorHistory != null ? priorHistory : task.getHistory();
                    history = new ArrayList<>(Math.min(base.size() + 4, maxEvents + 4));
                    history.addAll(base);
                }
                history.add(entryOf(event.change(), workerOf(task, event.change())));
            }
        }
        if (history == null) {
            if (task.getHistory().isEmpty() && priorHistory != null && !priorHistory.isEmpty()) {
                task.setHistory(priorHistory);
            }
            return;
        }
        if (history.size() > maxEvents) {
            history = new ArrayList<>(history.subList(history.size() - maxEvents, history.size()));
        }
        task.setHistory(history);
    }

    /** Transitions, PENDING and SKIPPED; not input that was refused or changed nothing. */
    static boolean isStateChange(StateChange change) {
        return change.getTo() != TaskState.REJECTED && change.getTo() != TaskState.IGNORED;
    }

    private static StoredHistoryEntry entryOf(StateChange change, String workerId) {
        return new StoredHistoryEntry(change.getFrom(), change.getTo().name(), change.getAtMs(), change.getExecutionId(),
                change.getAttempt(), Quote.truncate(change.getReason(), MAX_REASON_CHARS), workerId, change.getDueAtMs());
    }

    /** The task's worker of the event's attempt: the saved task's execution, when the event is about that attempt. */
    private static String workerOf(StoredTask task, StateChange change) {
        StoredExecution execution = task.getExecution();
        if (execution == null || !execution.getExecutionId().equals(change.getExecutionId())
                || !Objects.equals(execution.getAttempt(), change.getAttempt())) {
            return null;
        }
        return execution.getWorkerId();
    }

    // ---- readers (internal/query) ----

    /** The task's entries, oldest first; empty when it has none. At most {@code ax.history.max.events}. */
    public static List<HistoryEntry> of(StoredTask task) {
        List<HistoryEntry> entries = new ArrayList<>(task.getHistory().size());
        for (StoredHistoryEntry stored : task.getHistory()) {
            entries.add(HistoryEntry.of(stored));
        }
        return entries;
    }
}
