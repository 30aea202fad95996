package io.ax.app.internal.core;

import static io.ax.schema.TaskState.CANCELLED;
import static io.ax.schema.TaskState.FAILED;
import static io.ax.schema.TaskState.PENDING;
import static io.ax.schema.TaskState.RETRY_WAITING;
import static io.ax.schema.TaskState.RUNNING;
import static io.ax.schema.TaskState.SUCCESS;
import static io.ax.schema.TaskState.TIMED_OUT;
import static io.ax.schema.TaskState.TRIGGERED;
import static io.ax.schema.TaskState.WAITING;

import io.ax.schema.ReportStatus;
import io.ax.schema.TaskState;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The execution state machine of DESIGN.md as one table: the only legal transitions, and what each state is.
 * Every state change the rules make goes through {@link #requireLegal}; every question about a state (final?
 * in flight? can it time out? where does a report lead?) is answered from this table.
 *
 * <pre>
 * (new)          → PENDING                                                   waiting for its due time
 * (new)          → WAITING                                                   waiting for the tasks it names (after)
 * WAITING        → PENDING, CANCELLED                                        conditions met; or unmet, timed out, cancelled
 * PENDING        → TRIGGERED, CANCELLED
 * TRIGGERED      → RUNNING, SUCCESS, RETRY_WAITING, FAILED, TIMED_OUT, CANCELLED     in flight
 * RUNNING        → SUCCESS, RETRY_WAITING, FAILED, TIMED_OUT, CANCELLED              in flight
 * TIMED_OUT      → RETRY_WAITING, FAILED                                     passed through, never stored
 * RETRY_WAITING  → TRIGGERED, CANCELLED                                      in flight (between attempts)
 * SUCCESS, FAILED, CANCELLED: final
 * </pre>
 */
public final class StateMachine {
    /** What a state is, beyond where it may go. */
    public enum Kind {
        /** Accepted, not fired yet: its timer set (PENDING), or waiting for other tasks (WAITING). */
        WAITING,
        /** Fired and not finished: the worker side owns it, or it waits for its next attempt. */
        IN_FLIGHT,
        /** Passed through within one step, never stored. */
        TRANSIENT,
        /** No way out. */
        FINAL
    }

    private record Row(Kind kind, Set<TaskState> targets) {
    }

    private static final Map<TaskState, Row> TABLE = new EnumMap<>(TaskState.class);

    static {
        TABLE.put(WAITING, new Row(Kind.WAITING, EnumSet.of(PENDING, CANCELLED)));
        TABLE.put(PENDING, new Row(Kind.WAITING, EnumSet.of(TRIGGERED, CANCELLED)));
        TABLE.put(TRIGGERED, new Row(Kind.IN_FLIGHT, EnumSet.of(RUNNING, SUCCESS, RETRY_WAITING, FAILED, TIMED_OUT, CANCELLED)));
        TABLE.put(RUNNING, new Row(Kind.IN_FLIGHT, EnumSet.of(SUCCESS, RETRY_WAITING, FAILED, TIMED_OUT, CANCELLED)));
        TABLE.put(TIMED_OUT, new Row(Kind.TRANSIENT, EnumSet.of(RETRY_WAITING, FAILED)));
        TABLE.put(RETRY_WAITING, new Row(Kind.IN_FLIGHT, EnumSet.of(TRIGGERED, CANCELLED)));
        TABLE.put(SUCCESS, new Row(Kind.FINAL, EnumSet.noneOf(TaskState.class)));
        TABLE.put(FAILED, new Row(Kind.FINAL, EnumSet.noneOf(TaskState.class)));
        TABLE.put(CANCELLED, new Row(Kind.FINAL, EnumSet.noneOf(TaskState.class)));
    }

    /** Where each report status leads the execution it concerns. */
    private static final Map<ReportStatus, TaskState> REPORT_TARGETS = new EnumMap<>(Map.of(
            ReportStatus.STARTED, RUNNING,
            ReportStatus.SUCCEEDED, SUCCESS,
            ReportStatus.FAILED, FAILED));

    private StateMachine() {
    }

    /** Whether {@code from → to} is in the table; {@code from == null} is a new execution. */
    public static boolean isLegal(TaskState from, TaskState to) {
        if (from == null) {
            return to == PENDING || to == WAITING;
        }
        Row row = TABLE.get(from);
        return row != null && row.targets().contains(to);
    }

    /** @throws IllegalTransitionException when the table forbids the transition: a bug in the rules */
    public static void requireLegal(TaskState from, TaskState to) {
        if (!isLegal(from, to)) {
            throw new IllegalTransitionException(from, to);
        }
    }

    public static Kind kindOf(TaskState state) {
        Row row = TABLE.get(state);
        if (row == null) {
            throw new IllegalArgumentException("not an execution state: " + state);
        }
        return row.kind();
    }

    public static boolean isFinal(TaskState state) {
        return kindOf(state) == Kind.FINAL;
    }

    public static boolean isInFlight(TaskState state) {
        return kindOf(state) == Kind.IN_FLIGHT;
    }

    /** Whether an execution in {@code state} is waiting for a worker's sign of life (and so can time out). */
    public static boolean canTimeOut(TaskState state) {
        return isLegal(state, TIMED_OUT);
    }

    /** The state a report with {@code status} moves an execution to; HEARTBEAT moves nothing (null). */
    public static TaskState targetOf(ReportStatus status) {
        return REPORT_TARGETS.get(status);
    }

    /** Every (from, to) pair of the table, for docs and tests. */
    public static Map<TaskState, Set<TaskState>> table() {
        Map<TaskState, Set<TaskState>> table = new EnumMap<>(TaskState.class);
        TABLE.forEach((state, row) -> table.put(state, Collections.unmodifiableSet(row.targets())));
        return Collections.unmodifiableMap(table);
    }
}
