package io.ax.app.fuzz;

import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Collectors;

/** Hostile JSON fragments shared by the JSON generators: wrong types, extreme numbers and instants, huge and deep values. */
final class HostileValues {
    /** "600 kB in any field". */
    static final int HUGE_CHARS = 600 * 1024;
    /** Just under Kafka's default record limit (1 MB): the largest value a default cluster still delivers. */
    static final int NEAR_LIMIT_CHARS = 1_000_000 - 2_000;
    static final int DEEP_LEVELS = 10_000;
    static final int MANY_ENTRIES = 1_000_000;

    static final List<String> WRONG_TYPES = List.of("\"text\"", "\"\"", "true", "false", "null", "[]", "{}", "[1,2]",
            "{\"a\":1}", "1.5", "-1", "0", "[\"x\"]", "\"0\"", "\"KEEP\"");

    static final List<String> EXTREME_NUMBERS = List.of("9223372036854775807", "-9223372036854775808",
            "9223372036854775808", "-9223372036854775809", "1e400", "-1e400", "1E308", "-0", "-0.0", "0.0", "1.0",
            "2147483647", "-2147483648", "2147483648", "-2147483649", "1234567890123456789012345678901234567890",
            "-1234567890123456789012345678901234567890", "0.1234567890123456789012345678901234567890", "4.9e-324",
            "1e-400", "99999999999999999999.5", "315619200000", "315619200001", "-1", "0", "1");

    static final List<String> EXTREME_INSTANTS = List.of("\"+300000000-01-01T00:00:00Z\"", "\"-999999999-01-01T00:00:00Z\"",
            "\"+999999999-12-31T23:59:59.999999999Z\"", "\"+292278994-08-17T07:12:55.807Z\"",
            "\"+292278994-08-17T07:12:55.808Z\"", "\"-292275055-05-16T16:47:04.192Z\"", "\"-292275055-05-16T16:47:04.191Z\"",
            "\"1969-12-31T23:59:59.999Z\"", "\"1970-01-01T00:00:00Z\"", "\"0000-01-01T00:00:00Z\"",
            "\"2026-12-01T02:00:00+18:00\"", "\"2026-12-01T02:00:00-18:00\"", "\"2026-12-01T02:00:00+19:00\"",
            "\"2026-02-30T00:00:00Z\"", "\"2026-12-01T24:00:00Z\"", "\"2026-12-01T02:00:00\"", "\"2026-12-01\"",
            "\"2026-12-01T02:00:00Z[Europe/Paris]\"", "\"\"", "\"T\"", "\"10000-01-01T00:00:00Z\"",
            "9223372036854775807", "-9223372036854775808", "-1", "0", "1e400", "253402300800000");

    /** Strings whose content is hard to carry: NUL, a lone surrogate, a bidi override, escapes of control chars. */
    static final List<String> EDGE_STRINGS = List.of("\"\\u0000\"", "\"\\ud800\"", "\"\\udc00x\"", "\"a\\u0000b\"",
            "\"\\u202e\"", "\"\\u0007\\u001b[31m\"", "\"\\n\\r\\t\"", "\"\\\\\"", "\"\\\"\"", "\"\uD83D\uDE00\"");

    private HostileValues() {
    }

    static <T> T pick(SplittableRandom random, List<T> values) {
        return values.get(random.nextInt(values.size()));
    }

    /** A JSON string literal of 600 kB or just under 1 MB, in ASCII, multi-byte UTF-8, surrogate pairs or escapes. */
    static String hugeString(SplittableRandom random) {
        int chars = random.nextInt(4) == 0 ? NEAR_LIMIT_CHARS : HUGE_CHARS;
        return switch (random.nextInt(5)) {
            case 0 -> '"' + "x".repeat(chars) + '"';
            case 1 -> '"' + "\u00e9".repeat(chars / 2) + '"';
            case 2 -> '"' + "\uD83D\uDE00".repeat(chars / 4) + '"';
            case 3 -> '"' + "\\u0041".repeat(chars / 6) + '"';
            default -> '"' + "ab\\u0001".repeat(chars / 8) + '"';
        };
    }

    /** 10,000 (or more) levels of arrays or objects, closed or not. */
    static String deep(SplittableRandom random) {
        int levels = random.nextInt(4) == 0 ? 100_000 : DEEP_LEVELS;
        boolean closed = random.nextBoolean();
        if (random.nextBoolean()) {
            return "[".repeat(levels) + (closed ? "]".repeat(levels) : "");
        }
        return "{\"a\":".repeat(levels) + "1" + (closed ? "}".repeat(levels) : "");
    }

    /** A JSON array of a million whole numbers. */
    static String manyNumbers(SplittableRandom random) {
        String element = random.nextInt(4) == 0 ? "9223372036854775807" : "1";
        StringBuilder json = new StringBuilder(MANY_ENTRIES * (element.length() + 1) + 2).append('[');
        for (int i = 0; i < MANY_ENTRIES; i++) {
            json.append(i == 0 ? "" : ",").append(element);
        }
        return json.append(']').toString();
    }

    /** A JSON object from raw field texts, in order (duplicates are possible: fields are a list). */
    static String object(List<Map.Entry<String, String>> fields) {
        return fields.stream().map(f -> "\"" + f.getKey() + "\":" + f.getValue()).collect(Collectors.joining(",", "{", "}"));
    }
}
