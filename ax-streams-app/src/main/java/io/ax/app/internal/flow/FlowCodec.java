package io.ax.app.internal.flow;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ax.InvalidRequestException;
import io.ax.app.internal.core.FlowGrant;
import io.ax.app.internal.core.FlowMessage;
import io.ax.codec.StrictJson;
import java.io.IOException;

/**
 * The JSON forms of the internal flow topics: {@link FlowMessage} on {@code ax.flow}, {@link FlowGrant} on
 * {@code ax.flow-grants}. Both topics are written and read by the scheduler only; JSON keeps them readable with kcat.
 */
public final class FlowCodec {
    /** The inputs' JSON rules ({@link StrictJson}: a field named twice, content after the object, depth refused). */
    static final ObjectMapper MAPPER = StrictJson.mapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    /** Longest flow record: ids and gate keys are bounded, so a larger one is not ours. */
    static final int MAX_BYTES = 8_192;
    /** Longest gate key: {@code live:owner:} and an owner (256 chars) or {@code type:} and a job type (128). */
    public static final int MAX_GATE_KEY_CHARS = 512;

    private FlowCodec() {
    }

    public static byte[] encode(FlowMessage message) {
        return write(message);
    }

    /**
     * A flow message, parsed and well-formed: its kind, executionId and gates, and {@code gateIndex} one of them (so
     * {@link FlowMessage#gate()} names a gate). The rules of its fields are
     * {@link io.ax.app.internal.core.GateRules#requireValid}'s.
     */
    public static FlowMessage decodeMessage(byte[] bytes) {
        FlowMessage message = read(bytes, FlowMessage.class, "FlowMessage");
        if (message.kind() == null || message.executionId() == null || message.gates().isEmpty() || message.gateIndex() < 0
                || message.gateIndex() >= message.gates().size()) {
            throw new InvalidRequestException(null, "flow message lacks its kind, executionId or gates");
        }
        return message;
    }

    public static byte[] encode(FlowGrant grant) {
        return write(grant);
    }

    /** A grants-topic record, parsed: the rules of its fields are {@link io.ax.app.internal.core.Rules#requireValid(FlowGrant)}'s. */
    public static FlowGrant decodeGrant(byte[] bytes) {
        return read(bytes, FlowGrant.class, "Grant"); // named as before it moved to core: the rejection texts stay
    }

    private static byte[] write(Object value) {
        try {
            return MAPPER.writeValueAsBytes(value);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static <T> T read(byte[] bytes, Class<T> type, String name) {
        if (bytes == null || bytes.length > MAX_BYTES) {
            throw new InvalidRequestException(null, "flow record is " + (bytes == null ? "empty" : bytes.length + " bytes"));
        }
        try {
            T value = MAPPER.readValue(bytes, type);
            if (value == null) { // the JSON literal null
                throw new InvalidRequestException(null, "flow record is null, not a " + name);
            }
            return value;
        } catch (IOException e) {
            throw new InvalidRequestException(null, "flow record is not a valid " + name + ": " + StrictJson.describe(e));
        }
    }
}
