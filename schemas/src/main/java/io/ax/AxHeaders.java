package io.ax;

/**
 * Header names on every {@code ax.dispatch} record (and, where they apply, on {@code ax.dead-letter} records), so a worker (or {@code kcat -f '%k %h'}) can route and
 * report without decoding the value. Values are UTF-8 text.
 */
public final class AxHeaders {
    /** {@code RUN}, or {@code CANCEL} for a cancel signal. */
    public static final String KIND = "ax-kind";
    /** The execution's id. */
    public static final String EXECUTION_ID = "ax-execution-id";
    /** The attempt number, decimal, from 1. */
    public static final String ATTEMPT = "ax-attempt";
    /** The job type. */
    public static final String JOB_TYPE = "ax-job-type";
    /** The due time, epoch milliseconds, decimal. A worker never starts the task before it. */
    public static final String DUE_AT = "ax-due-at";
    /**
     * Sharded tasks only: which slice this execution is, as {@code i/N} (i from 0 to N-1, N the task's {@code shards});
     * absent for a task that is not sharded.
     */
    public static final String SHARD = "ax-shard";
    /** On {@code ax.dead-letter} records: why the execution failed for good; on {@code ax.quarantine} records: the error. */
    public static final String ERROR = "ax-error";

    /** On {@code ax.quarantine} records: the input's topic (absent when a punctuation failed). */
    public static final String SOURCE_TOPIC = "ax-source-topic";
    /** On {@code ax.quarantine} records: the input's partition, decimal. */
    public static final String SOURCE_PARTITION = "ax-source-partition";
    /** On {@code ax.quarantine} records: the input's offset, decimal. */
    public static final String SOURCE_OFFSET = "ax-source-offset";
    /** On {@code ax.quarantine} records: the stream task (e.g. {@code 0_3}) that failed. */
    public static final String STREAM_TASK = "ax-stream-task";
    /** On {@code ax.quarantine} records of an output that could not be written: its topic and size in bytes. */
    public static final String OUTPUT_TOPIC = "ax-output-topic";
    public static final String OUTPUT_BYTES = "ax-output-bytes";

    private AxHeaders() {
    }

    /** The {@link #SHARD} header's value: {@code i/N}. */
    public static String shard(int shard, Integer shards) {
        return shard + "/" + (shards == null ? "?" : shards);
    }
}
