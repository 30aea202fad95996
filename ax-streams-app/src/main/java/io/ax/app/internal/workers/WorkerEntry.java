package io.ax.app.internal.workers;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import io.ax.codec.StrictJson;
import io.ax.codec.WorkerAnnouncement;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * What the registry keeps of one worker: its latest announcement, when it was last heard from (the scheduler's
 * clock), and whether it was declared dead (and when). Stored in the {@code ax-workers} store as the announcement's
 * JSON form plus {@code lastSeenMs}, {@code state} and {@code deadAtMs}, so {@link #decode} reads it back with the
 * announcement's own reader. Immutable.
 */
public record WorkerEntry(WorkerAnnouncement announcement, long lastSeenMs, boolean dead, long deadAtMs) {

    public static WorkerEntry alive(WorkerAnnouncement announcement, long lastSeenMs) {
        return new WorkerEntry(announcement, lastSeenMs, false, 0);
    }

    public String workerId() {
        return announcement.workerId();
    }

    /** The entry as the registry keeps a worker it declared dead at {@code nowMs}. */
    public WorkerEntry markedDead(long nowMs) {
        return new WorkerEntry(announcement, lastSeenMs, true, nowMs);
    }

    public byte[] encode() {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        try (JsonGenerator json = StrictJson.mapper().getFactory().createGenerator(out)) {
            json.writeStartObject();
            announcement.writeFields(json);
            json.writeNumberField("lastSeenMs", lastSeenMs);
            json.writeStringField("state", dead ? "DEAD" : "ALIVE");
            if (dead) {
                json.writeNumberField("deadAtMs", deadAtMs);
            }
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /** An entry {@link #encode} wrote for {@code workerId}. */
    public static WorkerEntry decode(String workerId, byte[] bytes) {
        WorkerAnnouncement announcement = WorkerAnnouncement.parse(workerId, bytes);
        JsonNode node = StrictJson.readTree(bytes);
        return new WorkerEntry(announcement, node.path("lastSeenMs").asLong(), "DEAD".equals(node.path("state").asText()),
                node.path("deadAtMs").asLong());
    }
}
