package io.ax.app.fuzz;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ax.codec.WireCodec;
import io.ax.schema.AtTrigger;
import io.ax.schema.DelayTrigger;
import io.ax.schema.IntervalTrigger;
import io.ax.schema.ScheduleRequest;
import java.io.IOException;
import java.math.BigInteger;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * When a schedule request's first occurrence is due, computed exactly (no {@code long} to overflow), so the oracle
 * can tell a legitimate PENDING from one whose due time wrapped around: nothing may be dispatched before it
 * (guarantee 2), whatever the request's numbers or record timestamp. Covers one-shot and interval triggers in
 * JSON, and well-formed Avro requests; cron and anything unreadable are left to the scheduler.
 */
public final class ExpectedDue {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final int MAX_JSON_BYTES = 64 * 1024;

    private ExpectedDue() {
    }

    /** The first due time, epoch milliseconds, of {@code input} sent with this record timestamp; empty if unknown. */
    public static Optional<BigInteger> of(HostileInput input, long timestampMs) {
        byte[] value = input.value();
        if (input.topic() != FuzzTopic.REQUESTS || input.live() != null || value == null || value.length == 0) {
            return Optional.empty();
        }
        if (value[0] == '{' && value.length <= MAX_JSON_BYTES) {
            return ofJson(value, BigInteger.valueOf(timestampMs));
        }
        if (input.kind().startsWith("requests/avro/extreme/")) {
            return ofAvro(value, BigInteger.valueOf(timestampMs));
        }
        return Optional.empty();
    }

    private static Optional<BigInteger> ofJson(byte[] value, BigInteger timestampMs) {
        JsonNode request;
        try {
            request = MAPPER.readTree(value);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
        if (request == null || !request.isObject() || request.has("cancel") || request.has("replay")
                || request.has("trigger")) {
            return Optional.empty();
        }
        if (request.has("at")) {
            return time(request.get("at"));
        }
        if (request.has("delayMs")) {
            return whole(request.get("delayMs")).map(timestampMs::add);
        }
        if (request.has("everyMs")) {
            return request.has("startAt") ? time(request.get("startAt")) : whole(request.get("everyMs")).map(timestampMs::add);
        }
        return Optional.empty();
    }

    private static Optional<BigInteger> whole(JsonNode number) {
        return number != null && number.isIntegralNumber() ? Optional.of(number.bigIntegerValue()) : Optional.empty();
    }

    private static Optional<BigInteger> time(JsonNode value) {
        if (value.isTextual()) {
            try {
                OffsetDateTime instant = OffsetDateTime.parse(value.textValue());
                return Optional.of(BigInteger.valueOf(instant.toEpochSecond()).multiply(BigInteger.valueOf(1000))
                        .add(BigInteger.valueOf(instant.getNano() / 1_000_000)));
            } catch (DateTimeParseException e) {
                return Optional.empty();
            }
        }
        return whole(value);
    }

    private static Optional<BigInteger> ofAvro(byte[] value, BigInteger timestampMs) {
        Object decoded;
        try {
            decoded = WireCodec.decodeRequest(value);
        } catch (RuntimeException e) {
            return Optional.empty();
        }
        if (!(decoded instanceof ScheduleRequest request)) {
            return Optional.empty();
        }
        Object trigger = request.getTrigger();
        if (trigger instanceof AtTrigger at) {
            return Optional.of(BigInteger.valueOf(at.getAtMs()));
        }
        if (trigger instanceof DelayTrigger delay) {
            return Optional.of(timestampMs.add(BigInteger.valueOf(delay.getDelayMs())));
        }
        if (trigger instanceof IntervalTrigger interval) {
            return Optional.of(interval.getStartAtMs() != null ? BigInteger.valueOf(interval.getStartAtMs())
                    : timestampMs.add(BigInteger.valueOf(interval.getEveryMs())));
        }
        return Optional.empty();
    }

    /**
     * Problems with the timing of a request's task: a PENDING event promising a due time before {@code dueMs} (a due time
     * that wrapped around), or a RUN dispatch before it. Later is allowed: a due time no long can hold may be clamped.
     */
    public static List<String> problems(AnswerLedger ledger, String taskId, BigInteger dueMs) {
        List<String> problems = new ArrayList<>();
        String pendingDueAt = ledger.firstPendingDueAt(taskId);
        if (pendingDueAt != null) {
            BigInteger promised = epochMillis(pendingDueAt);
            if (promised == null || promised.compareTo(dueMs) < 0) {
                problems.add("PENDING with dueAt " + pendingDueAt + ", before the due time the request asks for (" + dueMs
                        + " ms, from the request and its record timestamp): the due time wrapped around");
            }
        }
        String early = firedEarly(ledger, taskId, dueMs);
        if (early != null) {
            problems.add(early);
        }
        return problems;
    }

    private static BigInteger epochMillis(String isoInstant) {
        try {
            Instant instant = Instant.parse(isoInstant);
            return BigInteger.valueOf(instant.getEpochSecond()).multiply(BigInteger.valueOf(1000))
                    .add(BigInteger.valueOf(instant.getNano() / 1_000_000));
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    /** A problem when a RUN dispatch of {@code taskId} happened before {@code dueMs}, else null. */
    static String firedEarly(AnswerLedger ledger, String taskId, BigInteger dueMs) {
        return ledger.dispatchesFor(taskId).stream()
                .filter(d -> "RUN".equals(d.kind()) && BigInteger.valueOf(d.timestampMs()).compareTo(dueMs) < 0)
                .findFirst()
                .map(d -> "dispatched at " + d.timestampMs() + " (scheduler clock), before its due time " + dueMs
                        + " (from the request and its record timestamp): fired early")
                .orElse(null);
    }
}
