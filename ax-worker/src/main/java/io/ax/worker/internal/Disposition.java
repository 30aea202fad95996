package io.ax.worker.internal;

/** What a {@link DispatchRunner} did with one dispatch record. */
public enum Disposition {
    /** The handler ran and its STARTED and final reports were handed to the sink. */
    RAN,
    /** A cancel signal; ignored for now. */
    CANCEL_IGNORED,
    /** No handler for the job type here; another worker group may own it. Not reported. */
    SKIPPED_UNKNOWN_JOB_TYPE,
    /** The value could not be decoded; reported FAILED (not retryable) when the headers allowed. */
    UNDECODABLE,
    /** Interrupted while waiting for the due time: nothing ran, nothing was reported; the record must be redelivered. */
    NOT_STARTED;

    /** Whether the record is dealt with, so its offset may be committed. */
    public boolean isFinal() {
        return this != NOT_STARTED;
    }
}
