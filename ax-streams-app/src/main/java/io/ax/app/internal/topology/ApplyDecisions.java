package io.ax.app.internal.topology;

import io.ax.app.internal.core.Decision;
import io.ax.app.internal.core.Effect;
import io.ax.app.internal.metrics.FireLateness;
import io.ax.app.internal.store.TaskHistory;
import io.ax.app.internal.store.TaskIndex;
import io.ax.app.internal.store.TaskStore;
import io.ax.app.internal.timer.Timers;
import io.ax.schema.DispatchKind;
import io.ax.schema.StateChange;
import io.ax.schema.TaskState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies a {@link Decision} of the rules to one stream task's world: its effects in order (timers, dispatch,
 * state, retry and dead-letter records), then the task store, its indexes ({@link TaskIndex}) and its history of state
 * changes ({@link TaskHistory}), which so stay exact: every save and delete of a task goes through here. The only code
 * that turns decisions into Kafka Streams writes; each effect is logged with its taskId and executionId.
 */
final class ApplyDecisions {
    private static final Logger log = LoggerFactory.getLogger(ApplyDecisions.class);

    private final TaskStore tasks;
    private final TaskIndex index;
    private final Timers timers;
    private final Outputs outputs;
    private final FireLateness fireLateness;
    private final TaskHistory history;

    ApplyDecisions(TaskStore tasks, TaskIndex index, TaskHistory history, Timers timers, Outputs outputs,
                   FireLateness fireLateness) {
        this.tasks = tasks;
        this.index = index;
        this.history = history;
        this.timers = timers;
        this.outputs = outputs;
        this.fireLateness = fireLateness;
    }

    void apply(Decision decision, long nowMs) {
        for (Effect effect : decision.effects()) {
            if (effect instanceof Effect.SetTimer set) {
                timers.set(set.dueAtMs(), set.priority(), set.taskId(), set.kind());
            } else if (effect instanceof Effect.UnsetTimer unset) {
                timers.unset(unset.dueAtMs(), unset.taskId(), unset.kind());
            } else if (effect instanceof Effect.Dispatch dispatch) {
                outputs.dispatch(dispatch.task(), nowMs);
                if (dispatch.task().getKind() == DispatchKind.RUN) {
                    fireLateness.record(dispatch.task().getDueAtMs(), nowMs);
                }
            } else if (effect instanceof Effect.Event event) {
                logEvent(event.change());
                outputs.state(event.change());
            } else if (effect instanceof Effect.Retry retry) {
                outputs.retry(retry.taskId(), retry.record(), nowMs);
            } else if (effect instanceof Effect.DeadLetter letter) {
                outputs.deadLetter(letter.letter(), nowMs);
            }
        }
        switch (decision.store()) {
            case SAVE -> {
                tasks.put(decision.task());
                index.save(decision.task());
            }
            case DELETE -> {
                tasks.remove(decision.taskId());
                index.remove(decision.taskId());
            }
            case UNCHANGED -> { }
        }
        history.record(decision);
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
