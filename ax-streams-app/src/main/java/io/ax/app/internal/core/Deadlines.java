package io.ax.app.internal.core;

import io.ax.schema.ScheduleRequest;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;
import java.time.Instant;

/**
 * The time limits of an attempt in flight, and which of them ends it first. Four kinds (the {@code kind} label of
 * {@code ax_timeouts_total}, the words of the TIMED_OUT reason):
 * <ul>
 *   <li><b>timeout</b> ({@code timeoutMs}, else {@code ax.default.timeout.ms}): silence, measured from the last sign of
 *       life (the dispatch, STARTED, HEARTBEAT). It is the whole rule for a request that sets none of the others,
 *       exactly as before the kinds existed; otherwise it is the silence limit of whichever phase has no limit of its
 *       own.</li>
 *   <li><b>schedule-to-start</b> ({@code scheduleToStartTimeoutMs}): in TRIGGERED, the dispatch (or the due time, when
 *       dispatched ahead) + it; fixed when the attempt is dispatched ({@code deadlineAtMs}), so a dispatch waiting in
 *       a busy worker's queue is not timed out by silence, and no sign of life before STARTED extends it.</li>
 *   <li><b>start-to-close</b> ({@code startToCloseTimeoutMs}): in RUNNING, STARTED + it, fixed at STARTED
 *       ({@code deadlineAtMs}) and pushed only by a HEARTBEAT asking for more ({@code extendMs}, see
 *       {@link #extended}).</li>
 *   <li><b>heartbeat</b> ({@code heartbeatTimeoutMs}): in RUNNING, silence from the last sign of life, instead of
 *       {@code timeoutMs}.</li>
 * </ul>
 * A phase's fixed deadline is set when the phase begins, from the request as it is then: an update
 * ({@code ifExists=UPDATE}) of these fields applies from the next dispatch or STARTED.
 */
final class Deadlines {
    /**
     * Extensions never move the start-to-close deadline beyond STARTED + this many times {@code startToCloseTimeoutMs}:
     * a handler that keeps asking for more still ends.
     */
    static final int MAX_RUNNING_FACTOR = 10;

    private Deadlines() {
    }

    /** The deadline that ends the attempt first, the kind of limit it is and the reason a TIMED_OUT then gives. */
    record Deadline(long atMs, EventCode kind, String reason) {
    }

    /** The earliest deadline of {@code execution} (TRIGGERED or RUNNING) under {@code task}'s request. */
    static Deadline next(Step step, StoredTask task, StoredExecution execution) {
        ScheduleRequest request = task.getRequest();
        long timeoutMs = step.timeoutMs(task);
        Deadline silence = new Deadline(execution.getLastSignMs() + timeoutMs, EventCode.SILENCE_TIMEOUT,
                "timed out: no report or heartbeat for " + timeoutMs + " ms");
        Long fixedMs = execution.getDeadlineAtMs();
        if (execution.getState() != TaskState.RUNNING) {
            if (fixedMs == null) {
                return silence;
            }
            Long limitMs = request.getScheduleToStartTimeoutMs();
            return new Deadline(fixedMs, EventCode.SCHEDULE_TO_START_TIMEOUT, "timed out: not started within"
                    + " scheduleToStartTimeoutMs " + (limitMs == null ? "(since removed)" : limitMs + " ms") + " of the dispatch");
        }
        Long heartbeatMs = request.getHeartbeatTimeoutMs();
        Deadline quiet = heartbeatMs == null ? silence : new Deadline(execution.getLastSignMs() + heartbeatMs,
                EventCode.HEARTBEAT_TIMEOUT, "timed out: no heartbeat for heartbeatTimeoutMs " + heartbeatMs + " ms while running");
        if (fixedMs == null || quiet.atMs() < fixedMs) {
            return quiet;
        }
        return new Deadline(fixedMs, EventCode.START_TO_CLOSE_TIMEOUT, startToCloseReason(request, execution, fixedMs));
    }

    private static String startToCloseReason(ScheduleRequest request, StoredExecution execution, long fixedMs) {
        Long limitMs = request.getStartToCloseTimeoutMs();
        String reason = "timed out: still running after startToCloseTimeoutMs "
                + (limitMs == null ? "(since removed)" : limitMs + " ms") + " since STARTED";
        if (limitMs != null && execution.getStartedAtMs() != null && fixedMs > execution.getStartedAtMs() + limitMs) {
            reason += " (extended by heartbeats to " + Instant.ofEpochMilli(fixedMs) + ")";
        }
        return reason;
    }

    /** The fixed deadline of an attempt dispatched now, its first sign of life at {@code signMs}; null for none. */
    static Long onDispatch(StoredTask task, long signMs) {
        Long limitMs = task.getRequest().getScheduleToStartTimeoutMs();
        return limitMs == null ? null : signMs + limitMs;
    }

    /** The fixed deadline of an attempt STARTED at {@code startedAtMs}; null for none. */
    static Long onStart(StoredTask task, long startedAtMs) {
        Long limitMs = task.getRequest().getStartToCloseTimeoutMs();
        return limitMs == null ? null : startedAtMs + limitMs;
    }

    /**
     * The start-to-close deadline after a HEARTBEAT at {@code nowMs} asking for {@code extendMs} more: the later of the
     * current one and {@code nowMs} + the extension, the extension cut to {@code startToCloseTimeoutMs}, and never
     * beyond STARTED + {@link #MAX_RUNNING_FACTOR} × {@code startToCloseTimeoutMs}. Null when nothing is to change (no
     * start-to-close limit, not running, no positive extension, or one that does not move the deadline).
     */
    static Long extended(StoredTask task, StoredExecution execution, Long extendMs, long nowMs) {
        Long limitMs = task.getRequest().getStartToCloseTimeoutMs();
        Long currentMs = execution.getDeadlineAtMs();
        if (extendMs == null || extendMs <= 0 || limitMs == null || currentMs == null
                || execution.getState() != TaskState.RUNNING || execution.getStartedAtMs() == null) {
            return null;
        }
        long capMs = execution.getStartedAtMs() + MAX_RUNNING_FACTOR * limitMs;
        long nextMs = Math.min(nowMs + Math.min(extendMs, limitMs), capMs);
        return nextMs > currentMs ? nextMs : null;
    }

    /** The cap on the start-to-close deadline of a running {@code execution}. */
    static long capMs(StoredTask task, StoredExecution execution) {
        return execution.getStartedAtMs() + MAX_RUNNING_FACTOR * task.getRequest().getStartToCloseTimeoutMs();
    }
}
