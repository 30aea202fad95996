package io.ax.app.internal.health;

import java.util.ArrayDeque;
import java.util.Deque;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scheduler's uncaught-exception policy. A stream thread that dies once (a broker hiccup Streams could not
 * absorb) is replaced. One that keeps dying is not replaced for ever behind a state that still says RUNNING:
 * after {@code maxDeaths} deaths within {@code windowMs} this instance shuts down (state ERROR, the process
 * exits non-zero under {@code ./ax run}), so its partitions move to healthy instances and the operator sees it.
 * Inputs that would kill a thread are meant never to get this far: validation rejects them and the quarantine
 * handlers catch what escapes processing.
 *
 * <p>Thread-safe: stream threads die concurrently.
 */
public final class StreamThreadFailures implements StreamsUncaughtExceptionHandler {
    private static final Logger log = LoggerFactory.getLogger(StreamThreadFailures.class);

    private final Time time;
    private final int maxDeaths;
    private final long windowMs;
    private final Deque<Long> deathsMs = new ArrayDeque<>();

    public StreamThreadFailures(Time time, int maxDeaths, long windowMs) {
        if (maxDeaths < 1) {
            throw new IllegalArgumentException("maxDeaths must be >= 1: " + maxDeaths);
        }
        this.time = time;
        this.maxDeaths = maxDeaths;
        this.windowMs = windowMs;
    }

    @Override
    public synchronized StreamThreadExceptionResponse handle(Throwable exception) {
        long nowMs = time.milliseconds();
        deathsMs.addLast(nowMs);
        while (deathsMs.peekFirst() < nowMs - windowMs) {
            deathsMs.removeFirst();
        }
        if (deathsMs.size() >= maxDeaths) {
            log.error("A stream thread died {} times within {} s; shutting this scheduler instance down instead of "
                    + "replacing the thread again (its partitions move to the other instances). Last error:",
                    deathsMs.size(), windowMs / 1000, exception);
            return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        }
        log.error("A stream thread died ({} of at most {} within {} s); replacing it. Error:", deathsMs.size(), maxDeaths,
                windowMs / 1000, exception);
        return StreamThreadExceptionResponse.REPLACE_THREAD;
    }
}
