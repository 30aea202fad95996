package io.ax.app.internal.core;

import io.ax.InvalidRequestException;

/**
 * Why an input was answered IGNORED or REJECTED, or which limit timed an attempt out, as a short fixed code: the
 * event's {@code reason} says it in words for the operator, the code counts it in metrics
 * ({@code ax_inputs_ignored_total}, {@code ax_requests_rejected_total}, label {@code reason};
 * {@code ax_timeouts_total}, label {@code kind}) without letting free text make label values.
 */
public enum EventCode {
    // IGNORED
    /** A schedule request for a live taskId, without {@code ifExists=REPLACE}. */
    DUPLICATE("duplicate"),
    /** An adopt of a task this deployment already holds. */
    ALREADY_HELD("already-held"),
    /** A report for another execution or attempt, or restating the state the execution is in. */
    STALE_REPORT("stale-report"),
    /** A retry record for an attempt the execution no longer waits for. */
    STALE_RETRY("stale-retry"),
    /** A flow-control grant for an execution that no longer waits for it (its slots are released). */
    STALE_GRANT("stale-grant"),
    /** A request for a task the scheduler does not know. */
    UNKNOWN_TASK("unknown-task"),
    /** A request for a task that has ended. */
    FINISHED("finished"),
    /** A pause or resume of a one-shot task, or an update (ifExists=UPDATE) of one: only periodic tasks have them. */
    NOT_PERIODIC("not-periodic"),
    /**
     * A trigger, replay, pause, resume or update the task's state refuses (an execution in flight, nothing to replay,
     * already paused, not paused, ...).
     */
    REFUSED("refused"),
    /** A transition the state table forbids (a bug in the rules, answered rather than thrown). */
    ILLEGAL_TRANSITION("illegal-transition"),
    // REJECTED
    /** A field breaks a rule. */
    INVALID_FIELD("invalid-field"),
    /** The record as a whole is bad: not decodable, too large, of a kind this scheduler does not take. */
    INVALID_RECORD("invalid-record"),
    /** A record on another partition than its key's. */
    WRONG_PARTITION("wrong-partition"),
    /** A report the execution's state does not allow. */
    NOT_ALLOWED("not-allowed"),
    /** A new task refused by its owner's live gate: the owner has maxLiveTasks live tasks already. */
    OVER_QUOTA("over-quota"),
    // TIMED_OUT: which limit ended the attempt ({@code ax_timeouts_total}, label {@code kind}; see {@code Deadlines})
    /** No sign of life within {@code timeoutMs} (or the scheduler's default): the rule of requests without the kinds. */
    SILENCE_TIMEOUT("timeout"),
    /** Not STARTED within {@code scheduleToStartTimeoutMs} of the dispatch. */
    SCHEDULE_TO_START_TIMEOUT("schedule-to-start"),
    /** Still running {@code startToCloseTimeoutMs} (as extended by heartbeats) after STARTED. */
    START_TO_CLOSE_TIMEOUT("start-to-close"),
    /** Running, but no heartbeat within {@code heartbeatTimeoutMs}. */
    HEARTBEAT_TIMEOUT("heartbeat");

    private final String label;

    EventCode(String label) {
        this.label = label;
    }

    /** The code of a rejection for {@code e}: a field that breaks a rule, or a record bad as a whole. */
    public static EventCode of(InvalidRequestException e) {
        return e.field() == null ? INVALID_RECORD : INVALID_FIELD;
    }

    /** The code as a metric label value. */
    public String label() {
        return label;
    }
}
