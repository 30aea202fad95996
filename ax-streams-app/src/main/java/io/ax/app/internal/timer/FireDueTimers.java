package io.ax.app.internal.timer;

import io.ax.app.internal.core.TimerKind;
import org.apache.kafka.common.utils.Time;

/**
 * The pump, run by the wall-clock punctuator. Each run hands the {@link TimerHandler} the timers due by now, at most
 * {@code ax.fire.batch.max}, highest priority first (in the scheduler the handler applies the rules' decision in the
 * stream task's exactly-once transaction). It knows nothing of the rules: calls go one way, the adapter's punctuator
 * to the pump, the pump to {@link Timers} and to the handler.
 *
 * <p>Never early: the wheel hands out only timers whose tick the clock has reached, and ticks round due times
 * up. Decisions follow the log: a timer is handed over only once its inputs are read up to its time
 * ({@link InputWatermarks}): occurrences, retries and purges wait for the requests (a cancel acknowledged
 * before the due time wins); timeouts also wait for the reports (a report acknowledged before the deadline
 * wins), held aside meanwhile so the fires behind them are not held up.
 *
 * <p>Bounded in time as well as in count: once a punctuation has fired for {@code ax.fire.budget.ms} of wall clock, the
 * timers it is still handed are deferred to the next one ({@link Timers#defer}), which the wake-up makes immediate. A
 * pass of the stream thread punctuates every partition before it commits, so without it a backlog due on a busy
 * machine kept one exactly-once transaction open past the producer's transaction timeout: the broker aborted it, the
 * thread was fenced, rejoined, and started over, again and again (a burst stalled so).
 */
public final class FireDueTimers {
    /** Index of the requests topic in the {@link InputWatermarks} given to the constructor. */
    public static final int REQUESTS = 0;
    /** Index of the results topic in the {@link InputWatermarks} given to the constructor. */
    public static final int RESULTS = 1;

    private final Timers timers;
    private final TimerHandler handler;
    private final InputWatermarks inputs;
    private final int fireBatchMax;
    private final long fireBudgetMs;
    private final Time time;
    /** Wall clock (of {@link #time}) after which this punctuation defers what it is handed instead of firing it. */
    private long deadlineMs;
    /** Timers handed to the handler by this punctuation. */
    private int fired;

    /**
     * @param time the clock of the budget {@code fireBudgetMs} (the wall clock of the punctuation comes as an argument)
     */
    public FireDueTimers(Timers timers, InputWatermarks inputs, int fireBatchMax, long fireBudgetMs, Time time, TimerHandler handler) {
        this.timers = timers;
        this.handler = handler;
        this.inputs = inputs;
        this.fireBatchMax = fireBatchMax;
        this.fireBudgetMs = fireBudgetMs;
        this.time = time;
    }

    /**
     * Fires what is due by {@code wallClockMs} and the inputs' watermarks, within the batch and the time budget.
     *
     * @return how many timers it handed to the handler (held and deferred ones not counted)
     */
    public int punctuate(long wallClockMs) {
        deadlineMs = time.milliseconds() + fireBudgetMs;
        fired = 0;
        long firesUpToMs = inputs.readUpToMs(REQUESTS, wallClockMs);
        long timeoutsUpToMs = Math.min(firesUpToMs, inputs.readUpToMs(RESULTS, wallClockMs));
        int limit = fireBatchMax - timers.fireHeld(timeoutsUpToMs, timer -> fire(timer, wallClockMs), fireBatchMax);
        timers.fireDue(firesUpToMs, timer -> fireOrHold(timer, timeoutsUpToMs, wallClockMs), limit);
        return fired;
    }

    private void fireOrHold(WheelTimer timer, long timeoutsUpToMs, long nowMs) {
        if (time.milliseconds() >= deadlineMs) {
            timers.defer(timer); // out of time: first at the next punctuation, which comes at once
            return;
        }
        if (timer.kind() == TimerKind.TIMEOUT && timer.dueAtMs() > timeoutsUpToMs) {
            timers.hold(timer);
            return;
        }
        fire(timer, nowMs);
    }

    private void fire(WheelTimer timer, long nowMs) {
        timers.fired(timer);
        fired++;
        handler.fire(timer, nowMs);
    }
}
