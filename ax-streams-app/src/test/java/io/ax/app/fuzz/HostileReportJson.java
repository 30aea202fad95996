package io.ax.app.fuzz;

import static io.ax.app.fuzz.HostileValues.pick;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/** Execution reports in JSON on {@code ax.results}, for tasks nobody scheduled (fresh keys): decoding and echoing. */
final class HostileReportJson {
    static final List<String> FIELDS = List.of("executionId", "attempt", "status", "retryable", "message", "workerId",
            "reportedAt", "progress");

    private HostileReportJson() {
    }

    static List<Maker> makers() {
        return List.of(HostileReportJson::hugeString, HostileReportJson::wrongType, HostileReportJson::extremeAttempt,
                HostileReportJson::unknownStatus, HostileReportJson::extremeInstant, HostileReportJson::deepField,
                HostileReportJson::duplicateKeys, HostileReportJson::unknownField, HostileReportJson::edgeString);
    }

    /** {"executionId":"fz-exec","attempt":1,"status":"FAILED","retryable":true,"message":"m","workerId":"w"} as fields. */
    static List<Map.Entry<String, String>> report() {
        return new ArrayList<>(List.of(Map.entry("executionId", "\"fz-exec\""), Map.entry("attempt", "1"),
                Map.entry("status", "\"FAILED\""), Map.entry("retryable", "true"), Map.entry("message", "\"m\""),
                Map.entry("workerId", "\"w\""), Map.entry("reportedAt", "\"2026-12-01T00:00:00Z\""),
                Map.entry("progress", "\"p\"")));
    }

    static String reportWith(String field, String valueText) {
        List<Map.Entry<String, String>> fields = report();
        fields.replaceAll(f -> f.getKey().equals(field) ? Map.entry(field, valueText) : f);
        return HostileValues.object(fields);
    }

    private static HostileInput input(String family, String detail, String json) {
        return HostileInput.of("results/json/" + family + "/" + detail, FuzzTopic.RESULTS, json);
    }

    static HostileInput hugeString(SplittableRandom random) {
        String field = pick(random, FIELDS);
        return input("huge-string", field, reportWith(field, HostileValues.hugeString(random)));
    }

    static HostileInput wrongType(SplittableRandom random) {
        String field = pick(random, FIELDS);
        return input("wrong-type", field, reportWith(field, pick(random, HostileValues.WRONG_TYPES)));
    }

    static HostileInput extremeAttempt(SplittableRandom random) {
        return input("extreme-number", "attempt", reportWith("attempt", pick(random, HostileValues.EXTREME_NUMBERS)));
    }

    static HostileInput unknownStatus(SplittableRandom random) {
        String status = pick(random, List.of("\"DONE\"", "\"succeeded\"", "\"\"", "\"SUCCEEDED \"", "\"TIMED_OUT\"",
                "\"\\u0000\"", HostileValues.hugeString(random)));
        return input("unknown-status", "status", reportWith("status", status));
    }

    static HostileInput extremeInstant(SplittableRandom random) {
        return input("extreme-instant", "reportedAt", reportWith("reportedAt", pick(random, HostileValues.EXTREME_INSTANTS)));
    }

    static HostileInput deepField(SplittableRandom random) {
        if (random.nextInt(3) == 0) {
            return input("deep", "top-level", HostileValues.deep(random));
        }
        String field = pick(random, FIELDS);
        return input("deep", field, reportWith(field, HostileValues.deep(random)));
    }

    static HostileInput duplicateKeys(SplittableRandom random) {
        String field = pick(random, FIELDS);
        List<Map.Entry<String, String>> fields = report();
        fields.add(Map.entry(field, pick(random, List.of("\"SUCCEEDED\"", "2", "null", "[]", HostileValues.hugeString(random)))));
        return input("duplicate-keys", field, HostileValues.object(fields));
    }

    static HostileInput unknownField(SplittableRandom random) {
        List<Map.Entry<String, String>> fields = report();
        String name = pick(random, List.of("Status", "", "error", "x".repeat(HostileValues.HUGE_CHARS), "\\u0000"));
        fields.add(Map.entry(name, pick(random, HostileValues.WRONG_TYPES)));
        return input("unknown-field", name.isEmpty() ? "empty-name" : name.length() > 20 ? "huge-name" : name,
                HostileValues.object(fields));
    }

    static HostileInput edgeString(SplittableRandom random) {
        String field = pick(random, List.of("executionId", "message", "workerId", "progress", "status"));
        return input("edge-string", field, reportWith(field, pick(random, HostileValues.EDGE_STRINGS)));
    }
}
