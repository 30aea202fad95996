package io.ax.app.internal.schedule;

import io.ax.app.internal.lifecycle.StateMachine;
import io.ax.app.internal.topology.SchedulerContext;
import io.ax.app.internal.wheel.WheelTimer;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;
import java.util.Optional;
import org.apache.kafka.streams.processor.Punctuator;

/**
 * PENDING → TRIGGERED: the wall-clock punctuator. Each run fires the timers due by now (at most
 * {@code ax.fire.batch.max}, highest priority first): writes the dispatch, records the execution, and
 * times a periodic task's next occurrence, all in the stream task's exactly-once transaction.
 *
 * <p>Never early: the wheel hands out only timers whose tick the clock has reached, and ticks round due
 * times up. A timer whose task was cancelled or replaced since it was set is a stale copy and is dropped.
 * Overlap policy: when a periodic occurrence comes due while the previous execution is still in flight,
 * the new one is SKIPPED.
 */
public final class FireDueTimers implements Punctuator {
    private final SchedulerContext ctx;

    public FireDueTimers(SchedulerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void punctuate(long wallClockMs) {
        ctx.timers().fireDue(wallClockMs, timer -> fire(timer, wallClockMs), ctx.settings().fireBatchMax());
    }

    private void fire(WheelTimer timer, long nowMs) {
        StoredTask task = ctx.tasks().get(timer.taskId());
        if (task == null || task.getNextDueAtMs() == null || task.getNextDueAtMs() != timer.dueAtMs()) {
            return;
        }
        ctx.timers().fired(timer);
        long dueAtMs = timer.dueAtMs();
        String executionId = ExecutionIds.of(task.getTaskId(), task.getIncarnation(), dueAtMs);
        StoredTask.Builder updated = StoredTask.newBuilder(task).setOccurrences(task.getOccurrences() + 1).setNextDueAtMs(null);
        StoredExecution previous = task.getExecution();
        if (previous != null && StateMachine.isInFlight(previous.getState())) {
            ctx.events().skipped(task, executionId, dueAtMs, "overlap: previous execution " + previous.getExecutionId()
                    + " is still " + previous.getState(), nowMs);
        } else {
            updated.setExecution(dispatch(task, executionId, dueAtMs, nowMs));
        }
        maybeTimeNextOccurrence(task, updated, dueAtMs, nowMs);
        ctx.tasks().put(task.getTaskId(), updated.build());
    }

    private StoredExecution dispatch(StoredTask task, String executionId, long dueAtMs, long nowMs) {
        StoredExecution execution = StoredExecution.newBuilder()
                .setExecutionId(executionId)
                .setAttempt(1)
                .setState(TaskState.TRIGGERED)
                .setDueAtMs(dueAtMs)
                .setFiredAtMs(nowMs)
                .setLastSignMs(nowMs)
                .setLastError(null)
                .build();
        ctx.outputs().dispatch(Dispatches.run(task, execution, ctx.settings().defaultTimeoutMs(), nowMs), nowMs);
        ctx.events().transition(task, execution, TaskState.PENDING, null, nowMs);
        return execution;
    }

    private void maybeTimeNextOccurrence(StoredTask task, StoredTask.Builder updated, long dueAtMs, long nowMs) {
        Optional<Occurrences.Next> next = Occurrences.next(task.getRequest(), dueAtMs, nowMs);
        if (next.isEmpty()) {
            return;
        }
        long nextDueMs = next.get().dueAtMs();
        updated.setNextDueAtMs(nextDueMs);
        if (next.get().skipped() > 0) {
            updated.setOccurrences(updated.getOccurrences() + next.get().skipped());
        }
        ctx.timers().set(nextDueMs, task.getRequest().getPriority(), task.getTaskId());
        ctx.events().pending(task, ExecutionIds.of(task.getTaskId(), task.getIncarnation(), nextDueMs), nextDueMs,
                next.get().skipped() > 0 ? next.get().skipped() + " occurrence(s) missed while late (misfire: fire once, then resume)" : null,
                nowMs);
    }
}
