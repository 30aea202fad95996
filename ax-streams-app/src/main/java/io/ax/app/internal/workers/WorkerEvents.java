package io.ax.app.internal.workers;

import com.fasterxml.jackson.core.JsonGenerator;
import io.ax.codec.StrictJson;
import io.ax.codec.WorkerAnnouncement;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;

/**
 * The registry's lines on {@code ax.state} (key = the worker's id), in the style of the calendar's {@code ACCEPTED}
 * line: about no task, so no {@code taskId}, and a {@code to} that is not a task state ({@code TaskState} has no such
 * symbols, so readers of the StateChange schema are unaffected; a reader that keys on {@code taskId} skips them):
 * <pre>
 * {"worker":"host-1-4242","to":"DEAD","at":"…","lastSeenAt":"…","heartbeatMs":10000,
 *  "reason":"silent for 30000 ms (3 heartbeats of 10000 ms)","inFlight":[{"executionId":"e-1","taskId":"t-1",...}],"inFlightCount":1}
 * {"worker":"host-1-4242","to":"ALIVE","at":"…","reason":"announced again after it was declared dead at …"}
 * {"worker":"host-1-4242","to":"LEFT","at":"…","reason":"said goodbye (tombstone on ax.workers)"}
 * </pre>
 * A DEAD line names the executions the worker last announced in flight (at most
 * {@value WorkerAnnouncement#MAX_IN_FLIGHT_LISTED}; {@code inFlightCount} says how many it had): the scheduler times
 * each of them out by its own timeout, retrying it by its policy.
 */
public final class WorkerEvents {
    private WorkerEvents() {
    }

    public static byte[] dead(WorkerEntry entry, long atMs, String reason) {
        return line(entry.announcement(), "DEAD", atMs, entry.lastSeenMs(), reason, true);
    }

    public static byte[] alive(WorkerAnnouncement announcement, long atMs, String reason) {
        return line(announcement, "ALIVE", atMs, atMs, reason, false);
    }

    public static byte[] left(WorkerEntry entry, long atMs) {
        return line(entry.announcement(), "LEFT", atMs, entry.lastSeenMs(), "said goodbye (tombstone on the workers topic)", false);
    }

    private static byte[] line(WorkerAnnouncement worker, String to, long atMs, long lastSeenMs, String reason, boolean inFlight) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        try (JsonGenerator json = StrictJson.mapper().getFactory().createGenerator(out)) {
            json.writeStartObject();
            json.writeStringField("worker", worker.workerId());
            json.writeStringField("to", to);
            json.writeStringField("at", Instant.ofEpochMilli(atMs).toString());
            json.writeStringField("lastSeenAt", Instant.ofEpochMilli(lastSeenMs).toString());
            json.writeNumberField("heartbeatMs", worker.heartbeatMs());
            if (worker.host() != null) {
                json.writeStringField("host", worker.host());
            }
            json.writeStringField("reason", reason);
            if (inFlight) {
                worker.writeInFlight(json);
            }
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
