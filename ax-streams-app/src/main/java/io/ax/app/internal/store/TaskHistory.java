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
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Per task, its last {@code maxEvents} state changes ({@code ax.history.max.events}), kept in the task record itself
 * ({@link StoredTask#getHistory()}, oldest first).
 *
 * <p>Why there: the history is read one task at a time ({@code GET /tasks/{id}}, {@code GET /executions/{id}}, the
 * console), always with the task, and written at every state change, which rewrites the task record anyway. So a
 * change costs no record, store write or changelog record of its own (a ring of keys beside the task cost four to six
 * changelog records per change), and the history moves, is restored and is purged with its task. {@code ax.state}
 * keeps every event whole; the history keeps the latest, with reasons cut to {@link #MAX_REASON_CHARS}, which bounds
 * what it adds to the task record: at the default 50 events about 50 × (60 + reason) bytes.
 *
 * <p>What the entry before says is not stored again: an entry about the same execution as the entry before it stores
 * {@link #AS_BEFORE} for its executionId (an id is 36 characters, and a one-shot task's four changes all name one
 * execution, so a task record rewritten at each of them carried it up to ten times), and one whose previous state is
 * the state the entry before went to stores {@link #AS_BEFORE} for its {@code from}. Readers resolve both with
 * {@link #of(StoredTask)} and {@link #executionIds(List)}; the oldest entry kept always says both itself.
 *
 * <p>Which events: the transitions of a task that exists after the decision (the decision saves it), including
 * PENDING and SKIPPED occurrences; not REJECTED or IGNORED input, which changes nothing and may name no stored task.
 * A task replaced under the same taskId keeps the history of the one it replaced.
 */
public final class TaskHistory {
    /** Longest reason (a failure message, a cancel reason) an entry keeps; the whole one is on ax.state. */
    public static final int MAX_REASON_CHARS = 256;
    /**
     * What an entry stores for its executionId when its execution is the entry before's (no execution id is empty), and
     * for its {@code from} when its previous state is the one the entry before went to (no state name is empty).
     */
    static final String AS_BEFORE = "";

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
        String lastExecutionId = null; // the last entry's execution, resolved
        String lastTo = null; // the state the last entry went to
        for (Effect effect : decision.effects()) {
            if (effect instanceof Effect.Event event && isStateChange(event.change())) {
                if (history == null) {
                    List<StoredHistoryEntry> base = task.getHistory().isEmpty() && priorHistory != null ? priorHistory : task.getHistory();
                    history = new ArrayList<>(Math.min(base.size() + 4, maxEvents + 4));
                    history.addAll(base);
                    lastExecutionId = executionIdAt(history, history.size() - 1);
                    lastTo = history.isEmpty() ? null : history.get(history.size() - 1).getTo();
                }
                StoredHistoryEntry entry = entryOf(event.change(), workerOf(task, event.change()));
                String executionId = entry.getExecutionId();
                if (executionId != null && executionId.equals(lastExecutionId)) {
                    entry.setExecutionId(AS_BEFORE);
                }
                if (entry.getFrom() != null && entry.getFrom().equals(lastTo)) {
                    entry.setFrom(AS_BEFORE);
                }
                lastExecutionId = executionId;
                lastTo = entry.getTo();
                history.add(entry);
            }
        }
        if (history == null) {
            if (task.getHistory().isEmpty() && priorHistory != null && !priorHistory.isEmpty()) {
                task.setHistory(priorHistory);
            }
            return;
        }
        if (history.size() > maxEvents) {
            int first = history.size() - maxEvents;
            StoredHistoryEntry oldest = history.get(first);
            if (AS_BEFORE.equals(oldest.getExecutionId()) || AS_BEFORE.equals(oldest.getFrom())) {
                // it says both itself once the entry before it has gone (a copy: the entry may be the stored task's)
                String from = AS_BEFORE.equals(oldest.getFrom()) ? history.get(first - 1).getTo() : oldest.getFrom();
                oldest = new StoredHistoryEntry(from, oldest.getTo(), oldest.getAtMs(), executionIdAt(history, first),
                        oldest.getAttempt(), oldest.getReason(), oldest.getWorkerId(), oldest.getDueAtMs());
            }
            history = new ArrayList<>(history.subList(first, history.size()));
            history.set(0, oldest);
        }
        task.setHistory(history);
    }

    /** The execution of the entry at {@code index}, resolved; null when it names none (or there is no entry). */
    private static String executionIdAt(List<StoredHistoryEntry> history, int index) {
        for (int i = index; i >= 0; i--) {
            String executionId = history.get(i).getExecutionId();
            if (!AS_BEFORE.equals(executionId)) {
                return executionId;
            }
        }
        return null;
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
        String previousExecutionId = null;
        String previousTo = null;
        for (StoredHistoryEntry stored : task.getHistory()) {
            String executionId = AS_BEFORE.equals(stored.getExecutionId()) ? previousExecutionId : stored.getExecutionId();
            String from = AS_BEFORE.equals(stored.getFrom()) ? previousTo : stored.getFrom();
            entries.add(HistoryEntry.of(stored, from, executionId));
            previousExecutionId = executionId;
            previousTo = stored.getTo();
        }
        return entries;
    }

    /** The executions a history names, each once, in a new set the caller may add to (empty for a null history). */
    public static Set<String> executionIds(List<StoredHistoryEntry> history) {
        Set<String> executions = new HashSet<>();
        if (history == null) {
            return executions;
        }
        for (StoredHistoryEntry stored : history) {
            String executionId = stored.getExecutionId();
            if (executionId != null && !AS_BEFORE.equals(executionId)) {
                executions.add(executionId);
            }
        }
        return executions;
    }
}
