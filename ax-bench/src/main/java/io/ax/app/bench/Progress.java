package io.ax.app.bench;

import java.io.PrintStream;
import java.time.Clock;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Prints a status line about once a second while a phase runs ({@code [bench 12.0s] burst: 51234/100000
 * pending}), so a long run shows it is alive. Close it when the phase ends.
 */
public final class Progress implements AutoCloseable {
    private final ScheduledExecutorService timer;

    private Progress(ScheduledExecutorService timer) {
        this.timer = timer;
    }

    /** Starts printing {@code status} to {@code out} every second, stamped with seconds since {@code startMs}. */
    public static Progress every1s(PrintStream out, Clock clock, long startMs, Supplier<String> status) {
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "bench-progress");
            thread.setDaemon(true);
            return thread;
        });
        timer.scheduleAtFixedRate(() -> {
            try {
                out.printf("[bench %6.1fs] %s%n", (clock.millis() - startMs) / 1000.0, status.get());
            } catch (RuntimeException e) {
                out.println("[bench] progress failed: " + e);
            }
        }, 1, 1, TimeUnit.SECONDS);
        return new Progress(timer);
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
