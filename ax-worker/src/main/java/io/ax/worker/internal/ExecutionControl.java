package io.ax.worker.internal;

/** What a running handler can ask of the worker through its {@link io.ax.worker.JobContext}. Thread-safe. */
public interface ExecutionControl {
    /** A control for contexts that run outside a worker: heartbeats go nowhere, nothing is cancelled. */
    ExecutionControl DETACHED = new ExecutionControl() {
        @Override
        public void heartbeat() {
        }

        @Override
        public boolean isCancelled() {
            return false;
        }

        @Override
        public void saveProgress(String progress) {
        }
    };

    /** Reports HEARTBEAT now. */
    void heartbeat();

    /**
     * Reports HEARTBEAT now, asking for {@code extendMs} more running time; a control that cannot ask reports a plain
     * heartbeat.
     */
    default void heartbeat(long extendMs) {
        heartbeat();
    }

    /** Whether a cancel signal arrived for this execution. */
    boolean isCancelled();

    /** Reports a HEARTBEAT carrying {@code progress}, which the next attempt of this execution gets back. */
    void saveProgress(String progress);
}
