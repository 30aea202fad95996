package io.ax.app.internal.core;

import io.ax.InvalidRequestException;
import io.ax.schema.SourceRecord;
import io.ax.validation.Quote;
import java.util.List;
import java.util.Objects;

/**
 * One record of the internal grants topic ({@code ax.flow-grants}, keyed by task id), as {@link FlowMessage} is one of
 * {@code ax.flow}: a gate's answer to the task side. Which {@link Input} it is follows from its tags ({@link #input}):
 * <ul>
 *   <li>a grant: every gate of {@code gates} holds a slot for the execution's attempt ({@link Input.Granted});</li>
 *   <li>with {@code notice} {@link #HELD}: the gate {@code gates[0]} holds the execution, for {@code reason}
 *   ({@link Input.GateHeld});</li>
 *   <li>with {@code admission} set: an owner live gate's answer to an ADMIT ({@code executionId} is the admission slot's
 *   id), {@link #ADMITTED} or {@link #REFUSED}, {@code reason} stating the count ({@link Input.Admission}).</li>
 * </ul>
 * The rules of its fields are {@link Rules#requireValid(FlowGrant)}'s. Its JSON form (these names) is
 * {@code flow.FlowCodec}'s.
 */
public record FlowGrant(String executionId, int attempt, List<String> gates, long heldSinceMs, String admission, String reason,
                        String notice) {
    /** {@link #notice()} of a record that tells the task a gate holds its execution (no slot given). */
    public static final String HELD = "HELD";
    public static final String ADMITTED = "ADMITTED";
    public static final String REFUSED = "REFUSED";

    public FlowGrant(String executionId, int attempt, List<String> gates, long heldSinceMs) {
        this(executionId, attempt, gates, heldSinceMs, null, null, null);
    }

    /** An owner live gate's answer to an ADMIT: {@link #ADMITTED} or {@link #REFUSED}, and why. */
    public static FlowGrant answer(String admissionId, List<String> gates, long heldSinceMs, boolean admitted, String reason) {
        return new FlowGrant(admissionId, 0, gates, heldSinceMs, admitted ? ADMITTED : REFUSED, reason, null);
    }

    /** Not a grant: the gate {@code gates[0]} holds the execution, for {@code reason} ({@link #HELD}). */
    public static FlowGrant held(String executionId, int attempt, String gate, long heldSinceMs, String reason) {
        return new FlowGrant(executionId, attempt, List.of(gate), heldSinceMs, null, reason, HELD);
    }

    /**
     * The input this record is for the task {@code taskId}, read at {@code source}; only for a record that keeps
     * {@link Rules#requireValid(FlowGrant)}.
     */
    public Input input(String taskId, SourceRecord source) {
        if (notice != null) {
            return new Input.GateHeld(taskId, executionId, attempt, gates.get(0), reason, source);
        }
        if (admission != null) {
            return new Input.Admission(taskId, executionId, gates.get(0), ADMITTED.equals(admission), reason, source);
        }
        return new Input.Granted(taskId, executionId, attempt, gates, source);
    }

    /** The rules of the record's own fields; see {@link Rules#requireValid(FlowGrant)}. */
    void requireValid() {
        // not gates.contains(null): an immutable list (List.of) throws on it rather than answer
        if (executionId == null || gates == null || gates.isEmpty() || gates.stream().anyMatch(Objects::isNull)) {
            throw new InvalidRequestException(null, "grant lacks its executionId or gates");
        }
        if (notice != null && (!HELD.equals(notice) || reason == null || admission != null)) {
            throw new InvalidRequestException("notice", "grant notice must be HELD, with a reason and no admission: "
                    + Quote.of(notice));
        }
        if (admission != null && !ADMITTED.equals(admission) && !REFUSED.equals(admission)) {
            throw new InvalidRequestException("admission", "grant admission must be ADMITTED or REFUSED: "
                    + Quote.of(admission));
        }
    }
}
