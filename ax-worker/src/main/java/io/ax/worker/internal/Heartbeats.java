package io.ax.worker.internal;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Sends HEARTBEAT reports for running handlers from one timer thread. The interval is a third of the task's
 * timeout (so two beats may be lost before the scheduler times the attempt out), at least {@link #MIN_INTERVAL}.
 * Thread-safe.
 */
public final class Heartbeats implements AutoCloseable {
    static final Duration MIN_INTERVAL = Duration.ofMillis(100);
    static final Duration WITHOUT_TIMEOUT = Duration.ofSeconds(10);

    private final ScheduledExecutorService timer;

    public Heartbeats(String workerId) {
        this.timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "ax-heartbeat-" + workerId);
            thread.setDaemon(true);
            return thread;
        });
    }

    static Duration intervalFor(long timeoutMs) {
        if (timeoutMs <= 0) {
            return WITHOUT_TIMEOUT;
        }
        Duration third = Duration.ofMillis(timeoutMs / 3);
        return third.compareTo(MIN_INTERVAL) < 0 ? MIN_INTERVAL : third;
    }

    /** Calls {@code beat} every interval until the returned beat is stopped. */
    Beat start(long timeoutMs, Runnable beat) {
        Beat handle = new Beat(beat);
        long intervalMs = intervalFor(timeoutMs).toMillis();
        handle.future = timer.scheduleAtFixedRate(handle::beat, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
        return handle;
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }

    /** One running handler's heartbeats. After {@link #stop()} returns no beat is running or will run. */
    static final class Beat {
        private final Runnable send;
        private ScheduledFuture<?> future;
        private boolean stopped;

        private Beat(Runnable send) {
            this.send = send;
        }

        synchronized void beat() {
            beat(send);
        }

        /** Sends {@code report} instead of the plain heartbeat, unless stopped. */
        synchronized void beat(Runnable report) {
            if (!stopped) {
                report.run();
            }
        }

        synchronized void stop() {
            stopped = true;
            if (future != null) {
                future.cancel(false);
            }
        }
    }
}
