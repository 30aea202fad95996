package io.ax;

import java.util.List;
import java.util.Objects;

/**
 * The names of ax's topics: one prefix (default {@code ax.}) plus a fixed suffix each. Keys are taskIds on
 * every topic. {@code requests}, {@code results} and {@code retry} must be co-partitioned.
 */
public record AxTopics(String prefix) {
    public static final String DEFAULT_PREFIX = "ax.";

    public AxTopics {
        Objects.requireNonNull(prefix, "prefix");
    }

    public static AxTopics defaults() {
        return new AxTopics(DEFAULT_PREFIX);
    }

    /** ScheduleRequest / CancelRequest, from producers. */
    public String requests() {
        return prefix + "requests";
    }

    /** DispatchTask, to workers. */
    public String dispatch() {
        return prefix + "dispatch";
    }

    /** ExecutionReport, from workers. */
    public String results() {
        return prefix + "results";
    }

    /** RetryRecord: the RETRY_WAITING log. */
    public String retry() {
        return prefix + "retry";
    }

    /** StateChange as JSON, for operators. */
    public String state() {
        return prefix + "state";
    }

    /** Final dispatch plus error history of failed executions. */
    public String deadLetter() {
        return prefix + "dead-letter";
    }

    /**
     * Records Kafka Streams could not process or produce even so (the last line of defence behind input
     * validation): the input's key and value where they fit, with headers naming where it came from and why.
     */
    public String quarantine() {
        return prefix + "quarantine";
    }

    /**
     * DependencySignal: the dependency protocol between the partitions of a task and of the tasks it waits for
     * (internal, written and read by the scheduler; see topology-docs/WORKFLOWS.md).
     */
    public String deps() {
        return prefix + "deps";
    }

    /** The topics the scheduler reads, which must share one partition count. */
    public List<String> coPartitioned() {
        return List.of(requests(), results(), retry(), deps());
    }

    public List<String> all() {
        return List.of(requests(), dispatch(), results(), retry(), state(), deadLetter(), quarantine(), deps());
    }
}
