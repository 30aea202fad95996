package io.ax.app.fuzz;

import static io.ax.app.fuzz.HostileValues.pick;

import io.ax.schema.AtTrigger;
import io.ax.schema.DelayTrigger;
import io.ax.schema.Dependency;
import io.ax.schema.DependencyCondition;
import io.ax.schema.IntervalTrigger;
import io.ax.schema.ScheduleRequest;
import io.ax.validation.ScheduleValidator;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Schedule requests on {@code ax.requests} (JSON and Avro) that use the fields of workflows and timeout kinds: {@code after}
 * (huge lists, empty and duplicate ids, the task's own id, ids past the 4096-char bound, unknown {@code on} values, wrong
 * types), {@code afterDelayMs}, {@code afterTimeoutMs} (negative, 0, Long.MAX, due times that overflow with them),
 * {@code afterRunAnyway}, periodic tasks that wait ({@code everyMs} or {@code cron} with {@code after}, refused with
 * {@code afterDelayMs}), and {@code scheduleToStartTimeoutMs}, {@code startToCloseTimeoutMs}, {@code heartbeatTimeoutMs}
 * at their extremes and beside {@code timeoutMs}. {@value #SELF} in a value stands for the key the run sends it with.
 */
final class HostileWorkflowRequests {
    /** Replaced by the run with the record's key: a task that waits for itself. */
    static final String SELF = "{{self}}";
    static final List<String> TIMEOUT_FIELDS = List.of("scheduleToStartTimeoutMs", "startToCloseTimeoutMs", "heartbeatTimeoutMs",
            "timeoutMs");
    static final List<String> CONDITIONS = List.of("\"SUCCESS\"", "\"FAILURE\"", "\"COMPLETED\"", "\"success\"", "\"FAILED\"",
            "\"CANCELLED\"", "\"\"", "null", "1", "[]", "{}");
    static final List<String> EXTREME_MS = List.of("-9223372036854775808", "-1", "0", "1", "86400000",
            Long.toString(ScheduleValidator.MAX_DELAY_MS), Long.toString(ScheduleValidator.MAX_DELAY_MS + 1),
            "9223372036854775807", "9223372036854775808", "1e400", "1.5", "\"1000\"", "null", "true");
    static final long[] EXTREME_LONGS = {Long.MIN_VALUE, -1, 0, 1, 1_000, ScheduleValidator.MAX_DELAY_MS,
            ScheduleValidator.MAX_DELAY_MS + 1, Long.MAX_VALUE / 2, Long.MAX_VALUE};

    private HostileWorkflowRequests() {
    }

    static List<Maker> makers() {
        return List.of(HostileWorkflowRequests::hostileAfterJson, HostileWorkflowRequests::afterTimingJson,
                HostileWorkflowRequests::validAfterJson, HostileWorkflowRequests::timeoutKindsJson,
                HostileWorkflowRequests::hostileAfterAvro, HostileWorkflowRequests::timeoutKindsAvro);
    }

    private static HostileInput json(String family, String detail, String json) {
        return HostileInput.of("requests/json/" + family + "/" + detail, FuzzTopic.REQUESTS, json);
    }

    private static String entry(String taskId, String on) {
        return on == null ? "{\"taskId\":" + taskId + "}" : "{\"taskId\":" + taskId + ",\"on\":" + on + "}";
    }

    private static String list(List<String> entries) {
        return "[" + String.join(",", entries) + "]";
    }

    private static List<String> distinct(int count, int idChars) {
        List<String> entries = new ArrayList<>(count);
        String pad = "u".repeat(Math.max(0, idChars - 8));
        for (int i = 0; i < count; i++) {
            entries.add(entry("\"" + pad + String.format("%08d", i) + "\"", "\"SUCCESS\""));
        }
        return entries;
    }

    /** A one-shot request (or another trigger) with a hostile {@code after}. */
    static HostileInput hostileAfterJson(SplittableRandom random) {
        String detail = pick(random, List.of("huge-list", "at-bound", "empty-id", "duplicate-ids", "self-reference", "long-id",
                "ids-past-total", "unknown-on", "wrong-type", "wrong-entry-type", "unknown-entry-field", "periodic", "periodic-cron", "periodic-after-delay", "huge-id"));
        String after = switch (detail) {
            case "huge-list" -> list(distinct(pick(random, List.of(101, 102, 1_000, 10_000)), 8));
            case "at-bound" -> list(distinct(100, random.nextBoolean() ? 8 : 40));
            case "empty-id" -> list(List.of(entry("\"a\"", null), entry("\"\"", "\"SUCCESS\"")));
            case "duplicate-ids" -> list(List.of(entry("\"a\"", "\"SUCCESS\""), entry("\"a\"", pick(random, List.of("\"SUCCESS\"",
                    "\"FAILURE\"")))));
            case "self-reference" -> list(List.of(entry("\"" + SELF + "\"", pick(random, List.of("\"SUCCESS\"", "\"COMPLETED\"")))));
            case "long-id" -> list(List.of(entry("\"" + "i".repeat(pick(random, List.of(256, 257, 4096, 4097))) + "\"", null)));
            case "ids-past-total" -> list(distinct(pick(random, List.of(16, 17, 20)), 256));
            case "unknown-on" -> list(List.of(entry("\"a\"", pick(random, CONDITIONS))));
            case "wrong-type" -> pick(random, HostileValues.WRONG_TYPES);
            case "wrong-entry-type" -> "[" + pick(random, HostileValues.WRONG_TYPES) + "]";
            case "unknown-entry-field" -> "[{\"taskId\":\"a\",\"on\":\"SUCCESS\",\"" + pick(random, List.of("delayMs", "", "taskid"))
                    + "\":1}]";
            case "periodic", "periodic-cron", "periodic-after-delay" -> list(List.of(entry("\"a\"", null)));
            default -> list(List.of(entry(pick(random, List.of(HostileValues.hugeString(random), "\"\\u0000\"", "\"a\\nb\"",
                    "\"\\ud800\"")), null)));
        };
        List<Map.Entry<String, String>> fields = new ArrayList<>();
        fields.add(Map.entry("jobType", "\"fz\""));
        if (detail.equals("periodic")) {
            fields.add(Map.entry("everyMs", "60000"));
        } else if (detail.equals("periodic-cron")) {
            fields.add(Map.entry("cron", "\"0 2 * * *\""));
            fields.add(Map.entry("afterTimeoutMs", pick(random, EXTREME_MS)));
        } else if (detail.equals("periodic-after-delay")) { // refused: afterDelayMs is for one-shot tasks
            fields.add(Map.entry("everyMs", "60000"));
            fields.add(Map.entry("afterDelayMs", "1000"));
        } else if (random.nextBoolean()) {
            fields.add(Map.entry(random.nextBoolean() ? "delayMs" : "at", random.nextBoolean() ? "0" : "\"2027-01-01T00:00:00Z\""));
        }
        fields.add(Map.entry("after", after));
        return json("after", detail, HostileValues.object(fields));
    }

    /** A request with a valid {@code after} and its timing fields at extremes: due times that could overflow. */
    static HostileInput afterTimingJson(SplittableRandom random) {
        List<Map.Entry<String, String>> fields = new ArrayList<>();
        fields.add(Map.entry("jobType", "\"fz\""));
        String trigger = pick(random, List.of("none", "at-far", "delay-far", "at-now"));
        switch (trigger) {
            case "at-far" -> fields.add(Map.entry("at", pick(random, List.of("\"9999-12-31T23:59:59.999Z\"", "253402300799999"))));
            case "delay-far" -> fields.add(Map.entry("delayMs", Long.toString(ScheduleValidator.MAX_DELAY_MS)));
            case "at-now" -> fields.add(Map.entry("delayMs", "0"));
            default -> {
            }
        }
        fields.add(Map.entry("after", list(List.of(entry("\"up-" + random.nextInt(1_000) + "\"", pick(random, CONDITIONS.subList(0, 3)))))));
        String field = pick(random, List.of("afterDelayMs", "afterTimeoutMs", "afterRunAnyway", "all"));
        if (field.equals("afterDelayMs") || field.equals("all")) {
            fields.add(Map.entry("afterDelayMs", pick(random, EXTREME_MS)));
        }
        if (field.equals("afterTimeoutMs") || field.equals("all")) {
            fields.add(Map.entry("afterTimeoutMs", pick(random, EXTREME_MS)));
        }
        if (field.equals("afterRunAnyway") || field.equals("all")) {
            fields.add(Map.entry("afterRunAnyway", pick(random, List.of("true", "false", "\"true\"", "1", "null"))));
        }
        if (random.nextInt(4) == 0) { // timing fields without after
            fields.removeIf(f -> f.getKey().equals("after"));
        }
        return json("after-timing", trigger + "/" + field, HostileValues.object(fields));
    }

    /** A valid request that waits (WAITING, then CANCELLED after its afterTimeoutMs, or PENDING once met). */
    static HostileInput validAfterJson(SplittableRandom random) {
        int count = pick(random, List.of(1, 2, 100));
        List<String> entries = new ArrayList<>(distinct(count, 8));
        Collections.shuffle(entries, new java.util.Random(random.nextLong()));
        String json = "{\"jobType\":\"fz\",\"after\":" + list(entries) + ",\"afterDelayMs\":" + pick(random, List.of("0", "1000"))
                + ",\"afterTimeoutMs\":" + pick(random, List.of("1", "60000", Long.toString(ScheduleValidator.MAX_DELAY_MS)))
                + ",\"afterRunAnyway\":" + random.nextBoolean() + "}";
        return json("after", "valid-" + count, json);
    }

    /** The timeout kinds at their extremes, one at a time or all together, with or without {@code timeoutMs}. */
    static HostileInput timeoutKindsJson(SplittableRandom random) {
        List<Map.Entry<String, String>> fields = new ArrayList<>(List.of(Map.entry("jobType", "\"fz\""), Map.entry("delayMs", "0")));
        String detail;
        if (random.nextBoolean()) {
            String field = pick(random, TIMEOUT_FIELDS);
            fields.add(Map.entry(field, pick(random, EXTREME_MS)));
            detail = field;
        } else {
            for (String field : TIMEOUT_FIELDS) {
                if (random.nextBoolean()) {
                    fields.add(Map.entry(field, pick(random, List.of("1", "1000", Long.toString(ScheduleValidator.MAX_DELAY_MS),
                            Long.toString(ScheduleValidator.MAX_DELAY_MS + 1), "0", "-1"))));
                }
            }
            detail = "combination";
        }
        return json("timeout-kinds", detail, HostileValues.object(fields));
    }

    private static HostileInput avro(String family, String detail, ScheduleRequest request) {
        return HostileInput.of("requests/avro/" + family + "/" + detail, FuzzTopic.REQUESTS, HostileBytes.encode(request));
    }

    static HostileInput hostileAfterAvro(SplittableRandom random) {
        String detail = pick(random, List.of("huge-list", "empty-id", "duplicate-ids", "self-reference", "long-id", "periodic",
                "timing", "ids-past-total"));
        ScheduleRequest.Builder request = HostileRequestAvro.validRequest();
        List<Dependency> after = new ArrayList<>();
        switch (detail) {
            case "huge-list" -> {
                for (int i = 0; i < pick(random, List.of(101, 5_000)); i++) {
                    after.add(new Dependency("u" + i, DependencyCondition.SUCCESS));
                }
            }
            case "empty-id" -> after.add(new Dependency("", DependencyCondition.COMPLETED));
            case "duplicate-ids" -> after.addAll(List.of(new Dependency("a", DependencyCondition.SUCCESS),
                    new Dependency("a", DependencyCondition.FAILURE)));
            case "self-reference" -> after.add(new Dependency(SELF, DependencyCondition.SUCCESS));
            case "long-id" -> after.add(new Dependency("i".repeat(pick(random, List.of(257, 4097, HostileValues.HUGE_CHARS))),
                    DependencyCondition.SUCCESS));
            case "periodic" -> {
                request.setTrigger(new IntervalTrigger(60_000L, null));
                after.add(new Dependency("a", DependencyCondition.SUCCESS));
            }
            case "ids-past-total" -> {
                for (int i = 0; i < 17; i++) {
                    after.add(new Dependency("v".repeat(248) + String.format("%08d", i), DependencyCondition.SUCCESS));
                }
            }
            default -> after.add(new Dependency("a", pick(random, List.of(DependencyCondition.values()))));
        }
        request.setAfter(after);
        if (detail.equals("timing") || random.nextInt(3) == 0) {
            request.setAfterDelayMs(EXTREME_LONGS[random.nextInt(EXTREME_LONGS.length)]);
            request.setAfterTimeoutMs(EXTREME_LONGS[random.nextInt(EXTREME_LONGS.length)]);
            request.setAfterRunAnyway(random.nextBoolean());
            if (random.nextBoolean()) {
                request.setTrigger(random.nextBoolean() ? new AtTrigger(253_402_300_799_999L)
                        : new DelayTrigger(ScheduleValidator.MAX_DELAY_MS));
            }
        }
        return avro("after", detail, request.build());
    }

    static HostileInput timeoutKindsAvro(SplittableRandom random) {
        ScheduleRequest.Builder request = HostileRequestAvro.validRequest();
        List<String> set = new ArrayList<>();
        for (String field : TIMEOUT_FIELDS) {
            if (random.nextBoolean()) {
                long value = EXTREME_LONGS[random.nextInt(EXTREME_LONGS.length)];
                set.add(field);
                switch (field) {
                    case "scheduleToStartTimeoutMs" -> request.setScheduleToStartTimeoutMs(value);
                    case "startToCloseTimeoutMs" -> request.setStartToCloseTimeoutMs(value);
                    case "heartbeatTimeoutMs" -> request.setHeartbeatTimeoutMs(value);
                    default -> request.setTimeoutMs(value);
                }
            }
        }
        return avro("timeout-kinds", set.isEmpty() ? "none" : String.join("+", set), request.build());
    }
}
