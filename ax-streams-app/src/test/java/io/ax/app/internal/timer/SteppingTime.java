package io.ax.app.internal.timer;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.kafka.common.utils.Time;

/** A wall clock and a monotonic clock that a test moves, together or apart (a clock step moves only the wall clock). */
public final class SteppingTime implements Time {
    private final long startMs;
    private final AtomicLong wallMs;
    private final AtomicLong nanos;

    /** Both clocks at their start: the wall clock at {@code wallMs}, the monotonic one at {@code nanos}. */
    public SteppingTime(long wallMs, long nanos) {
        this.startMs = wallMs;
        this.wallMs = new AtomicLong(wallMs);
        this.nanos = new AtomicLong(nanos);
    }

    /** Moves the wall clock by {@code wallDeltaMs} and the monotonic clock by {@code monotonicDeltaMs}. */
    public void move(long wallDeltaMs, long monotonicDeltaMs) {
        wallMs.addAndGet(wallDeltaMs);
        nanos.addAndGet(monotonicDeltaMs * 1_000_000);
    }

    @Override
    public long milliseconds() {
        return wallMs.get();
    }

    @Override
    public long nanoseconds() {
        return nanos.get();
    }

    @Override
    public void sleep(long ms) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void waitObject(Object obj, Supplier<Boolean> condition, long deadlineMs) {
        throw new UnsupportedOperationException();
    }

    @Override
    public String toString() {
        return "SteppingTime(wall " + (wallMs.get() - startMs) + " ms after its start)";
    }
}
