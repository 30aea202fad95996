package io.ax.app.fuzz;

import static io.ax.app.fuzz.HostileValues.pick;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/** Schedule, cancel, replay, trigger, pause and resume requests in JSON on {@code ax.requests}: every field with hostile content. */
final class HostileRequestJson {
    static final List<String> FIELDS = List.of("jobType", "at", "delayMs", "everyMs", "startAt", "cron", "zone", "payload",
            "priority", "owner", "timeoutMs", "maxRetries", "backoffMs", "backoffIntervalsMs", "jitter", "ifExists",
            "endAt", "maxOccurrences", "misfire", "maxCatchUp", "occurrenceJitterMs", "overlap");
    static final List<String> NUMERIC_FIELDS = List.of("at", "delayMs", "everyMs", "startAt", "priority", "timeoutMs",
            "maxRetries", "backoffMs", "backoffIntervalsMs", "endAt", "maxOccurrences", "maxCatchUp", "occurrenceJitterMs");
    private static final Map<String, String> VALID = Map.ofEntries(Map.entry("jobType", "\"fz\""),
            Map.entry("at", "\"2027-01-01T00:00:00Z\""), Map.entry("delayMs", "0"), Map.entry("everyMs", "60000"),
            Map.entry("startAt", "\"2027-01-01T00:00:00Z\""), Map.entry("cron", "\"0 2 * * *\""), Map.entry("zone", "\"UTC\""),
            Map.entry("payload", "{\"to\":\"a@b.c\"}"), Map.entry("priority", "4"), Map.entry("owner", "\"team\""),
            Map.entry("timeoutMs", "30000"), Map.entry("maxRetries", "3"), Map.entry("backoffMs", "1000"),
            Map.entry("backoffIntervalsMs", "[1000,5000]"), Map.entry("jitter", "true"), Map.entry("ifExists", "\"KEEP\""),
            Map.entry("endAt", "\"2030-01-01T00:00:00Z\""), Map.entry("maxOccurrences", "10"), Map.entry("misfire", "\"FIRE_ALL\""),
            Map.entry("maxCatchUp", "5"), Map.entry("occurrenceJitterMs", "1000"), Map.entry("overlap", "\"QUEUE_ONE\""));

    private HostileRequestJson() {
    }

    static List<Maker> makers() {
        return List.of(HostileRequestJson::hugeString, HostileRequestJson::wrongType, HostileRequestJson::extremeNumber,
                HostileRequestJson::extremeInstant, HostileRequestJson::deepField, HostileRequestJson::duplicateKeys,
                HostileRequestJson::unknownField, HostileRequestJson::manyBackoffIntervals, HostileRequestJson::valid,
                HostileRequestJson::cancelOrReplay, HostileRequestJson::edgeString);
    }

    /** A valid request that has {@code field} (with the trigger the field goes with) and a valid value for it. */
    static List<Map.Entry<String, String>> requestWith(String field) {
        List<String> names = switch (field) {
            case "at" -> List.of("jobType", "at");
            case "everyMs", "startAt" -> List.of("jobType", "everyMs", "startAt");
            case "endAt", "maxOccurrences", "misfire", "maxCatchUp", "occurrenceJitterMs", "overlap" -> List.of("jobType", "everyMs", field);
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
}
