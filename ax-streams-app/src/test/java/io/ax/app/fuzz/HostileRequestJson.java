package io.ax.app.fuzz;

import static io.ax.app.fuzz.HostileValues.pick;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Schedule, cancel, replay, trigger, pause, resume and calendar requests in JSON on {@code ax.requests}: every field with
 * hostile content, the periodic options (endAt, maxOccurrences, misfire, maxCatchUp, occurrenceJitterMs, overlap,
 * ifExists UPDATE, calendar) at their extremes, and exclusion calendars ({@code {"calendar":{...}}},
 * {@code {"deleteCalendar":true}}) with hostile lists and values.
 */
final class HostileRequestJson {
    static final List<String> FIELDS = List.of("jobType", "at", "delayMs", "everyMs", "startAt", "cron", "zone", "payload",
            "priority", "owner", "timeoutMs", "maxRetries", "backoffMs", "backoffIntervalsMs", "jitter", "ifExists",
            "endAt", "maxOccurrences", "misfire", "maxCatchUp", "occurrenceJitterMs", "overlap", "calendar");
    static final List<String> CALENDAR_FIELDS = List.of("zone", "excludeDates", "excludeRanges", "excludeWeekdays",
            "excludeDaily", "description");
    /** The calendar the valid calendar requests set, which hostile schedule requests name. */
    static final String CALENDAR = "fz-cal";
    static final List<String> NUMERIC_FIELDS = List.of("at", "delayMs", "everyMs", "startAt", "priority", "timeoutMs",
            "maxRetries", "backoffMs", "backoffIntervalsMs", "endAt", "maxOccurrences", "maxCatchUp", "occurrenceJitterMs");
    private static final Map<String, String> VALID = Map.ofEntries(Map.entry("jobType", "\"fz\""),
            Map.entry("at", "\"2027-01-01T00:00:00Z\""), Map.entry("delayMs", "0"), Map.entry("everyMs", "60000"),
            Map.entry("startAt", "\"2027-01-01T00:00:00Z\""), Map.entry("cron", "\"0 2 * * *\""), Map.entry("zone", "\"UTC\""),
            Map.entry("payload", "{\"to\":\"a@b.c\"}"), Map.entry("priority", "4"), Map.entry("owner", "\"team\""),
            Map.entry("timeoutMs", "30000"), Map.entry("maxRetries", "3"), Map.entry("backoffMs", "1000"),
            Map.entry("backoffIntervalsMs", "[1000,5000]"), Map.entry("jitter", "true"), Map.entry("ifExists", "\"KEEP\""),
            Map.entry("endAt", "\"2030-01-01T00:00:00Z\""), Map.entry("maxOccurrences", "10"), Map.entry("misfire", "\"FIRE_ALL\""),
            Map.entry("maxCatchUp", "5"), Map.entry("occurrenceJitterMs", "1000"), Map.entry("overlap", "\"QUEUE_ONE\""),
            Map.entry("calendar", "\"" + CALENDAR + "\""));

    private HostileRequestJson() {
    }

    static List<Maker> makers() {
        return List.of(HostileRequestJson::hugeString, HostileRequestJson::wrongType, HostileRequestJson::extremeNumber,
                HostileRequestJson::extremeInstant, HostileRequestJson::deepField, HostileRequestJson::duplicateKeys,
                HostileRequestJson::unknownField, HostileRequestJson::manyBackoffIntervals, HostileRequestJson::valid,
                HostileRequestJson::cancelOrReplay, HostileRequestJson::edgeString, HostileRequestJson::periodicAtExtremes,
                HostileRequestJson::hostileCalendar, HostileRequestJson::validCalendar);
    }

    /** A valid request that has {@code field} (with the trigger the field goes with) and a valid value for it. */
    static List<Map.Entry<String, String>> requestWith(String field) {
        List<String> names = switch (field) {
            case "at" -> List.of("jobType", "at");
            case "everyMs", "startAt" -> List.of("jobType", "everyMs", "startAt");
            case "endAt", "maxOccurrences", "misfire", "maxCatchUp", "occurrenceJitterMs", "overlap", "calendar" ->
                    List.of("jobType", "everyMs", field);
            case "cron", "zone" -> List.of("jobType", "cron", "zone");
            case "jobType", "delayMs" -> List.of("jobType", "delayMs");
            default -> List.of("jobType", "delayMs", field);
        };
        List<Map.Entry<String, String>> fields = new ArrayList<>();
        names.forEach(name -> fields.add(Map.entry(name, VALID.get(name))));
        return fields;
    }

    static String requestWith(String field, String valueText) {
        List<Map.Entry<String, String>> fields = requestWith(field);
        fields.replaceAll(f -> f.getKey().equals(field) ? Map.entry(field, valueText) : f);
        return HostileValues.object(fields);
    }

    private static HostileInput input(String family, String detail, String json) {
        return HostileInput.of("requests/json/" + family + "/" + detail, FuzzTopic.REQUESTS, json);
    }

    static HostileInput hugeString(SplittableRandom random) {
        String field = pick(random, FIELDS);
        String huge = HostileValues.hugeString(random);
        return input("huge-string", field, requestWith(field, field.equals("backoffIntervalsMs") ? "[" + huge + "]" : huge));
    }

    static HostileInput wrongType(SplittableRandom random) {
        String field = pick(random, FIELDS);
        return input("wrong-type", field, requestWith(field, pick(random, HostileValues.WRONG_TYPES)));
    }

    static HostileInput extremeNumber(SplittableRandom random) {
        String field = pick(random, NUMERIC_FIELDS);
        String number = pick(random, HostileValues.EXTREME_NUMBERS);
        return input("extreme-number", field, requestWith(field, field.equals("backoffIntervalsMs") ? "[" + number + "]" : number));
    }

    static HostileInput extremeInstant(SplittableRandom random) {
        String field = random.nextBoolean() ? "at" : "startAt";
        return input("extreme-instant", field, requestWith(field, pick(random, HostileValues.EXTREME_INSTANTS)));
    }

    static HostileInput deepField(SplittableRandom random) {
        if (random.nextInt(3) == 0) {
            return input("deep", "top-level", HostileValues.deep(random));
        }
        String field = random.nextBoolean() ? "payload" : pick(random, FIELDS);
        return input("deep", field, requestWith(field, HostileValues.deep(random)));
    }

    static HostileInput duplicateKeys(SplittableRandom random) {
        String field = pick(random, FIELDS);
        List<Map.Entry<String, String>> fields = requestWith(field);
        fields.add(Map.entry(field, pick(random, List.of("\"other\"", "-1", "null", "[]", HostileValues.hugeString(random)))));
        return input("duplicate-keys", field, HostileValues.object(fields));
    }

    static HostileInput unknownField(SplittableRandom random) {
        List<Map.Entry<String, String>> fields = requestWith(pick(random, FIELDS));
        String name = pick(random, List.of("delayMS", "", "cancel ", "x".repeat(random.nextBoolean() ? 10 : HostileValues.HUGE_CHARS),
                "\\u0000", "retry", "executionId"));
        fields.add(Map.entry(name, pick(random, HostileValues.WRONG_TYPES)));
        return input("unknown-field", name.isEmpty() ? "empty-name" : name.length() > 20 ? "huge-name" : name,
                HostileValues.object(fields));
    }

    static HostileInput manyBackoffIntervals(SplittableRandom random) {
        return input("many-entries", "backoffIntervalsMs", requestWith("backoffIntervalsMs", HostileValues.manyNumbers(random)));
    }

    /** A request that is in fact valid: the answer is PENDING (then, when due, a dispatch). */
    static HostileInput valid(SplittableRandom random) {
        String trigger = pick(random, List.of("at", "delayMs", "everyMs", "cron"));
        List<Map.Entry<String, String>> fields = requestWith(trigger);
        if (trigger.equals("at") && random.nextBoolean()) {
            fields.set(1, Map.entry("at", pick(random, List.of("0", "\"1970-01-01T00:00:00Z\"", "\"2026-11-30T23:59:59Z\""))));
        }
        for (String optional : List.of("priority", "owner", "timeoutMs", "maxRetries", "backoffIntervalsMs", "jitter", "payload")) {
            if (random.nextBoolean()) {
                fields.add(Map.entry(optional, VALID.get(optional)));
            }
        }
        return input("valid", trigger, HostileValues.object(fields));
    }

    static HostileInput cancelOrReplay(SplittableRandom random) {
        String flag = pick(random, List.of("cancel", "replay", "trigger", "pause", "resume"));
        String json = switch (random.nextInt(5)) {
            case 0 -> "{\"" + flag + "\":true,\"reason\":" + HostileValues.hugeString(random) + "}";
            case 1 -> "{\"" + flag + "\":" + pick(random, HostileValues.WRONG_TYPES) + "}";
            case 2 -> "{\"" + flag + "\":true,\"reason\":" + pick(random, HostileValues.WRONG_TYPES) + "}";
            case 3 -> "{\"cancel\":true,\"" + (flag.equals("cancel") ? "replay" : flag) + "\":true,\"jobType\":\"fz\",\"delayMs\":0}";
            default -> "{\"" + flag + "\":true,\"reason\":" + pick(random, HostileValues.EDGE_STRINGS) + "}";
        };
        return input(flag, "hostile", json);
    }

    static HostileInput edgeString(SplittableRandom random) {
        String field = pick(random, List.of("jobType", "owner", "cron", "zone", "ifExists", "at", "payload"));
        return input("edge-string", field, requestWith(field, pick(random, HostileValues.EDGE_STRINGS)));
    }

    /** A periodic request with its options at their bounds, inside and just outside (UPDATE included). */
    static HostileInput periodicAtExtremes(SplittableRandom random) {
        List<Map.Entry<String, String>> fields = new ArrayList<>(requestWith(random.nextBoolean() ? "everyMs" : "cron"));
        maybeAdd(random, fields, "endAt", pick(random, List.of("\"9999-12-31T23:59:59.999Z\"", "\"2026-12-01T00:00:00Z\"", "0",
                "253402300800000")));
        maybeAdd(random, fields, "maxOccurrences", pick(random, List.of("1", "0", "-1", "9223372036854775807")));
        maybeAdd(random, fields, "misfire", pick(random, List.of("\"FIRE_ONCE\"", "\"FIRE_ALL\"", "\"SKIP\"", "\"ALL\"")));
        maybeAdd(random, fields, "maxCatchUp", pick(random, List.of("1", "10000", "10001", "0", "2147483648")));
        maybeAdd(random, fields, "occurrenceJitterMs", pick(random, List.of("0", "3600000", "3600001", "60000", "60001", "-1")));
        maybeAdd(random, fields, "overlap", pick(random, List.of("\"SKIP\"", "\"QUEUE_ONE\"", "\"ALLOW\"")));
        maybeAdd(random, fields, "ifExists", pick(random, List.of("\"UPDATE\"", "\"REPLACE\"", "\"KEEP\"", "\"update\"")));
        if (random.nextBoolean()) {
            fields.add(Map.entry("calendar", pick(random, List.of("\"" + CALENDAR + "\"", "\"\"", "\"no-such-calendar\"",
                    HostileValues.hugeString(random), "\"\\u0000\""))));
        }
        return input("periodic", "extremes", HostileValues.object(fields));
    }

    private static void maybeAdd(SplittableRandom random, List<Map.Entry<String, String>> fields, String name, String value) {
        if (random.nextInt(3) > 0) {
            fields.add(Map.entry(name, value));
        }
    }

    /** An exclusion calendar with one field hostile: huge, of the wrong type, too many entries, malformed, or excluding all. */
    static HostileInput hostileCalendar(SplittableRandom random) {
        String field = pick(random, CALENDAR_FIELDS);
        String value = switch (random.nextInt(6)) {
            case 0 -> HostileValues.hugeString(random);
            case 1 -> pick(random, HostileValues.WRONG_TYPES);
            case 2 -> field.equals("excludeRanges") || field.equals("excludeDaily")
                    ? "[" + String.join(",", java.util.Collections.nCopies(1001 + random.nextInt(2), "{\"from\":\"10:00\",\"to\":\"11:00\"}")) + "]"
                    : "[" + String.join(",", java.util.Collections.nCopies(1001 + random.nextInt(2), "\"2027-01-01\"")) + "]";
            case 3 -> switch (field) {
                case "excludeRanges" -> pick(random, List.of("[{\"from\":\"2027-01-02\",\"to\":\"2027-01-01\"}]",
                        "[{\"from\":\"2026-01-01\",\"to\":\"2099-12-31\"}]", "[{\"from\":\"1969-12-31\",\"to\":\"2027-01-01\"}]",
                        "[{\"from\":\"+10000-01-01\",\"to\":\"+10000-01-02\"}]", "[{\"from\":\"2027-01-01\"}]", "[{}]"));
                case "excludeDaily" -> pick(random, List.of("[{\"from\":\"10:00\",\"to\":\"10:00\"}]",
                        "[{\"from\":\"24:00\",\"to\":\"01:00\"}]", "[{\"from\":\"1:00\",\"to\":\"2:00\"}]",
                        "[{\"from\":\"10:00\",\"to\":\"11:00\",\"zone\":\"UTC\"}]", "[[\"10:00\",\"11:00\"]]"));
                case "excludeWeekdays" -> pick(random, List.of("[\"MONDAY\",\"TUESDAY\",\"WEDNESDAY\",\"THURSDAY\",\"FRIDAY\",\"SATURDAY\",\"SUNDAY\"]",
                        "[\"monday\"]", "[\"MONDAY\",\"MONDAY\",\"MONDAY\",\"MONDAY\",\"MONDAY\",\"MONDAY\",\"MONDAY\",\"MONDAY\"]"));
                case "excludeDates" -> pick(random, List.of("[\"2027-02-30\"]", "[\"27-01-01\"]", "[\"2027-01-01T00:00:00Z\"]", "[null]"));
                case "zone" -> pick(random, List.of("\"Mars/Base\"", "\"+25:00\"", "\"\"", "\"GMT+14\"", "\"Z\""));
                default -> pick(random, HostileValues.EDGE_STRINGS);
            };
            case 4 -> HostileValues.deep(random);
            default -> pick(random, HostileValues.EDGE_STRINGS);
        };
        String json = random.nextInt(8) == 0
                ? pick(random, List.of("{\"deleteCalendar\":" + pick(random, HostileValues.WRONG_TYPES) + "}",
                        "{\"deleteCalendar\":true,\"calendar\":{}}", "{\"calendar\":{},\"jobType\":\"fz\"}",
                        "{\"calendar\":" + pick(random, HostileValues.WRONG_TYPES) + "}"))
                : "{\"calendar\":{\"" + field + "\":" + value + "}}";
        return input("calendar", field, json);
    }

    /** A valid calendar, set under the name the hostile schedule requests use (ACCEPTED), or deleted. */
    static HostileInput validCalendar(SplittableRandom random) {
        String json = switch (random.nextInt(4)) {
            case 0 -> "{\"deleteCalendar\":true}";
            case 1 -> "{\"calendar\":{\"zone\":\"Europe/Berlin\",\"excludeWeekdays\":[\"SATURDAY\",\"SUNDAY\"],"
                    + "\"excludeDaily\":[{\"from\":\"22:00\",\"to\":\"06:00\"}]}}";
            case 2 -> "{\"calendar\":{\"excludeDates\":[\"2026-12-25\"],\"excludeRanges\":[{\"from\":\"2026-12-24\",\"to\":\"2026-12-31\"}],"
                    + "\"description\":\"fz\"}}";
            default -> "{\"calendar\":{}}";
        };
        return HostileInput.of("requests/json/calendar/valid", FuzzTopic.REQUESTS, json).withKey(HostileInput.utf8(CALENDAR), KeyPlacement.AS_IS);
    }
}
