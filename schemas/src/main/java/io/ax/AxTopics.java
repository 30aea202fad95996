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
     * Exclusion calendars accepted by the scheduler (key = calendar name, value = the CalendarRequest, a tombstone when
     * deleted): compacted, read whole by every instance as a global store. Written by the scheduler only.
     */
    public String calendars() {
        return prefix + "calendars";
    }

    /**
     * Flow-control limits (compacted, key {@code type:<jobType>}, {@code owner:<owner>} or {@code owner:*}, value a
     * JSON object such as {@code {"maxInFlight":50}}, tombstone = no limit): read by every scheduler instance.
     */
    public String limits() {
        return prefix + "limits";
    }

    /** Internal: flow-control messages (acquire, release, started) keyed by gate key, read by the gates. */
    public String flow() {
        return prefix + "flow";
    }

    /** Internal: grants from the gates, keyed by taskId, read by the scheduler's task processor (co-partitioned). */
    public String flowGrants() {
        return prefix + "flow-grants";
    }

    /**
     * DependencySignal: the dependency protocol between the partitions of a task and of the tasks it waits for
     * (internal, written and read by the scheduler; see topology-docs/WORKFLOWS.md).
     */
    public String deps() {
        return prefix + "deps";
    }

    /**
     * Worker announcements (compacted, key = the worker's id, value a JSON announcement every heartbeat, a tombstone
     * when it leaves gracefully): written by workers, read by the scheduler's worker registry.
     */
    public String workers() {
        return prefix + "workers";
    }

    /** The topics the scheduler reads, which must share one partition count (and so must {@link #flowGrants()}). */
    public List<String> coPartitioned() {
        return List.of(requests(), results(), retry(), deps());
    }

    public List<String> all() {
        return List.of(requests(), dispatch(), results(), retry(), state(), deadLetter(), quarantine(), calendars(), limits(),
                flow(), flowGrants(), deps(), workers());
    }
}
