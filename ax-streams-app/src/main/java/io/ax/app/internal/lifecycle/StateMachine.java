package io.ax.app.internal.lifecycle;

import static io.ax.schema.TaskState.CANCELLED;
import static io.ax.schema.TaskState.FAILED;
import static io.ax.schema.TaskState.PENDING;
import static io.ax.schema.TaskState.RETRY_WAITING;
import static io.ax.schema.TaskState.RUNNING;
import static io.ax.schema.TaskState.SUCCESS;
import static io.ax.schema.TaskState.TIMED_OUT;
import static io.ax.schema.TaskState.TRIGGERED;

import io.ax.schema.TaskState;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The execution state machine of DESIGN.md as one table: the only legal transitions. Every state change
 * of the scheduler goes through {@link #requireLegal}.
 *
 * <pre>
 * (new)          → PENDING
 * PENDING        → TRIGGERED, CANCELLED
 * TRIGGERED      → RUNNING, SUCCESS, RETRY_WAITING, FAILED, TIMED_OUT, CANCELLED
 * RUNNING        → SUCCESS, RETRY_WAITING, FAILED, TIMED_OUT, CANCELLED
 * TIMED_OUT      → RETRY_WAITING, FAILED
 * RETRY_WAITING  → TRIGGERED, CANCELLED
 * SUCCESS, FAILED, CANCELLED: final
 * </pre>
 */
public final class StateMachine {
    private static final Map<TaskState, Set<TaskState>> LEGAL = new EnumMap<>(TaskState.class);

    static {
        LEGAL.put(PENDING, EnumSet.of(TRIGGERED, CANCELLED));
        LEGAL.put(TRIGGERED, EnumSet.of(RUNNING, SUCCESS, RETRY_WAITING, FAILED, TIMED_OUT, CANCELLED));
        LEGAL.put(RUNNING, EnumSet.of(SUCCESS, RETRY_WAITING, FAILED, TIMED_OUT, CANCELLED));
        LEGAL.put(TIMED_OUT, EnumSet.of(RETRY_WAITING, FAILED));
        LEGAL.put(RETRY_WAITING, EnumSet.of(TRIGGERED, CANCELLED));
        LEGAL.put(SUCCESS, EnumSet.noneOf(TaskState.class));
        LEGAL.put(FAILED, EnumSet.noneOf(TaskState.class));
        LEGAL.put(CANCELLED, EnumSet.noneOf(TaskState.class));
    }

    private StateMachine() {
    }

    /** Whether {@code from → to} is in the table; {@code from == null} is a new execution. */
    public static boolean isLegal(TaskState from, TaskState to) {
        if (from == null) {
            return to == PENDING;
        }
        Set<TaskState> targets = LEGAL.get(from);
        return targets != null && targets.contains(to);
    }

    /** @throws IllegalStateException when the table forbids the transition: a bug in the scheduler */
    public static void requireLegal(TaskState from, TaskState to) {
        if (!isLegal(from, to)) {
            throw new IllegalStateException("illegal transition " + from + " -> " + to);
        }
    }

    public static boolean isFinal(TaskState state) {
        return state == SUCCESS || state == FAILED || state == CANCELLED;
    }

    /** Fired and not finished: the worker side owns it (or it waits for a retry). TIMED_OUT is never stored: it moves on in the same step. */
    public static boolean isInFlight(TaskState state) {
        return state == TRIGGERED || state == RUNNING || state == RETRY_WAITING;
    }

    /** Every (from, to) pair of the table, for docs and tests. */
    public static Map<TaskState, Set<TaskState>> table() {
        return java.util.Collections.unmodifiableMap(LEGAL);
    }
}
