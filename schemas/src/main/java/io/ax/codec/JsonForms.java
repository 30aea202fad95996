package io.ax.codec;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ax.InvalidRequestException;
import io.ax.schema.AtTrigger;
import io.ax.schema.CalendarRequest;
import io.ax.schema.CancelRequest;
import io.ax.schema.DailyWindow;
import io.ax.schema.DateRange;
import io.ax.schema.CronTrigger;
import io.ax.schema.DelayTrigger;
import io.ax.schema.Dependency;
import io.ax.schema.DependencyCondition;
import io.ax.schema.ExecutionReport;
import io.ax.schema.IfExists;
import io.ax.schema.IntervalTrigger;
import io.ax.schema.MisfirePolicy;
import io.ax.schema.OverlapPolicy;
import io.ax.schema.PauseRequest;
import io.ax.schema.ReplayRequest;
import io.ax.schema.ResumeRequest;
import io.ax.schema.ReportStatus;
import io.ax.schema.ScheduleRequest;
import io.ax.schema.SourceRecord;
import io.ax.schema.StateChange;
import io.ax.schema.TriggerRequest;
import io.ax.validation.Quote;
import io.ax.validation.ScheduleValidator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.ByteBuffer;
import java.time.OffsetDateTime;
import java.time.DateTimeException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.avro.specific.SpecificRecord;

/**
 * The stable JSON forms of ax's records (DESIGN.md, "Stable JSON forms"), for operators and clients in
 * any language.
 *
 * <ul>
 *   <li>schedule: {@code {"jobType":"email","at":"2026-12-01T02:00:00Z","payload":{...}}}; one trigger of
 *       {@code at} (ISO-8601 or epoch millis), {@code delayMs}, {@code everyMs} (optional {@code startAt}),
 *       {@code cron} (optional {@code zone}); optional {@code priority}, {@code owner}, {@code timeoutMs},
 *       {@code maxRetries}, {@code backoffMs}, {@code backoffIntervalsMs}, {@code jitter}, {@code ifExists}; for
 *       periodic triggers {@code endAt}, {@code maxOccurrences}, {@code misfire} ({@code FIRE_ONCE|FIRE_ALL|SKIP}),
 *       {@code maxCatchUp}, {@code occurrenceJitterMs}, {@code overlap} ({@code SKIP|QUEUE_ONE|ALLOW}); timeout kinds
 *       {@code scheduleToStartTimeoutMs}, {@code startToCloseTimeoutMs}, {@code heartbeatTimeoutMs}; to wait for other
 *       tasks {@code "after":[{"taskId":"A","on":"SUCCESS|FAILURE|COMPLETED"}]} with optional {@code afterDelayMs},
 *       {@code afterTimeoutMs}, {@code afterRunAnyway} (a request with {@code after} and no trigger is due once they are
 *       met); to run each occurrence as slices {@code "shards":N} (1-64) with optional {@code "shardFailure"}
 *       ({@code CANCEL_OTHERS|LET_FINISH}).</li>
 *   <li>cancel: {@code {"cancel":true,"reason":"..."}}; replay a dead-lettered task: {@code {"replay":true}}; run a
 *       pending task now: {@code {"trigger":true,"reason":"..."}}; pause and resume a periodic task:
 *       {@code {"pause":true,"reason":"..."}}, {@code {"resume":true,"reason":"..."}}.</li>
 *   <li>exclusion calendar (key = its name): {@code {"calendar":{"zone":...,"excludeDates":[...],...}}} sets it,
 *       {@code {"deleteCalendar":true}} deletes it; a schedule names one with {@code "calendar":"name"}.</li>
 *   <li>report: {@code {"executionId":"...","attempt":1,"status":"FAILED","retryable":false,"message":"..."}}; a
 *       HEARTBEAT may ask for more running time with {@code "extendMs"}.</li>
 *   <li>state change (output only): {@code {"taskId":...,"from":"PENDING","to":"TRIGGERED","at":"...",...}}.</li>
 * </ul>
 * Unknown fields are rejected rather than ignored, so a misspelt field never silently changes a schedule.
 */
public final class JsonForms {
    /** Deepest nesting accepted anywhere in an input (payload included). */
    public static final int MAX_NESTING_DEPTH = StrictJson.MAX_NESTING_DEPTH;

    /**
     * The constraints of {@link StrictJson}, without its duplicate detection: the top level refuses a field named twice
     * itself ({@link #parseObject}), and a payload is kept byte for byte, as sent.
     */
    private static final JsonFactory FACTORY = JsonFactory.builder().streamReadConstraints(StrictJson.CONSTRAINTS).build();
    /** A field named twice inside a nested object (a calendar, a dependency) is refused too; the payload is read raw. */
    private static final ObjectMapper MAPPER = new ObjectMapper(FACTORY)
            .enable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY);

    private static final Set<String> SCHEDULE_FIELDS = Set.of("jobType", "at", "delayMs", "everyMs", "startAt", "cron",
            "zone", "payload", "priority", "owner", "timeoutMs", "maxRetries", "backoffMs", "backoffIntervalsMs", "jitter", "ifExists",
            "endAt", "maxOccurrences", "misfire", "maxCatchUp", "occurrenceJitterMs", "overlap",
            "scheduleToStartTimeoutMs", "startToCloseTimeoutMs", "heartbeatTimeoutMs", "calendar",
            "after", "afterDelayMs", "afterTimeoutMs", "afterRunAnyway", "shards", "shardFailure");
    private static final Set<String> DEPENDENCY_FIELDS = Set.of("taskId", "on");
    private static final int MAX_LIST_ENTRIES = 100;
    private static final Set<String> CANCEL_FIELDS = Set.of("cancel", "reason");
    private static final Set<String> REPLAY_FIELDS = Set.of("replay", "reason");
    private static final Set<String> TRIGGER_FIELDS = Set.of("trigger", "reason");
    private static final Set<String> PAUSE_FIELDS = Set.of("pause", "reason");
    private static final Set<String> RESUME_FIELDS = Set.of("resume", "reason");
    private static final Set<String> CALENDAR_REQUEST_FIELDS = Set.of("calendar");
    private static final Set<String> CALENDAR_FIELDS = Set.of("zone", "excludeDates", "excludeRanges", "excludeWeekdays",
            "excludeDaily", "description");
    private static final Set<String> CALENDAR_DELETE_FIELDS = Set.of("deleteCalendar");
    private static final Set<String> WINDOW_FIELDS = Set.of("from", "to");
    /** Most entries of a calendar's list taken from JSON (the calendar's own bounds are lower, checked after). */
    private static final int MAX_CALENDAR_ENTRIES = 1000;
    private static final Set<String> REPORT_FIELDS = Set.of("executionId", "attempt", "status", "retryable", "message",
            "workerId", "reportedAt", "progress", "extendMs");

    private JsonForms() {
    }

    /** A {@link ScheduleRequest}, {@link CancelRequest}, {@link ReplayRequest} or {@link TriggerRequest} from its JSON form. */
    public static SpecificRecord parseRequest(byte[] json) {
        JsonObject parsed = parseObject(json, "payload");
        ObjectNode node = parsed.fields();
        if (node.has("cancel")) {
            return parseCancel(node);
        }
        if (node.has("replay")) {
            return parseReplay(node);
        }
        if (node.has("trigger")) {
            return parseRunNow(node);
        }
        if (node.has("pause")) {
            rejectUnknown(node, PAUSE_FIELDS, "pause request");
            requireTrue(node, "pause");
            return PauseRequest.newBuilder().setReason(optionalText(node, "reason")).build();
        }
        if (node.has("resume")) {
            rejectUnknown(node, RESUME_FIELDS, "resume request");
            requireTrue(node, "resume");
            return ResumeRequest.newBuilder().setReason(optionalText(node, "reason")).build();
        }
        if (node.has("calendar") && node.get("calendar").isObject()) {
            return parseCalendar(node);
        }
        if (node.has("deleteCalendar")) {
            rejectUnknown(node, CALENDAR_DELETE_FIELDS, "calendar delete request");
            requireTrue(node, "deleteCalendar");
            return CalendarRequest.newBuilder().setDelete(true).build();
        }
        return parseSchedule(node, parsed.raw());
    }

    /**
     * {@code {"calendar":{"zone":"Europe/Berlin","excludeDates":["2026-12-25"],"excludeRanges":[{"from":"2026-12-24",
     * "to":"2026-12-31"}],"excludeWeekdays":["SATURDAY"],"excludeDaily":[{"from":"22:00","to":"06:00"}],
     * "description":"..."}}}: the values are checked by {@code CalendarValidator}, the shape here.
     */
    private static CalendarRequest parseCalendar(ObjectNode node) {
        rejectUnknown(node, CALENDAR_REQUEST_FIELDS, "calendar request");
        ObjectNode calendar = (ObjectNode) node.get("calendar");
        rejectUnknown(calendar, CALENDAR_FIELDS, "calendar");
        CalendarRequest.Builder request = CalendarRequest.newBuilder()
                .setExcludeDates(textList(calendar, "excludeDates"))
                .setExcludeWeekdays(textList(calendar, "excludeWeekdays"))
                .setDescription(optionalText(calendar, "description"));
        String zone = optionalText(calendar, "zone");
        if (zone != null) {
            request.setZone(zone);
        }
        List<DateRange> ranges = new ArrayList<>();
        for (ObjectNode range : objectList(calendar, "excludeRanges")) {
            ranges.add(new DateRange(requiredText(range, "from"), requiredText(range, "to")));
        }
        List<DailyWindow> windows = new ArrayList<>();
        for (ObjectNode window : objectList(calendar, "excludeDaily")) {
            windows.add(new DailyWindow(requiredText(window, "from"), requiredText(window, "to")));
        }
        return request.setExcludeRanges(ranges).setExcludeDaily(windows).build();
    }

    private static List<String> textList(ObjectNode node, String field) {
        List<String> list = new ArrayList<>();
        for (JsonNode element : array(node, field)) {
            if (!element.isTextual()) {
                throw new InvalidRequestException(field, field + " must be an array of strings: " + quote(element));
            }
            list.add(element.textValue());
        }
        return list;
    }

    private static List<ObjectNode> objectList(ObjectNode node, String field) {
        List<ObjectNode> list = new ArrayList<>();
        for (JsonNode element : array(node, field)) {
            if (!element.isObject()) {
                throw new InvalidRequestException(field, field + " must be an array of {\"from\":...,\"to\":...}: " + quote(element));
            }
            rejectUnknown((ObjectNode) element, WINDOW_FIELDS, field + " entry");
            list.add((ObjectNode) element);
        }
        return list;
    }

    private static JsonNode array(ObjectNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return MAPPER.createArrayNode();
        }
        if (!value.isArray()) {
            throw new InvalidRequestException(field, field + " must be an array: " + quote(value));
        }
        if (value.size() > MAX_CALENDAR_ENTRIES) {
            throw new InvalidRequestException(field, field + " has " + value.size() + " entries, more than " + MAX_CALENDAR_ENTRIES);
        }
        return value;
    }

    private static ReplayRequest parseReplay(ObjectNode node) {
        rejectUnknown(node, REPLAY_FIELDS, "replay request");
        requireTrue(node, "replay");
        return ReplayRequest.newBuilder().setReason(optionalText(node, "reason")).build();
    }

    private static TriggerRequest parseRunNow(ObjectNode node) {
        rejectUnknown(node, TRIGGER_FIELDS, "trigger request");
        requireTrue(node, "trigger");
        return TriggerRequest.newBuilder().setReason(optionalText(node, "reason")).build();
    }

    private static void requireTrue(ObjectNode node, String field) {
        if (!node.get(field).isBoolean() || !node.get(field).booleanValue()) {
            throw new InvalidRequestException(field, field + " must be true: " + quote(node.get(field)));
        }
    }

    private static CancelRequest parseCancel(ObjectNode node) {
        rejectUnknown(node, CANCEL_FIELDS, "cancel request");
        requireTrue(node, "cancel");
        return CancelRequest.newBuilder().setReason(optionalText(node, "reason")).build();
    }

    /**
     * The payload is taken byte for byte as it stands in the request (numbers, escapes and white space
     * included), never re-serialised: a handler gets exactly what the producer sent.
     */
    private static ScheduleRequest parseSchedule(ObjectNode node, byte[] rawPayload) {
        rejectUnknown(node, SCHEDULE_FIELDS, "schedule request");
        ScheduleRequest.Builder request = ScheduleRequest.newBuilder()
                .setJobType(requiredText(node, "jobType"))
                .setTrigger(parseTrigger(node))
                .setPayload(rawPayload != null ? ByteBuffer.wrap(rawPayload) : null)
                .setOwner(optionalText(node, "owner"))
                .setTimeoutMs(optionalLong(node, "timeoutMs"))
                .setBackoffMs(optionalLong(node, "backoffMs"))
                .setScheduleToStartTimeoutMs(optionalLong(node, "scheduleToStartTimeoutMs"))
                .setStartToCloseTimeoutMs(optionalLong(node, "startToCloseTimeoutMs"))
                .setHeartbeatTimeoutMs(optionalLong(node, "heartbeatTimeoutMs"));
        Long priority = optionalLong(node, "priority");
        if (priority != null) {
            request.setPriority(toInt("priority", priority));
        }
        Long maxRetries = optionalLong(node, "maxRetries");
        if (maxRetries != null) {
            request.setMaxRetries(toInt("maxRetries", maxRetries));
        }
        if (node.has("backoffIntervalsMs")) {
            request.setBackoffIntervalsMs(longList(node, "backoffIntervalsMs"));
        }
        if (node.has("jitter")) {
            request.setJitter(requiredBoolean(node, "jitter"));
        }
        String ifExists = optionalText(node, "ifExists");
        if (ifExists != null) {
            request.setIfExists(parseEnum("ifExists", IfExists.class, ifExists));
        }
        parsePeriodicOptions(node, request);
        parseDependencies(node, request);
        parseShards(node, request);
        return request.build();
    }

    /** endAt, maxOccurrences, misfire, maxCatchUp, occurrenceJitterMs, overlap: the validator says where they may go. */
    private static void parsePeriodicOptions(ObjectNode node, ScheduleRequest.Builder request) {
        if (node.has("endAt") && !node.get("endAt").isNull()) {
            request.setEndAtMs(requiredTime(node, "endAt"));
        }
        request.setMaxOccurrences(optionalLong(node, "maxOccurrences"));
        String misfire = optionalText(node, "misfire");
        if (misfire != null) {
            request.setMisfire(parseEnum("misfire", MisfirePolicy.class, misfire));
        }
        Long maxCatchUp = optionalLong(node, "maxCatchUp");
        if (maxCatchUp != null) {
            request.setMaxCatchUp(toInt("maxCatchUp", maxCatchUp));
        }
        Long jitterMs = optionalLong(node, "occurrenceJitterMs");
        if (jitterMs != null) {
            request.setOccurrenceJitterMs(jitterMs);
        }
        String overlap = optionalText(node, "overlap");
        if (overlap != null) {
            request.setOverlap(parseEnum("overlap", OverlapPolicy.class, overlap));
        }
        request.setCalendar(optionalText(node, "calendar"));
    }

    /**
     * {@code "after":[{"taskId":"A","on":"SUCCESS"}, ...]} ({@code on} defaults to SUCCESS), {@code afterDelayMs},
     * {@code afterTimeoutMs}, {@code afterRunAnyway}: the validator checks the rules beyond the form.
     */
    private static void parseDependencies(ObjectNode node, ScheduleRequest.Builder request) {
        if (node.has("after") && !node.get("after").isNull()) {
            JsonNode after = node.get("after");
            if (!after.isArray()) {
                throw new InvalidRequestException("after", "after must be an array of {\"taskId\":...,\"on\":...}: " + quote(after));
            }
            if (after.size() > io.ax.validation.ScheduleValidator.MAX_DEPENDENCIES) {
                throw new InvalidRequestException("after", "after names " + after.size() + " tasks, more than "
                        + io.ax.validation.ScheduleValidator.MAX_DEPENDENCIES + "; wait for more through intermediate tasks"
                        + " (topology-docs/WORKFLOWS.md)");
            }
            List<Dependency> dependencies = new ArrayList<>();
            for (JsonNode element : after) {
                if (!element.isObject()) {
                    throw new InvalidRequestException("after", "after must be an array of {\"taskId\":...,\"on\":...}: " + quote(element));
                }
                ObjectNode dependency = (ObjectNode) element;
                rejectUnknown(dependency, DEPENDENCY_FIELDS, "after entry");
                String on = optionalText(dependency, "on");
                dependencies.add(new Dependency(requiredText(dependency, "taskId"),
                        on == null ? DependencyCondition.SUCCESS : parseEnum("on", DependencyCondition.class, on)));
            }
            request.setAfter(dependencies);
        }
        Long afterDelayMs = optionalLong(node, "afterDelayMs");
        if (afterDelayMs != null) {
            request.setAfterDelayMs(afterDelayMs);
        }
        Long afterTimeoutMs = optionalLong(node, "afterTimeoutMs");
        if (afterTimeoutMs != null) {
            request.setAfterTimeoutMs(afterTimeoutMs);
        }
        if (node.has("afterRunAnyway")) {
            request.setAfterRunAnyway(requiredBoolean(node, "afterRunAnyway"));
        }
    }

    /** {@code "shards":N} and {@code "shardFailure":"CANCEL_OTHERS|LET_FINISH"}: the validator checks the bounds. */
    private static void parseShards(ObjectNode node, ScheduleRequest.Builder request) {
        Long shards = optionalLong(node, "shards");
        if (shards != null) {
            request.setShards(toInt("shards", shards));
        }
        String shardFailure = optionalText(node, "shardFailure");
        if (shardFailure != null) {
            request.setShardFailure(parseEnum("shardFailure", io.ax.schema.ShardFailurePolicy.class, shardFailure));
        }
    }

    private static Object parseTrigger(ObjectNode node) {
        List<String> triggers = List.of("at", "delayMs", "everyMs", "cron").stream().filter(node::has).toList();
        if (triggers.isEmpty() && node.has("after")) {
            return new DelayTrigger(0L); // a task that waits for others needs no trigger of its own: due once they are met
        }
        if (triggers.size() != 1) {
            throw new InvalidRequestException("trigger", triggers.isEmpty()
                    ? "missing trigger: give one of at, delayMs, everyMs, cron"
                    : "more than one trigger: " + String.join(", ", triggers) + " (give exactly one)");
        }
        if (node.has("startAt") && !node.has("everyMs")) {
            throw new InvalidRequestException("startAt", "startAt goes with everyMs only");
        }
        if (node.has("zone") && !node.has("cron")) {
            throw new InvalidRequestException("zone", "zone goes with cron only");
        }
        switch (triggers.get(0)) {
            case "at":
                return new AtTrigger(requiredTime(node, "at"));
            case "delayMs":
                return new DelayTrigger(requiredLong(node, "delayMs"));
            case "everyMs":
                return new IntervalTrigger(requiredLong(node, "everyMs"),
                        node.has("startAt") ? requiredTime(node, "startAt") : null);
            default:
                String zone = optionalText(node, "zone");
                return new CronTrigger(requiredText(node, "cron"), zone == null ? "UTC" : zone);
        }
    }

    /** An {@link ExecutionReport} from its JSON form. */
    public static ExecutionReport parseReport(byte[] json) {
        ObjectNode node = parseObject(json, null).fields();
        rejectUnknown(node, REPORT_FIELDS, "execution report");
        ExecutionReport.Builder report = ExecutionReport.newBuilder()
                .setExecutionId(requiredText(node, "executionId"))
                .setAttempt(toInt("attempt", requiredLong(node, "attempt")))
                .setStatus(parseEnum("status", ReportStatus.class, requiredText(node, "status")))
                .setMessage(optionalText(node, "message"))
                .setWorkerId(optionalText(node, "workerId"))
                .setProgress(optionalText(node, "progress"))
                .setExtendMs(optionalLong(node, "extendMs"))
                .setReportedAtMs(node.has("reportedAt") ? requiredTime(node, "reportedAt") : null);
        if (node.has("retryable")) {
            report.setRetryable(requiredBoolean(node, "retryable"));
        }
        return report.build();
    }

    /** The JSON line written to {@code ax.state}; null fields are left out, times are ISO-8601. */
    public static String stateChangeJson(StateChange change) {
        return new String(stateChangeJsonBytes(change), StandardCharsets.UTF_8);
    }

    /**
     * {@link #stateChangeJson} as UTF-8 bytes, written with a streaming generator: one is built for every state
     * change, so no tree and no intermediate String.
     */
    public static byte[] stateChangeJsonBytes(StateChange change) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        try (JsonGenerator json = MAPPER.getFactory().createGenerator(out)) {
            json.writeStartObject();
            writeIfNotNull(json, "taskId", change.getTaskId());
            writeIfNotNull(json, "executionId", change.getExecutionId());
            if (change.getAttempt() != null) {
                json.writeNumberField("attempt", change.getAttempt());
            }
            writeIfNotNull(json, "from", change.getFrom());
            json.writeStringField("to", change.getTo().name());
            json.writeStringField("at", IsoInstants.of(change.getAtMs()));
            if (change.getDueAtMs() != null) {
                json.writeStringField("dueAt", IsoInstants.of(change.getDueAtMs()));
            }
            writeIfNotNull(json, "jobType", change.getJobType());
            writeIfNotNull(json, "reason", change.getReason());
            if (change.getSkipped() != null) {
                json.writeNumberField("skipped", change.getSkipped());
            }
            if (change.getLastDueAtMs() != null) {
                json.writeStringField("lastDueAt", IsoInstants.of(change.getLastDueAtMs()));
            }
            writeIfNotNull(json, "calendar", change.getCalendar());
            if (change.getShard() != null) {
                json.writeNumberField("shard", change.getShard());
            }
            if (change.getShards() != null) {
                json.writeNumberField("shards", change.getShards());
            }
            SourceRecord source = change.getSource();
            if (source != null) {
                json.writeObjectFieldStart("source");
                json.writeStringField("topic", source.getTopic());
                json.writeNumberField("partition", source.getPartition());
                json.writeNumberField("offset", source.getOffset());
                json.writeEndObject();
            }
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /**
     * The JSON line written to {@code ax.state} (key = the calendar's name) when a calendar request was applied:
     * {@code {"calendar":"holidays","to":"ACCEPTED","at":"...","reason":"calendar set: ...","source":{...}}}. No
     * {@code taskId}: it is about no task. {@code ACCEPTED} is not a task state ({@code TaskState} has no such symbol,
     * so readers of the StateChange schema are unaffected); it appears on these lines only.
     */
    public static byte[] calendarAcceptedJsonBytes(String calendar, long atMs, String reason, SourceRecord source) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        try (JsonGenerator json = MAPPER.getFactory().createGenerator(out)) {
            json.writeStartObject();
            json.writeStringField("calendar", calendar);
            json.writeStringField("to", "ACCEPTED");
            json.writeStringField("at", IsoInstants.of(atMs));
            writeIfNotNull(json, "reason", reason);
            if (source != null) {
                json.writeObjectFieldStart("source");
                json.writeStringField("topic", source.getTopic());
                json.writeNumberField("partition", source.getPartition());
                json.writeNumberField("offset", source.getOffset());
                json.writeEndObject();
            }
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private static void writeIfNotNull(JsonGenerator json, String field, String value) throws IOException {
        if (value != null) {
            json.writeStringField(field, value);
        }
    }

    /**
     * A JSON object's top-level fields as a tree, except {@code rawField}, whose value is kept as the exact bytes
     * it was sent as ({@code null} when absent or JSON null). Nesting and number lengths are bounded by the
     * parser's constraints, a field named twice is refused (which one would win is not obvious to a sender), and
     * nothing may follow the object.
     */
    private static JsonObject parseObject(byte[] json, String rawField) {
        try (JsonParser parser = FACTORY.createParser(json)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw new InvalidRequestException(null, "expected a JSON object");
            }
            ObjectNode fields = MAPPER.createObjectNode();
            byte[] raw = null;
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String name = parser.currentName();
                if (fields.has(name)) {
                    throw new InvalidRequestException(name, "field " + Quote.of(name) + " appears more than once");
                }
                JsonToken value = parser.nextToken();
                if (name.equals(rawField)) {
                    raw = rawValue(parser, json, value);
                    fields.putNull(name);
                } else {
                    fields.set(name, MAPPER.readTree(parser));
                }
            }
            if (parser.nextToken() != null) {
                throw new InvalidRequestException(null, "unexpected content after the JSON object");
            }
            return new JsonObject(fields, raw);
        } catch (IOException e) {
            throw new InvalidRequestException(null, "malformed JSON: " + Quote.truncate(firstLine(originalMessage(e)), 300), e);
        }
    }

    private record JsonObject(ObjectNode fields, byte[] raw) {
    }

    /** The bytes of the value the parser stands on, from its first to its last byte; null for JSON null. */
    private static byte[] rawValue(JsonParser parser, byte[] json, JsonToken value) throws IOException {
        if (value == JsonToken.VALUE_NULL) {
            return null;
        }
        long start = parser.currentTokenLocation().getByteOffset();
        parser.skipChildren();
        parser.finishToken();
        long end = parser.currentLocation().getByteOffset();
        if (start < 0 || end > json.length || end <= start) {
            throw new InvalidRequestException(null, "cannot locate the value's bytes");
        }
        return Arrays.copyOfRange(json, (int) start, (int) end);
    }

    private static String originalMessage(IOException e) {
        return e instanceof JsonProcessingException jpe ? jpe.getOriginalMessage() : e.getMessage();
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "unreadable";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }

    private static void rejectUnknown(ObjectNode node, Set<String> allowed, String what) {
        List<String> unknown = new ArrayList<>();
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!allowed.contains(name)) {
                unknown.add(name);
            }
        }
        if (!unknown.isEmpty()) {
            throw new InvalidRequestException(unknown.get(0), "unknown field" + (unknown.size() > 1 ? "s " : " ")
                    + unknown.stream().limit(5).map(JsonForms::fieldName).collect(Collectors.joining(", "))
                    + (unknown.size() > 5 ? " and " + (unknown.size() - 5) + " more" : "") + " in " + what + " (allowed: "
                    + allowed.stream().sorted().collect(Collectors.joining(", ")) + ")");
        }
    }

    private static boolean requiredBoolean(ObjectNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || !value.isBoolean()) {
            throw new InvalidRequestException(field, field + " must be true or false: " + quote(value));
        }
        return value.booleanValue();
    }

    private static String requiredText(ObjectNode node, String field) {
        String text = optionalText(node, field);
        if (text == null) {
            throw new InvalidRequestException(field, "missing " + field);
        }
        return text;
    }

    private static String optionalText(ObjectNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isTextual()) {
            throw new InvalidRequestException(field, field + " must be a string: " + quote(value));
        }
        return value.textValue();
    }

    private static long requiredLong(ObjectNode node, String field) {
        Long value = optionalLong(node, field);
        if (value == null) {
            throw new InvalidRequestException(field, "missing " + field);
        }
        return value;
    }

    private static Long optionalLong(ObjectNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isIntegralNumber() || !value.canConvertToLong()) {
            throw new InvalidRequestException(field, field + " must be a whole number: " + quote(value));
        }
        return value.longValue();
    }

    private static int toInt(String field, long value) {
        if (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE) {
            throw new InvalidRequestException(field, field + " is out of range: " + value);
        }
        return (int) value;
    }

    private static List<Long> longList(ObjectNode node, String field) {
        JsonNode value = node.get(field);
        if (!value.isArray()) {
            throw new InvalidRequestException(field, field + " must be an array of whole numbers: " + quote(value));
        }
        if (value.size() > MAX_LIST_ENTRIES) {
            throw new InvalidRequestException(field, field + " has " + value.size() + " entries, more than " + MAX_LIST_ENTRIES);
        }
        List<Long> list = new ArrayList<>();
        for (JsonNode element : value) {
            if (!element.isIntegralNumber() || !element.canConvertToLong()) {
                throw new InvalidRequestException(field, field + " must be an array of whole numbers: " + quote(element));
            }
            list.add(element.longValue());
        }
        return list;
    }

    /**
     * An instant as ISO-8601 text (with Z or an offset) or epoch milliseconds, between 1970 and
     * {@link #ScheduleValidator.MAX_INSTANT_MS} (year 9999).
     */
    private static long requiredTime(ObjectNode node, String field) {
        JsonNode value = node.get(field);
        long ms;
        if (value != null && value.isIntegralNumber() && value.canConvertToLong()) {
            ms = value.longValue();
        } else if (value != null && value.isTextual()) {
            try {
                ms = OffsetDateTime.parse(value.textValue()).toInstant().toEpochMilli();
            } catch (DateTimeException | ArithmeticException e) {
                throw new InvalidRequestException(field, field + " is not an ISO-8601 instant between 1970 and 9999 such as "
                        + "2026-12-01T02:00:00Z: " + Quote.of(value.textValue()), e);
            }
        } else {
            throw new InvalidRequestException(field, field + " must be an ISO-8601 instant or epoch milliseconds: " + quote(value));
        }
        if (ms < 0 || ms > ScheduleValidator.MAX_INSTANT_MS) {
            throw new InvalidRequestException(field, field + " must be between 1970-01-01T00:00:00Z and "
                    + "9999-12-31T23:59:59.999Z: " + quote(value));
        }
        return ms;
    }

    private static <E extends Enum<E>> E parseEnum(String field, Class<E> type, String text) {
        try {
            return Enum.valueOf(type, text);
        } catch (IllegalArgumentException e) {
            throw new InvalidRequestException(field, field + " must be one of "
                    + Arrays.toString(type.getEnumConstants()) + ": " + Quote.of(text));
        }
    }

    /** A JSON value quoted short for a message: a string as its text, anything else as its JSON. */
    private static String quote(JsonNode value) {
        return value != null && value.isTextual() ? Quote.of(value.textValue()) : Quote.of(value);
    }

    private static String fieldName(String name) {
        return Quote.of(name).replace("\"", "");
    }
}
