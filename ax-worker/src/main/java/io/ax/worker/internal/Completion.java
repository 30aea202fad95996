package io.ax.worker.internal;

/** How an {@link Execution} ended, handed from its handler thread to the poll loop. */
record Completion(Execution execution, Kind kind) {
    enum Kind {
        /** Ran (or was answered without running) and every report is acknowledged: the offset may be committed. */
        DONE,
        /** Stopped before its due time by a shutdown: nothing ran, nothing was reported; leave it for redelivery. */
        NOT_STARTED,
        /**
         * A report was not acknowledged: run it again after a backoff (the idempotency guard answers for an effect
         * already done).
         */
        NOT_ACKNOWLEDGED,
        /** The handler threw a {@link VirtualMachineError}: stop the worker without committing. */
        WORKER_ERROR
    }
}
