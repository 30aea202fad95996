package io.ax.app.internal.topology;

import io.ax.AxMdc;
import io.ax.app.internal.core.Decision;
import io.ax.app.internal.core.Effect;
import io.ax.app.internal.core.Input;
import io.ax.app.internal.core.Rules;
import io.ax.app.internal.store.IndexEntry;
import io.ax.app.internal.metrics.PartitionMetrics;
import io.ax.app.internal.store.TaskHistory;
import io.ax.app.internal.store.TaskIndex;
import io.ax.app.internal.store.TaskStore;
import io.ax.app.internal.timer.Timers;
import io.ax.schema.DeadLetter;
import io.ax.schema.DispatchKind;
import io.ax.schema.DispatchTask;
import io.ax.schema.ReportStatus;
import io.ax.schema.StateChange;
import io.ax.schema.StoredHistoryEntry;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;
import io.ax.validation.Quote;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Applies a {@link Decision} of the rules to one stream task's world: its effects in order (timers, dispatch,
 * state, retry and dead-letter records, flow messages, dependency signals, calendars), then the task store with its history of state changes ({@link TaskHistory}, in
 * the task record) and its indexes ({@link TaskIndex}), which so stay exact: every save and delete of a task goes
 * through here. The only code that turns decisions into Kafka Streams writes; each effect is logged with its taskId and
 * executionId.
 *
 * <p>The task is read and decoded once per decision ({@link #decide}); what the index needs of the task as it was is
 * taken from that same object before the rules change it, so the index is written without being read.
 */
final class ApplyDecisions {
    private static final Logger log = LoggerFactory.getLogger(ApplyDecisions.class);
    /** MDC keys set while a decision is applied: the same as the worker's, so one grep follows an execution through both. */
    static final String MDC_TASK_ID = AxMdc.TASK_ID;
    static final String MDC_EXECUTION_ID = AxMdc.EXECUTION_ID;
    /** Longest reason a dead-letter line quotes (the whole one is on ax.dead-letter and ax.state). */
    static final int DEAD_LETTER_REASON_CHARS = 300;

    private final TaskStore tasks;
    private final TaskIndex index;
    private final Timers timers;
    private final Outputs outputs;
    private final PartitionMetrics metrics;
    private final TaskHistory history;
    private Dependencies dependencies;

    ApplyDecisions(TaskStore tasks, TaskIndex index, TaskHistory history, Timers timers, Outputs outputs,
                   PartitionMetrics metrics) {
        this.tasks = tasks;
        this.index = index;
        this.history = history;
        this.timers = timers;
        this.outputs = outputs;
        this.metrics = metrics;
    }

    /** Where the dependency effects go (set once, by the processor that owns both). */
    void dependencies(Dependencies dependencies) {
        this.dependencies = dependencies;
    }

    /**
     * Decides {@code input} against the task as stored ({@code current}, null when there is none) and applies the
     * decision; see {@link #apply} for {@code input}.
     */
    void decide(Rules rules, StoredTask current, Input decided, long nowMs) {
        IndexEntry before = current == null ? null : IndexEntry.of(current);
        List<StoredHistoryEntry> priorHistory = current == null ? List.of() : current.getHistory();
        apply(rules.decide(current, decided, nowMs), before, priorHistory, nowMs, decided.label(), decided);
    }

    /** Applies a decision that leaves the task store as it is (a rejection of bad input). */
    void apply(Decision decision, long nowMs, String input) {
        if (decision.store() != Decision.Store.UNCHANGED) {
            throw new IllegalArgumentException("a decision that writes the task store is applied through decide: " + decision.store());
        }
        apply(decision, null, List.of(), nowMs, input, null);
    }

    /**
     * @param input what the decision answers, as the metrics name it: {@code schedule}, {@code cancel}, {@code trigger},
     *              {@code replay}, {@code adopt}, {@code pause}, {@code resume}, {@code calendar} (requests), {@code request} (a record of the requests topic that is none
     *              of these), {@code report}, {@code retry}, {@code timer}, {@code grant}, {@code dependency} (a NOTIFY, or a
     *              record of ax.deps that is no signal), {@code subscription}
     * @param decided the input the decision answers (null: a record rejected before it became one); a report's STARTED
     *                may start an execution, and a request accepted is counted
     */
    private void apply(Decision decision, IndexEntry before, List<StoredHistoryEntry> priorHistory, long nowMs, String input,
                       Input decided) {
        String executionId = executionOf(decision);
        MDC.put(MDC_TASK_ID, io.ax.validation.Quote.key(decision.taskId())); // quoted short: a rejected record's key may be anything
        if (executionId != null) {
            MDC.put(MDC_EXECUTION_ID, io.ax.validation.Quote.key(executionId));
        }
        try {
            applyEffects(decision, before, priorHistory, nowMs, input, decided);
        } finally {
            MDC.remove(MDC_TASK_ID);
            MDC.remove(MDC_EXECUTION_ID);
        }
    }

    /** The execution a decision is about: the task's current one, else the one its events name (a PENDING occurrence). */
    private static String executionOf(Decision decision) {
        StoredTask task = decision.task();
        if (task != null && task.getExecution() != null) {
            return task.getExecution().getExecutionId();
        }
        for (Effect effect : decision.effects()) {
            if (effect instanceof Effect.Event event && event.change().getExecutionId() != null) {
                return event.change().getExecutionId();
            }
        }
        return null;
    }

    /** The owner of the task a decision saves, whose timers share a backlog with other owners' in turns. */
    private static String ownerOf(Decision decision) {
        StoredTask task = decision.task();
        return task == null || task.getRequest() == null ? null : task.getRequest().getOwner();
    }

    private void applyEffects(Decision decision, IndexEntry before, List<StoredHistoryEntry> priorHistory, long nowMs,
                              String input, Input decided) {
        Input.Report report = decided instanceof Input.Report r ? r : null;
        boolean refused = false;
        for (Effect effect : decision.effects()) {
            if (effect instanceof Effect.SetTimer set) {
                timers.set(set.dueAtMs(), set.priority(), set.taskId(), set.kind(), ownerOf(decision));
            } else if (effect instanceof Effect.UnsetTimer unset) {
                timers.unset(unset.dueAtMs(), unset.taskId(), unset.kind());
            } else if (effect instanceof Effect.Dispatch dispatch) {
                outputs.dispatch(dispatch.task(), nowMs);
                if (dispatch.task().getKind() == DispatchKind.RUN) {
                    metrics.fired(dispatch.task(), nowMs - dispatch.task().getDueAtMs());
                }
            } else if (effect instanceof Effect.Event event) {
                logEvent(event.change());
                outputs.state(event.change());
                metrics.observe(event.change(), event.code(), decision.task(), input);
                maybeObserveStart(event.change(), decision.task(), report, nowMs);
                refused |= event.change().getTo() == TaskState.REJECTED || event.change().getTo() == TaskState.IGNORED;
            } else if (effect instanceof Effect.Retry retry) {
                outputs.retry(retry.taskId(), retry.record(), nowMs);
            } else if (effect instanceof Effect.Flow flow) {
                outputs.flow(flow.message(), nowMs);
            } else if (effect instanceof Effect.DeadLetter letter) {
                outputs.deadLetter(letter.letter(), nowMs);
                metrics.deadLettered(letter.letter());
                logDeadLetter(letter.letter());
            } else if (effect instanceof Effect.PublishCalendar calendar) {
                outputs.calendar(calendar.name(), calendar.request(), nowMs);
            } else if (effect instanceof Effect.CalendarAccepted accepted) {
                log.info("Calendar {}: {}", accepted.name(), accepted.reason());
                outputs.calendarAccepted(accepted.name(), accepted.reason(), accepted.source(), nowMs);
            } else if (effect instanceof Effect.KeepSubscriber keep) {
                dependencies.keepSubscriber(keep.upstream(), keep.dependent(), keep.everyOccurrence());
            } else if (effect instanceof Effect.ForgetSubscriber forget) {
                dependencies.forgetSubscriber(forget.upstream(), forget.dependent(), forget.everyOccurrence());
            } else if (effect instanceof Effect.Signal signal) {
                outputs.deps(signal.key(), signal.signal());
            } else if (effect instanceof Effect.OweSweep owe) {
                dependencies.oweSweep(owe.upstream(), owe.sweep());
            } else if (effect instanceof Effect.OweOccurrenceSweep owe) {
                dependencies.oweOccurrenceSweep(owe.upstream(), owe.sweep());
            } else if (effect instanceof Effect.LeaveTombstone tombstone) {
                dependencies.tombstone(tombstone.upstream(), tombstone.purgedAtMs());
            } else if (effect instanceof Effect.ForgetTombstone forget) {
                dependencies.forgetTombstone(forget.upstream(), forget.purgedAtMs());
            }
        }
        if (!refused && decided instanceof Input.Request) {
            metrics.accepted(input);
        }
        switch (decision.store()) {
            case SAVE -> {
                history.append(decision, priorHistory);
                tasks.put(decision.task());
                index.save(before, priorHistory, decision.task());
            }
            case DELETE -> {
                tasks.remove(decision.taskId());
                index.remove(before, priorHistory, decision.taskId());
            }
            case DISCARD -> {
                tasks.remove(decision.taskId());
                index.remove(before, priorHistory, decision.taskId());
            }
            case UNCHANGED -> { }
        }
    }

    /**
     * A report took the execution from TRIGGERED to RUNNING: its dispatch-to-start wait is observed, to the start time a
     * STARTED report carries (by its worker's clock; null when it gives none, and for another status).
     */
    private void maybeObserveStart(StateChange change, StoredTask task, Input.Report report, long nowMs) {
        if (report != null && change.getTo() == TaskState.RUNNING && TaskState.TRIGGERED.name().equals(change.getFrom())) {
            Long reportedStartMs = report.report().getStatus() == ReportStatus.STARTED ? report.report().getReportedAtMs() : null;
            metrics.started(change, task, reportedStartMs, nowMs);
        }
    }

    /**
     * One WARN line per dead letter, naming the execution, its task and owner (the alert on ax_dead_letters_total can
     * only name the job type): every value from a producer or worker quoted short ({@link Quote}), the reason cut.
     */
    private static void logDeadLetter(DeadLetter letter) {
        DispatchTask dispatch = letter.getDispatch();
        log.warn("Dead letter taskId={} executionId={} owner={} jobType={} attempt={}: {}", Quote.of(dispatch.getTaskId()),
                Quote.of(dispatch.getExecutionId()), Quote.of(letter.getOwner()), Quote.of(dispatch.getJobType()),
                dispatch.getAttempt(), oneLine(Quote.truncate(letter.getReason(), DEAD_LETTER_REASON_CHARS)));
    }

    /** A worker's error message may hold line breaks: one line per dead letter. */
    private static String oneLine(String text) {
        return text == null ? null : text.replaceAll("\\p{Cntrl}", "?");
    }

    private static void logEvent(StateChange change) {
        if (change.getTo() == TaskState.REJECTED) {
            log.warn("Rejected record taskId={} from {}-{}@{}: {}", change.getTaskId(), change.getSource().getTopic(),
                    change.getSource().getPartition(), change.getSource().getOffset(), change.getReason());
        } else if (log.isDebugEnabled()) {
            log.debug("taskId={} executionId={} attempt={} {} -> {} {}", change.getTaskId(), change.getExecutionId(),
                    change.getAttempt(), change.getFrom(), change.getTo(), change.getReason() == null ? "" : change.getReason());
        }
    }
}
