package io.ax.app.internal.flow;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ax.InvalidRequestException;
import io.ax.app.internal.core.FlowMessage;
import io.ax.codec.StrictJson;
import io.ax.validation.Quote;
import io.ax.schema.TaskState;
import java.io.IOException;
import java.util.List;

/**
 * The JSON forms of the internal flow topics: {@link FlowMessage} on {@code ax.flow}, {@link Grant} on
 * {@code ax.flow-grants}. Both topics are written and read by the scheduler only; JSON keeps them readable with kcat.
 */
public final class FlowCodec {
    /** The inputs' JSON rules ({@link StrictJson}: a field named twice, content after the object, depth refused). */
    static final ObjectMapper MAPPER = StrictJson.mapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    /** Longest flow record: ids and gate keys are bounded, so a larger one is not ours. */
    static final int MAX_BYTES = 8_192;
    /** Longest gate key: {@code live:owner:} and an owner (256 chars) or {@code type:} and a job type (128). */
    public static final int MAX_GATE_KEY_CHARS = 512;

    /**
     * A grant to the task side: every gate of {@code gates} holds a slot for the execution's attempt. Or, with
     * {@code admission} set, an owner live gate's answer to an ADMIT ({@code executionId} is the admission slot's id):
     * {@link #ADMITTED} or {@link #REFUSED}, {@code reason} stating the count.
     */
    public record Grant(String executionId, int attempt, List<String> gates, long heldSinceMs, String admission, String reason,
                        String notice) {
        public Grant(String executionId, int attempt, List<String> gates, long heldSinceMs) {
            this(executionId, attempt, gates, heldSinceMs, null, null, null);
        }

        public Grant(String executionId, int attempt, List<String> gates, long heldSinceMs, String admission, String reason) {
            this(executionId, attempt, gates, heldSinceMs, admission, reason, null);
        }

        /** Not a grant: the gate {@code gates[0]} holds the execution, for {@code reason} ({@link #HELD}). */
        public static Grant held(String executionId, int attempt, String gate, long heldSinceMs, String reason) {
            return new Grant(executionId, attempt, List.of(gate), heldSinceMs, null, reason, HELD);
        }
    }

    /** {@link Grant#notice()} of a record that tells the task a gate holds its execution (no slot given). */
    public static final String HELD = "HELD";

    public static final String ADMITTED = "ADMITTED";
    public static final String REFUSED = "REFUSED";

    private FlowCodec() {
    }

    public static byte[] encode(FlowMessage message) {
        return write(message);
    }

    public static FlowMessage decodeMessage(byte[] bytes) {
        FlowMessage message = read(bytes, FlowMessage.class);
        if (message.kind() == null || message.executionId() == null || message.gates().isEmpty() || message.gateIndex() < 0
                || message.gateIndex() >= message.gates().size()) {
            throw new InvalidRequestException(null, "flow message lacks its kind, executionId or gates");
        }
        // An ACQUIRE is granted to its taskId and announced, while held, in its state: without them a grant could not
        // reach the task (its slot would stay taken for good) and the held event could not be written.
        if (message.kind() == FlowMessage.Kind.ACQUIRE && (message.taskId() == null
                || (message.state() != TaskState.PENDING && message.state() != TaskState.RETRY_WAITING))) {
            throw new InvalidRequestException(null, "ACQUIRE needs its taskId and a state PENDING or RETRY_WAITING: "
                    + Quote.of(message.taskId()) + ", " + message.state());
        }
        return message;
    }

    public static byte[] encode(Grant grant) {
        return write(grant);
    }

    public static Grant decodeGrant(byte[] bytes) {
        Grant grant = read(bytes, Grant.class);
        if (grant.executionId() == null || grant.gates() == null || grant.gates().isEmpty() || grant.gates().contains(null)) {
            throw new InvalidRequestException(null, "grant lacks its executionId or gates");
        }
        if (grant.notice() != null && (!HELD.equals(grant.notice()) || grant.reason() == null || grant.admission() != null)) {
            throw new InvalidRequestException("notice", "grant notice must be HELD, with a reason and no admission: " + Quote.of(grant.notice()));
        }
        if (grant.admission() != null && !ADMITTED.equals(grant.admission()) && !REFUSED.equals(grant.admission())) {
            throw new InvalidRequestException("admission", "grant admission must be ADMITTED or REFUSED: " + Quote.of(grant.admission()));
        }
        return grant;
    }

    private static byte[] write(Object value) {
        try {
            return MAPPER.writeValueAsBytes(value);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static <T> T read(byte[] bytes, Class<T> type) {
        if (bytes == null || bytes.length > MAX_BYTES) {
            throw new InvalidRequestException(null, "flow record is " + (bytes == null ? "empty" : bytes.length + " bytes"));
        }
        try {
            T value = MAPPER.readValue(bytes, type);
            if (value == null) { // the JSON literal null
                throw new InvalidRequestException(null, "flow record is null, not a " + type.getSimpleName());
            }
            return value;
        } catch (IOException e) {
            throw new InvalidRequestException(null, "flow record is not a valid " + type.getSimpleName() + ": " + StrictJson.describe(e));
        }
    }
}
