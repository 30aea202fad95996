package io.ax.app.internal.schedule;

import io.ax.app.internal.inputs.InputWatermarks;
import io.ax.app.internal.lifecycle.Attempts;
import io.ax.app.internal.lifecycle.StateMachine;
import io.ax.app.internal.lifecycle.TimeOutSilentExecution;
import io.ax.app.internal.topology.SchedulerContext;
import io.ax.app.internal.wheel.TimerKind;
import io.ax.app.internal.wheel.WheelTimer;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;
import java.util.Optional;
import org.apache.kafka.streams.processor.Punctuator;

/**
 * The wall-clock punctuator. Each run fires the timers due by now, at most {@code ax.fire.batch.max}, highest
 * priority first, each in the stream task's exactly-once transaction:
 * <ul>
 *   <li>OCCURRENCE: PENDING → TRIGGERED, and a periodic task's next occurrence is timed;</li>
 *   <li>RETRY: RETRY_WAITING → TRIGGERED with attempt + 1 and the same executionId;</li>
 *   <li>TIMEOUT: a silent execution → TIMED_OUT ({@link TimeOutSilentExecution});</li>
 *   <li>PURGE: a finished task's retention ended: it leaves the store.</li>
 * </ul>
 *
 * <p>Never early: the wheel hands out only timers whose tick the clock has reached, and ticks round due
 * times up. A timer that no longer matches its task (cancelled, replaced, moved) is a stale copy: it is
 * removed from the index and otherwise ignored. Overlap policy: when a periodic occurrence comes due while
 * the previous execution is still in flight, the new one is SKIPPED.
 */
public final class FireDueTimers implements Punctuator {
    private final SchedulerContext ctx;
    private final Attempts attempts;
    private final TimeOutSilentExecution timeouts;
    private final InputWatermarks inputs;

    /** @param inputs how far the stream task's inputs are read, indexed {@link #REQUESTS}, {@link #RESULTS} */
    public FireDueTimers(SchedulerContext ctx, Attempts attempts, TimeOutSilentExecution timeouts, InputWatermarks inputs) {
        this.ctx = ctx;
        this.attempts = attempts;
        this.timeouts = timeouts;
        this.inputs = inputs;
    }

    /** Index of the requests topic in the {@link InputWatermarks} given to the constructor. */
    public static final int REQUESTS = 0;
    /** Index of the results topic in the {@link InputWatermarks} given to the constructor. */
    public static final int RESULTS = 1;

    /**
     * Decisions follow the log: a timer fires only up to the time its inputs have been read to. Occurrences,
     * retries and purges wait for the requests (a cancel acknowledged before the due time wins); timeouts also
     * wait for the reports (a report acknowledged before the deadline wins), held aside meanwhile so they do not
     * hold up the fires behind them.
     */
    @Override
    public void punctuate(long wallClockMs) {
        long firesUpToMs = inputs.readUpToMs(REQUESTS, wallClockMs);
        long timeoutsUpToMs = Math.min(firesUpToMs, inputs.readUpToMs(RESULTS, wallClockMs));
        int limit = ctx.settings().fireBatchMax();
        limit -= ctx.timers().fireHeld(timeoutsUpToMs, timer -> fire(timer, wallClockMs), limit);
        ctx.timers().fireDue(firesUpToMs, timer -> fireOrHold(timer, timeoutsUpToMs, wallClockMs), limit);
    }

    private void fireOrHold(WheelTimer timer, long timeoutsUpToMs, long nowMs) {
        if (timer.kind() == TimerKind.TIMEOUT && timer.dueAtMs() > timeoutsUpToMs) {
            ctx.timers().hold(timer);
            return;
        }
        fire(timer, nowMs);
    }

    private void fire(WheelTimer timer, long nowMs) {
        ctx.timers().fired(timer);
        StoredTask task = ctx.tasks().get(timer.taskId());
        if (task == null) {
            return;
        }
        switch (timer.kind()) {
            case OCCURRENCE -> maybeFireOccurrence(task, timer.dueAtMs(), nowMs);
            case RETRY -> maybeFireRetry(task, timer.dueAtMs(), nowMs);
            case TIMEOUT -> timeouts.maybeTimeOut(task, timer.dueAtMs(), nowMs);
            case PURGE -> ctx.tasks().maybePurge(task.getTaskId(), timer.dueAtMs());
        }
    }

    private void maybeFireOccurrence(StoredTask task, long dueAtMs, long nowMs) {
        if (task.getNextDueAtMs() == null || task.getNextDueAtMs() != dueAtMs) {
            return;
        }
        String executionId = ExecutionIds.of(task.getTaskId(), task.getIncarnation(), dueAtMs);
        StoredExecution previous = task.getExecution();
        if (previous != null && StateMachine.isInFlight(previous.getState())) {
            ctx.events().skipped(task, executionId, dueAtMs, "overlap: previous execution " + previous.getExecutionId()
                    + " is still " + previous.getState(), nowMs);
        } else {
            StoredExecution execution = StoredExecution.newBuilder()
                    .setExecutionId(executionId)
                    .setAttempt(1)
                    .setState(TaskState.PENDING)
                    .setDueAtMs(dueAtMs)
                    .setFiredAtMs(nowMs)
                    .setLastSignMs(nowMs)
                    .build();
            task.setExecution(attempts.dispatch(task, execution, TaskState.PENDING, null, nowMs));
        }
        // The task is this step's own decoded copy (TaskStore.get): changed in place, saved once.
        task.setOccurrences(task.getOccurrences() + 1);
        task.setNextDueAtMs(null);
        maybeTimeNextOccurrence(task, dueAtMs, nowMs);
        ctx.tasks().save(task, nowMs);
    }

    private void maybeFireRetry(StoredTask task, long dueAtMs, long nowMs) {
        StoredExecution execution = task.getExecution();
        if (execution == null || execution.getState() != TaskState.RETRY_WAITING || execution.getRetryAtMs() == null
                || execution.getRetryAtMs() != dueAtMs) {
            return;
        }
        int attempt = execution.getAttempt() + 1;
        StoredExecution next = StoredExecution.newBuilder(execution).setAttempt(attempt).build();
        String reason = "retry " + execution.getAttempt() + " of " + task.getRequest().getMaxRetries();
        ctx.tasks().saveExecution(task, attempts.dispatch(task, next, TaskState.RETRY_WAITING, reason, nowMs), nowMs);
    }

    private void maybeTimeNextOccurrence(StoredTask task, long dueAtMs, long nowMs) {
        Optional<Occurrences.Next> next = Occurrences.next(task.getRequest(), dueAtMs, nowMs);
        if (next.isEmpty()) {
            return;
        }
        long nextDueMs = next.get().dueAtMs();
        task.setNextDueAtMs(nextDueMs);
        if (next.get().skipped() > 0) {
            task.setOccurrences(task.getOccurrences() + next.get().skipped());
        }
        ctx.timers().set(nextDueMs, task.getRequest().getPriority(), task.getTaskId(), TimerKind.OCCURRENCE);
        ctx.events().pending(task, ExecutionIds.of(task.getTaskId(), task.getIncarnation(), nextDueMs), nextDueMs,
                next.get().skipped() > 0 ? next.get().skipped() + " occurrence(s) missed while late (misfire: fire once, then resume)" : null,
                nowMs);
    }
}
