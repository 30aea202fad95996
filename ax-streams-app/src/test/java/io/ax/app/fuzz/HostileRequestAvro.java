package io.ax.app.fuzz;

import static io.ax.app.fuzz.HostileValues.pick;

import io.ax.schema.AtTrigger;
import io.ax.schema.CalendarRequest;
import io.ax.schema.CancelRequest;
import io.ax.schema.DailyWindow;
import io.ax.schema.DateRange;
import io.ax.schema.IfExists;
import io.ax.schema.MisfirePolicy;
import io.ax.schema.OverlapPolicy;
import io.ax.schema.CronTrigger;
import io.ax.schema.DelayTrigger;
import io.ax.schema.ExecutionReport;
import io.ax.schema.IntervalTrigger;
import io.ax.schema.ReplayRequest;
import io.ax.schema.ReportStatus;
import io.ax.schema.RetryRecord;
import io.ax.schema.ScheduleRequest;
import io.ax.schema.TriggerRequest;
import io.ax.validation.ScheduleValidator;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.avro.specific.SpecificRecord;

/**
 * Schedule, cancel, replay, trigger and calendar requests in Avro single-object encoding on {@code ax.requests}: the
 * periodic fields (endAtMs, maxOccurrences, maxCatchUp, occurrenceJitterMs, misfire, overlap, ifExists UPDATE, calendar)
 * and CalendarRequest's lists and strings at their extremes.
 */
final class HostileRequestAvro {
    static final List<String> LENGTH_SLOTS = List.of("jobType", "cron.expression", "cron.zone", "payload", "owner",
            "backoffIntervalsMs", "cancel.reason", "replay.reason", "trigger.reason");
    static final long[] EXTREME_LONGS = {Long.MIN_VALUE, Long.MIN_VALUE + 1, -1, 0, 1, ScheduleValidator.MAX_DELAY_MS,
            ScheduleValidator.MAX_DELAY_MS + 1, Long.MAX_VALUE / 2, Long.MAX_VALUE - 1, Long.MAX_VALUE};
    static final int[] EXTREME_INTS = {Integer.MIN_VALUE, -1, 0, 9, 10, 100, 101, Integer.MAX_VALUE};

    private HostileRequestAvro() {
    }

    static List<Maker> makers() {
        return List.of(HostileRequestAvro::lyingLength, HostileRequestAvro::extremeField, HostileRequestAvro::hugeField,
                HostileRequestAvro::manyBackoffIntervals, HostileRequestAvro::truncated, HostileRequestAvro::bitFlipped,
                HostileRequestAvro::unknownFingerprint, HostileRequestAvro::wrongType, HostileRequestAvro::badIndex,
                HostileRequestAvro::periodicExtreme, HostileRequestAvro::hostileCalendar, HostileRequestAvro::manyCalendarDates);
    }

    private static HostileInput input(String family, String detail, byte[] value) {
        return HostileInput.of("requests/avro/" + family + "/" + detail, FuzzTopic.REQUESTS, value);
    }

    static ScheduleRequest.Builder validRequest() {
        return ScheduleRequest.newBuilder().setJobType("fz").setTrigger(new DelayTrigger(0L));
    }

    static byte[] validSample(SplittableRandom random) {
        SpecificRecord record = switch (random.nextInt(9)) {
            case 7 -> validRequest().setTrigger(new IntervalTrigger(60_000L, null)).setEndAtMs(1_900_000_000_000L)
                    .setMaxOccurrences(5L).setMisfire(MisfirePolicy.FIRE_ALL).setMaxCatchUp(3).setOccurrenceJitterMs(500)
                    .setOverlap(OverlapPolicy.QUEUE_ONE).setIfExists(IfExists.UPDATE).setCalendar(HostileRequestJson.CALENDAR).build();
            case 8 -> CalendarRequest.newBuilder().setZone("Europe/Berlin").setExcludeDates(List.of("2026-12-25"))
                    .setExcludeRanges(List.of(new DateRange("2026-12-24", "2026-12-31"))).setExcludeWeekdays(List.of("SUNDAY"))
                    .setExcludeDaily(List.of(new DailyWindow("22:00", "06:00"))).setDescription("fz").build();
            case 0 -> validRequest().build();
            case 1 -> validRequest().setTrigger(new CronTrigger("0 2 * * *", "Asia/Shanghai")).setOwner("team")
                    .setPayload(ByteBuffer.wrap("{\"to\":\"a@b.c\"}".getBytes(StandardCharsets.UTF_8))).build();
            case 2 -> validRequest().setTrigger(new IntervalTrigger(60_000L, 1_800_000_000_000L)).setTimeoutMs(5_000L)
                    .setBackoffIntervalsMs(List.of(1_000L, 5_000L)).build();
            case 3 -> validRequest().setTrigger(new AtTrigger(1_800_000_000_000L)).setBackoffMs(10L).setMaxRetries(5).build();
            case 4 -> CancelRequest.newBuilder().setReason("no longer needed").build();
            case 5 -> TriggerRequest.newBuilder().setReason("run now").build();
            default -> ReplayRequest.newBuilder().setReason("fixed").build();
        };
        return HostileBytes.encode(record);
    }

    /** A record whose string, bytes or array length at {@code slot} lies; the record ends a few bytes after it. */
    static HostileInput lyingLength(SplittableRandom random) {
        String slot = pick(random, LENGTH_SLOTS);
        String family = pick(random, HostileBytes.LENGTH_FAMILIES);
        byte[] tail = slot.equals("backoffIntervalsMs") ? ones(random.nextInt(20)) : HostileBytes.randomBytes(random, random.nextInt(20));
        long declared = HostileBytes.lyingLength(random, family, tail.length);
        return input(family, slot, lyingAt(slot, declared, tail));
    }

    private static byte[] ones(int count) {
        byte[] ones = new byte[count];
        java.util.Arrays.fill(ones, (byte) 2); // zig-zag 1
        return ones;
    }

    static byte[] lyingAt(String slot, long declared, byte[] tail) {
        if (slot.startsWith("cancel.")) {
            return AvroBytes.singleObject(CancelRequest.getClassSchema()).index(1).lyingLength(declared, tail).bytes();
        }
        if (slot.startsWith("replay.")) {
            return AvroBytes.singleObject(ReplayRequest.getClassSchema()).index(1).lyingLength(declared, tail).bytes();
        }
        if (slot.startsWith("trigger.")) {
            return AvroBytes.singleObject(TriggerRequest.getClassSchema()).index(1).lyingLength(declared, tail).bytes();
        }
        AvroBytes bytes = AvroBytes.singleObject(ScheduleRequest.getClassSchema());
        if (slot.equals("jobType")) {
            return bytes.lyingLength(declared, tail).bytes();
        }
        bytes.string("fz");
        if (slot.startsWith("cron.")) {
            bytes.index(3);
            if (slot.equals("cron.expression")) {
                return bytes.lyingLength(declared, tail).bytes();
            }
            return bytes.string("0 2 * * *").lyingLength(declared, tail).bytes();
        }
        bytes.index(1).varint(0); // DelayTrigger(0)
        if (slot.equals("payload")) {
            return bytes.index(1).lyingLength(declared, tail).bytes();
        }
        bytes.index(0).varint(4); // no payload, priority 4
        if (slot.equals("owner")) {
            return bytes.index(1).lyingLength(declared, tail).bytes();
        }
        bytes.index(0).index(0).varint(3).index(0); // no owner, no timeout, maxRetries 3, no backoffMs
        return bytes.lyingLength(declared, tail).bytes(); // backoffIntervalsMs block count
    }

    /** A well-formed request with one number at an extreme. */
    static HostileInput extremeField(SplittableRandom random) {
        String field = pick(random, List.of("at", "delayMs", "everyMs", "startAt", "timeoutMs", "backoffMs",
                "backoffIntervalsMs", "maxRetries", "priority"));
        long value = EXTREME_LONGS[random.nextInt(EXTREME_LONGS.length)];
        int intValue = EXTREME_INTS[random.nextInt(EXTREME_INTS.length)];
        ScheduleRequest.Builder request = validRequest();
        switch (field) {
            case "at" -> request.setTrigger(new AtTrigger(value));
            case "delayMs" -> request.setTrigger(new DelayTrigger(value));
            case "everyMs" -> request.setTrigger(new IntervalTrigger(value, null));
            case "startAt" -> request.setTrigger(new IntervalTrigger(60_000L, value));
            case "timeoutMs" -> request.setTimeoutMs(value);
            case "backoffMs" -> request.setBackoffMs(value);
            case "backoffIntervalsMs" -> request.setBackoffIntervalsMs(List.of(value));
            case "maxRetries" -> request.setMaxRetries(intValue);
            default -> request.setPriority(intValue);
        }
        return input("extreme", field, HostileBytes.encode(request.build()));
    }

    static HostileInput hugeField(SplittableRandom random) {
        String field = pick(random, List.of("jobType", "owner", "cron.expression", "cron.zone", "payload", "cancel.reason",
                "replay.reason", "trigger.reason"));
        String huge = "x".repeat(random.nextInt(4) == 0 ? HostileValues.NEAR_LIMIT_CHARS : HostileValues.HUGE_CHARS);
        SpecificRecord record = switch (field) {
            case "jobType" -> validRequest().setJobType(huge).build();
            case "owner" -> validRequest().setOwner(huge).build();
            case "cron.expression" -> validRequest().setTrigger(new CronTrigger(huge, "UTC")).build();
            case "cron.zone" -> validRequest().setTrigger(new CronTrigger("0 2 * * *", huge)).build();
            case "payload" -> validRequest().setPayload(ByteBuffer.wrap(huge.getBytes(StandardCharsets.UTF_8))).build();
            case "cancel.reason" -> CancelRequest.newBuilder().setReason(huge).build();
            case "trigger.reason" -> TriggerRequest.newBuilder().setReason(huge).build();
            default -> ReplayRequest.newBuilder().setReason(huge).build();
        };
        return input("huge-field", field, HostileBytes.encode(record));
    }

    /** A well-formed request whose backoffIntervalsMs holds a million entries (written directly: the builder is slow). */
    static HostileInput manyBackoffIntervals(SplittableRandom random) {
        AvroBytes bytes = AvroBytes.singleObject(ScheduleRequest.getClassSchema()).string("fz").index(1).varint(0) // DelayTrigger(0)
                .index(0).varint(4).index(0).index(0).varint(3).index(0); // no payload, priority 4, no owner/timeout, 3 retries
        long interval = random.nextInt(4) == 0 ? Long.MAX_VALUE : 1;
        bytes.varint(HostileValues.MANY_ENTRIES);
        for (int i = 0; i < HostileValues.MANY_ENTRIES; i++) {
            bytes.varint(interval);
        }
        return input("many-entries", "backoffIntervalsMs", bytes.varint(0).bool(true).index(0).bytes());
    }

    static HostileInput truncated(SplittableRandom random) {
        return input("truncated", "any", HostileBytes.truncated(random, validSample(random)));
    }

    static HostileInput bitFlipped(SplittableRandom random) {
        return input("bit-flip", "any", HostileBytes.bitFlipped(random, validSample(random)));
    }

    static HostileInput unknownFingerprint(SplittableRandom random) {
        return input("unknown-fingerprint", "any", HostileBytes.unknownFingerprint(random, validSample(random)));
    }

    /** An ax record of a type the requests topic does not carry. */
    static HostileInput wrongType(SplittableRandom random) {
        List<SpecificRecord> records = new ArrayList<>(HostileBytes.foreignRecords());
        records.add(ExecutionReport.newBuilder().setExecutionId("e").setAttempt(1).setStatus(ReportStatus.SUCCEEDED).build());
        records.add(RetryRecord.newBuilder().setExecutionId("e").setAttempt(2).setNextAttemptAtMs(0).setBackoffMs(1).setJobType("fz").build());
        SpecificRecord record = pick(random, records);
        return input("wrong-type", record.getSchema().getName(), HostileBytes.encode(record));
    }

    /** A union branch or enum symbol index out of range. */
    static HostileInput badIndex(SplittableRandom random) {
        int index = pick(random, List.of(-1, 4, 5, 1_000_000_000, Integer.MAX_VALUE, Integer.MIN_VALUE));
        AvroBytes bytes = AvroBytes.singleObject(ScheduleRequest.getClassSchema()).string("fz");
        String where = pick(random, List.of("trigger", "payload", "ifExists"));
        byte[] value = switch (where) {
            case "trigger" -> bytes.index(index).varint(0).bytes();
            case "payload" -> bytes.index(1).varint(0).index(index).bytes();
            default -> bytes.index(1).varint(0).index(0).varint(4).index(0).index(0).varint(3).index(0).varint(0).bool(true)
                    .index(index).bytes();
        };
        return input("bad-index", where, value);
    }

    /** A periodic request (interval or cron) with one of its options at an extreme. */
    static HostileInput periodicExtreme(SplittableRandom random) {
        String field = pick(random, List.of("endAtMs", "maxOccurrences", "maxCatchUp", "occurrenceJitterMs", "misfire",
                "overlap", "ifExists", "calendar"));
        long value = EXTREME_LONGS[random.nextInt(EXTREME_LONGS.length)];
        int intValue = EXTREME_INTS[random.nextInt(EXTREME_INTS.length)];
        ScheduleRequest.Builder request = validRequest().setTrigger(random.nextBoolean() ? new IntervalTrigger(60_000L, null)
                : new CronTrigger("*/5 * * * *", "Europe/Berlin"));
        switch (field) {
            case "endAtMs" -> request.setEndAtMs(value);
            case "maxOccurrences" -> request.setMaxOccurrences(value);
            case "maxCatchUp" -> request.setMaxCatchUp(intValue);
            case "occurrenceJitterMs" -> request.setOccurrenceJitterMs(value);
            case "misfire" -> request.setMisfire(pick(random, List.of(MisfirePolicy.values())));
            case "overlap" -> request.setOverlap(pick(random, List.of(OverlapPolicy.values())));
            case "ifExists" -> request.setIfExists(IfExists.UPDATE);
            default -> request.setCalendar(pick(random, List.of(HostileRequestJson.CALENDAR, "", "x".repeat(HostileValues.HUGE_CHARS),
                    "\u0000", "no-such-calendar")));
        }
        return input("periodic-extreme", field, HostileBytes.encode(request.build()));
    }

    /** A calendar with one string huge or malformed, or a list at or past its bound. */
    static HostileInput hostileCalendar(SplittableRandom random) {
        String field = pick(random, List.of("zone", "excludeDates", "excludeRanges", "excludeWeekdays", "excludeDaily",
                "description", "delete"));
        String huge = "x".repeat(random.nextInt(4) == 0 ? HostileValues.NEAR_LIMIT_CHARS : HostileValues.HUGE_CHARS);
        CalendarRequest.Builder calendar = CalendarRequest.newBuilder();
        int many = pick(random, List.of(0, 7, 8, 24, 25, 100, 101, 1000, 1001, 5000));
        switch (field) {
            case "zone" -> calendar.setZone(pick(random, List.of(huge, "", "Mars/Base", "+25:00")));
            case "excludeDates" -> calendar.setExcludeDates(random.nextBoolean() ? java.util.Collections.nCopies(many, "2027-01-01")
                    : List.of(pick(random, List.of(huge, "2027-02-30", "", "\u0000"))));
            case "excludeRanges" -> calendar.setExcludeRanges(random.nextBoolean()
                    ? java.util.Collections.nCopies(many, new DateRange("2027-01-01", "2027-01-02"))
                    : List.of(new DateRange(pick(random, List.of(huge, "2027-01-02", "1969-01-01")), "2027-01-01")));
            case "excludeWeekdays" -> calendar.setExcludeWeekdays(random.nextBoolean() ? java.util.Collections.nCopies(many, "MONDAY")
                    : List.of(pick(random, List.of(huge, "monday", "DAY"))));
            case "excludeDaily" -> calendar.setExcludeDaily(random.nextBoolean()
                    ? java.util.Collections.nCopies(many, new DailyWindow("10:00", "11:00"))
                    : List.of(new DailyWindow(pick(random, List.of(huge, "10:00", "25:00", "10:00:00.5")), "10:00")));
            case "description" -> calendar.setDescription(huge);
            default -> calendar.setDelete(true).setZone(huge);
        }
        return input("calendar", field, HostileBytes.encode(calendar.build()));
    }

    /** A calendar whose excludeDates holds a million entries (written directly). */
    static HostileInput manyCalendarDates(SplittableRandom random) {
        AvroBytes bytes = AvroBytes.singleObject(CalendarRequest.getClassSchema()).string("UTC");
        bytes.varint(HostileValues.MANY_ENTRIES);
        for (int i = 0; i < HostileValues.MANY_ENTRIES; i++) {
            bytes.string("2027-01-01");
        }
        return input("many-entries", "excludeDates", bytes.varint(0).varint(0).varint(0).varint(0).index(0).bool(false).bytes());
    }
}
