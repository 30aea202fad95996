package io.ax.codec;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ax.InvalidRequestException;
import io.ax.validation.Quote;
import io.ax.validation.ScheduleValidator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One worker's announcement on the workers topic ({@code ax.workers}, compacted, key = the worker's id, a tombstone
 * when it leaves gracefully): who it is, what it serves and what it runs now. The SDK sends one every
 * {@code heartbeatMs}; a worker in any language may send the same JSON object (README, "Worker registry"):
 * <pre>{@code
 * {"workerId":"host-1-4242","host":"host-1","version":"1.0.0","heartbeatMs":10000,
 *  "startedAt":"2026-12-03T10:00:00Z","jobTypes":["email"],
 *  "lanes":[{"jobType":"email","limit":4,"running":1,"waiting":0}],
 *  "inFlight":[{"executionId":"e-1","taskId":"t-1","jobType":"email","attempt":1}],"inFlightCount":1}
 * }</pre>
 * Required: {@code workerId} (equal to the key) and {@code heartbeatMs}; the rest is optional. Fields not named here
 * are ignored, so a newer worker is still listed by an older scheduler. Every field is bounded (the constants below)
 * and the whole value is at most {@value #MAX_VALUE_BYTES} bytes, read by {@link StrictJson}'s rules; a record out of
 * bounds is refused whole with an {@link InvalidRequestException} saying which field and why. Immutable.
 */
public record WorkerAnnouncement(String workerId, String host, String version, long heartbeatMs, Long startedAtMs,
                                 List<String> jobTypes, List<Lane> lanes, List<InFlight> inFlight, int inFlightCount) {
    /** Largest value read. */
    public static final int MAX_VALUE_BYTES = 262_144;
    public static final int MAX_HOST_CHARS = 255;
    public static final int MAX_VERSION_CHARS = 64;
    public static final int MAX_JOB_TYPES = 100;
    public static final int MAX_LANES = 100;
    /** Most executions listed by name; {@code inFlightCount} says how many there are when more run. */
    public static final int MAX_IN_FLIGHT_LISTED = 100;
    public static final long MIN_HEARTBEAT_MS = 100;
    public static final long MAX_HEARTBEAT_MS = 3_600_000;
    /** Largest lane limit, running or waiting count, and in-flight count. */
    public static final int MAX_COUNT = 1_000_000;
    private static final ObjectMapper MAPPER = StrictJson.mapper();

    /** One lane: a job type's concurrency limit, and how many of its handlers run and dispatches wait now. */
    public record Lane(String jobType, int limit, int running, int waiting) {
    }

    /** One execution the worker runs (or holds) now. */
    public record InFlight(String executionId, String taskId, String jobType, int attempt) {
    }

    public WorkerAnnouncement {
        Objects.requireNonNull(workerId, "workerId");
        jobTypes = List.copyOf(jobTypes);
        lanes = List.copyOf(lanes);
        inFlight = List.copyOf(inFlight);
    }

    /**
     * The announcement in {@code value}, read under {@code key}.
     *
     * @throws InvalidRequestException naming the field when the key or the value breaks a rule or a bound
     */
    public static WorkerAnnouncement parse(String key, byte[] value) {
        requireId("key", key);
        if (value == null) {
            throw new InvalidRequestException(null, "a tombstone is a goodbye, not an announcement");
        }
        if (value.length > MAX_VALUE_BYTES) {
            throw new InvalidRequestException(null, "value is " + value.length + " bytes, more than an announcement takes ("
                    + MAX_VALUE_BYTES + ")");
        }
        JsonNode node = StrictJson.readTree(value);
        if (!node.isObject()) {
            throw new InvalidRequestException(null, "an announcement is a JSON object, not " + node.getNodeType());
        }
        String workerId = text(node, "workerId", ScheduleValidator.MAX_ID_CHARS, true);
        if (!workerId.equals(key)) {
            throw new InvalidRequestException("workerId", "workerId " + Quote.of(workerId) + " is not the record key "
                    + Quote.of(key));
        }
        long heartbeatMs = number(node, "heartbeatMs", MIN_HEARTBEAT_MS, MAX_HEARTBEAT_MS, true);
        List<String> jobTypes = new ArrayList<>();
        for (JsonNode jobType : array(node, "jobTypes", MAX_JOB_TYPES)) {
            jobTypes.add(jobType(jobType, "jobTypes[]"));
        }
        List<Lane> lanes = new ArrayList<>();
        for (JsonNode lane : array(node, "lanes", MAX_LANES)) {
            requireObject(lane, "lanes[]");
            lanes.add(new Lane(jobType(lane.get("jobType"), "lanes[].jobType"),
                    (int) number(lane, "limit", 1, MAX_COUNT, true), (int) number(lane, "running", 0, MAX_COUNT, false),
                    (int) number(lane, "waiting", 0, MAX_COUNT, false)));
        }
        List<InFlight> inFlight = new ArrayList<>();
        for (JsonNode execution : array(node, "inFlight", MAX_IN_FLIGHT_LISTED)) {
            requireObject(execution, "inFlight[]");
            inFlight.add(new InFlight(text(execution, "executionId", ScheduleValidator.MAX_ID_CHARS, true),
                    text(execution, "taskId", ScheduleValidator.MAX_ID_CHARS, false),
                    execution.has("jobType") ? jobType(execution.get("jobType"), "inFlight[].jobType") : null,
                    (int) Math.max(1, number(execution, "attempt", 1, MAX_COUNT, false))));
        }
        long count = number(node, "inFlightCount", 0, MAX_COUNT, false);
        if (count != 0 && count < inFlight.size()) {
            throw new InvalidRequestException("inFlightCount", "inFlightCount " + count + " is less than the "
                    + inFlight.size() + " executions listed");
        }
        return new WorkerAnnouncement(workerId, text(node, "host", MAX_HOST_CHARS, false),
                text(node, "version", MAX_VERSION_CHARS, false), heartbeatMs, time(node, "startedAt"), jobTypes, lanes,
                inFlight, (int) Math.max(count, inFlight.size()));
    }

    /** The JSON form above (null fields left out), within {@link #MAX_VALUE_BYTES} whenever the fields are in bounds. */
    public byte[] toJson() {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        try (JsonGenerator json = MAPPER.getFactory().createGenerator(out)) {
            json.writeStartObject();
            writeFields(json);
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /** Writes this announcement's fields into an object {@code json} has started (the registry adds its own). */
    public void writeFields(JsonGenerator json) throws IOException {
        json.writeStringField("workerId", workerId);
        if (host != null) {
            json.writeStringField("host", host);
        }
        if (version != null) {
            json.writeStringField("version", version);
        }
        json.writeNumberField("heartbeatMs", heartbeatMs);
        if (startedAtMs != null) {
            json.writeStringField("startedAt", Instant.ofEpochMilli(startedAtMs).toString());
        }
        json.writeArrayFieldStart("jobTypes");
        for (String jobType : jobTypes) {
            json.writeString(jobType);
        }
        json.writeEndArray();
        json.writeArrayFieldStart("lanes");
        for (Lane lane : lanes) {
            json.writeStartObject();
            json.writeStringField("jobType", lane.jobType());
            json.writeNumberField("limit", lane.limit());
            json.writeNumberField("running", lane.running());
            json.writeNumberField("waiting", lane.waiting());
            json.writeEndObject();
        }
        json.writeEndArray();
        writeInFlight(json);
    }

    /**
     * The {@code inFlight} list and {@code inFlightCount} as the announcement writes them, for every JSON form that names a
     * worker's executions (the registry's lines on the state topic too).
     */
    public void writeInFlight(JsonGenerator json) throws IOException {
        json.writeArrayFieldStart("inFlight");
        for (InFlight execution : inFlight) {
            json.writeStartObject();
            json.writeStringField("executionId", execution.executionId());
            if (execution.taskId() != null) {
                json.writeStringField("taskId", execution.taskId());
            }
            if (execution.jobType() != null) {
                json.writeStringField("jobType", execution.jobType());
            }
            json.writeNumberField("attempt", execution.attempt());
            json.writeEndObject();
        }
        json.writeEndArray();
        json.writeNumberField("inFlightCount", inFlightCount);
    }

    private static void requireId(String field, String id) {
        if (id == null || id.isEmpty()) {
            throw new InvalidRequestException(field, "missing " + field + " (the worker's id)");
        }
        if (id.length() > ScheduleValidator.MAX_ID_CHARS) {
            throw new InvalidRequestException(field, field + " is longer than " + ScheduleValidator.MAX_ID_CHARS + " chars: "
                    + Quote.of(id));
        }
        if (id.chars().anyMatch(Character::isISOControl)) {
            throw new InvalidRequestException(field, field + " has control characters: " + Quote.of(id));
        }
    }

    private static String text(JsonNode node, String field, int maxChars, boolean required) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            if (required) {
                throw new InvalidRequestException(field, "missing " + field);
            }
            return null;
        }
        if (!value.isTextual()) {
            throw new InvalidRequestException(field, field + " must be a string, not " + value.getNodeType());
        }
        String text = value.textValue();
        if (text.isEmpty() && required) {
            throw new InvalidRequestException(field, "empty " + field);
        }
        if (text.length() > maxChars) {
            throw new InvalidRequestException(field, field + " is longer than " + maxChars + " chars: " + Quote.of(text));
        }
        if (text.chars().anyMatch(Character::isISOControl)) {
            throw new InvalidRequestException(field, field + " has control characters: " + Quote.of(text));
        }
        return text;
    }

    private static long number(JsonNode node, String field, long min, long max, boolean required) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            if (required) {
                throw new InvalidRequestException(field, "missing " + field);
            }
            return 0;
        }
        if (!value.isIntegralNumber() || !value.canConvertToLong()) {
            throw new InvalidRequestException(field, field + " must be a whole number, not " + Quote.of(value));
        }
        long number = value.longValue();
        if (number < min || number > max) {
            throw new InvalidRequestException(field, field + " must be from " + min + " to " + max + ": " + number);
        }
        return number;
    }

    private static Iterable<JsonNode> array(JsonNode node, String field, int maxEntries) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return List.of();
        }
        if (!value.isArray()) {
            throw new InvalidRequestException(field, field + " must be an array, not " + value.getNodeType());
        }
        if (value.size() > maxEntries) {
            throw new InvalidRequestException(field, field + " has " + value.size() + " entries, more than " + maxEntries);
        }
        return value;
    }

    private static void requireObject(JsonNode node, String field) {
        if (!node.isObject()) {
            throw new InvalidRequestException(field, field + " must be an object, not " + node.getNodeType());
        }
    }

    private static String jobType(JsonNode node, String field) {
        if (node == null || !node.isTextual() || !ScheduleValidator.isJobType(node.textValue())) {
            throw new InvalidRequestException(field, field + " must be 1-128 chars of A-Z a-z 0-9 . _ : -: "
                    + Quote.of(node == null ? null : node.isTextual() ? node.textValue() : node.toString()));
        }
        return node.textValue();
    }

    private static Long time(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        long ms;
        if (value.isIntegralNumber() && value.canConvertToLong()) {
            ms = value.longValue();
        } else if (value.isTextual() && value.textValue().length() <= 64) {
            try {
                ms = Instant.parse(value.textValue()).toEpochMilli();
            } catch (DateTimeParseException | ArithmeticException e) {
                throw new InvalidRequestException(field, field + " must be an ISO-8601 instant or epoch millis: "
                        + Quote.of(value.textValue()));
            }
        } else {
            throw new InvalidRequestException(field, field + " must be an ISO-8601 instant or epoch millis: " + Quote.of(value));
        }
        if (ms < 0 || ms > ScheduleValidator.MAX_INSTANT_MS) {
            throw new InvalidRequestException(field, field + " is out of range: " + ms);
        }
        return ms;
    }

    /** The UTF-8 text of {@link #toJson()} (for logs and tests). */
    @Override
    public String toString() {
        return new String(toJson(), StandardCharsets.UTF_8);
    }
}
