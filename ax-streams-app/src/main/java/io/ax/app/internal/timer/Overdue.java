package io.ax.app.internal.timer;

import io.ax.app.internal.core.TimerKind;

/**
 * A partition's dispatching timers due and not fired ({@link Timers#overdue}).
 *
 * @param count  how many, at most the bound asked for
 * @param oldest the most overdue, or null when none
 */
public record Overdue(long count, WheelTimer oldest) {

    static final class Counter {
        private final long nowMs;
        private final int max;
        private long count;
        private WheelTimer oldest;

        Counter(long nowMs, int max) {
            this.nowMs = nowMs;
            this.max = max;
        }

        void offer(WheelTimer timer) {
            boolean dispatches = timer.kind() == TimerKind.OCCURRENCE || timer.kind() == TimerKind.RETRY;
            if (!dispatches || timer.dueAtMs() > nowMs || full()) {
                return;
            }
            count++;
            if (oldest == null || timer.dueAtMs() < oldest.dueAtMs()) {
                oldest = timer;
            }
        }

        boolean full() {
            return count >= max;
        }

        Overdue result() {
            return new Overdue(count, oldest);
        }
    }
}
