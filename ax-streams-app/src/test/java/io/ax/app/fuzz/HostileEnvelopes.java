package io.ax.app.fuzz;

import static io.ax.app.fuzz.HostileValues.pick;

import io.ax.validation.ScheduleValidator;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * What any topic can get: garbage values, tombstones, malformed JSON, and hostile record keys and timestamps around
 * an otherwise valid value.
 */
final class HostileEnvelopes {
    /** Record timestamps at the edges: the epoch, year 10000, near Long.MAX_VALUE. */
    static final List<Long> EXTREME_TIMESTAMPS = List.of(0L, 1L, 253_402_300_800_000L, Long.MAX_VALUE / 2,
            Long.MAX_VALUE - ScheduleValidator.MAX_DELAY_MS, Long.MAX_VALUE - 1_000, Long.MAX_VALUE - 1);

    private HostileEnvelopes() {
    }

    static List<Maker> makers() {
        List<Maker> makers = new ArrayList<>();
        for (FuzzTopic topic : FuzzTopic.values()) {
            makers.add(random -> garbage(random, topic));
            makers.add(random -> malformedJson(random, topic));
            makers.add(random -> hostileKey(random, topic));
            makers.add(random -> wrongPartition(topic));
        }
        makers.add(HostileEnvelopes::extremeTimestamp);
        makers.add(HostileEnvelopes::extremeTimestamp);
        return makers;
    }

    private static String prefix(FuzzTopic topic) {
        return switch (topic) {
            case REQUESTS -> "requests";
            case RESULTS -> "results";
            case RETRY -> "retry";
        };
    }

    /** A value the topic accepts. */
    static byte[] validValue(FuzzTopic topic) {
        return switch (topic) {
            case REQUESTS -> "{\"jobType\":\"fz\",\"delayMs\":0}".getBytes(StandardCharsets.UTF_8);
            case RESULTS -> "{\"executionId\":\"fz-exec\",\"attempt\":1,\"status\":\"SUCCEEDED\"}".getBytes(StandardCharsets.UTF_8);
            case RETRY -> HostileBytes.encode(HostileRetries.validRetry().build());
        };
    }

    static HostileInput garbage(SplittableRandom random, FuzzTopic topic) {
        if (random.nextInt(8) == 0) {
            return HostileInput.of(prefix(topic) + "/bytes/tombstone/null", topic, (byte[]) null);
        }
        return HostileInput.of(prefix(topic) + "/bytes/garbage/any", topic, HostileBytes.garbage(random));
    }

    static HostileInput malformedJson(SplittableRandom random, FuzzTopic topic) {
        return HostileInput.of(prefix(topic) + "/json/malformed/any", topic, HostileBytes.malformedJson(random));
    }

    /** A valid value under a key no task may have: none, empty, huge, too long, control characters, invalid UTF-8. */
    static HostileInput hostileKey(SplittableRandom random, FuzzTopic topic) {
        String variant = pick(random, List.of("null", "empty", "huge", "near-limit", "too-long", "control", "bad-utf8"));
        byte[] key = switch (variant) {
            case "null" -> null;
            case "empty" -> new byte[0];
            case "huge" -> "k".repeat(HostileValues.HUGE_CHARS).getBytes(StandardCharsets.UTF_8);
            case "near-limit" -> "k".repeat(HostileValues.NEAR_LIMIT_CHARS - 1_000).getBytes(StandardCharsets.UTF_8);
            case "too-long" -> "k".repeat(ScheduleValidator.MAX_TASK_ID_CHARS + 1).getBytes(StandardCharsets.UTF_8);
            case "control" -> pick(random, List.of("fz\u0000x", "fz\nx", "\u001b[31mfz", "fz\u007f")).getBytes(StandardCharsets.UTF_8);
            // unique, so a PENDING under the key it decodes to (with replacement characters) answers this input alone
            default -> HostileBytes.concat(new byte[] {'f', 'z', (byte) 0xC3, 0x28, (byte) 0xFF},
                    HostileInput.utf8("-" + random.nextInt(1_000_000_000)));
        };
        return HostileInput.of(prefix(topic) + "/key/" + variant + "/valid-value", topic, validValue(topic))
                .withKey(key, KeyPlacement.AS_IS);
    }

    /** A valid value whose key belongs to another partition (a producer with another partitioner, e.g. librdkafka's). */
    static HostileInput wrongPartition(FuzzTopic topic) {
        return HostileInput.of(prefix(topic) + "/key/wrong-partition/valid-value", topic, validValue(topic))
                .withKey(HostileInput.utf8("fz"), KeyPlacement.WRONG_PARTITION);
    }

    /** A valid request timed from its record timestamp (delay, interval without start, cron), at an extreme timestamp. */
    static HostileInput extremeTimestamp(SplittableRandom random) {
        String request = pick(random, List.of("{\"jobType\":\"fz\",\"delayMs\":0}", "{\"jobType\":\"fz\",\"delayMs\":1000}",
                "{\"jobType\":\"fz\",\"delayMs\":" + ScheduleValidator.MAX_DELAY_MS + "}", "{\"jobType\":\"fz\",\"everyMs\":60000}",
                "{\"jobType\":\"fz\",\"cron\":\"0 2 * * *\"}"));
        long timestampMs = pick(random, EXTREME_TIMESTAMPS);
        String trigger = request.contains("delayMs") ? "delayMs" : request.contains("everyMs") ? "everyMs" : "cron";
        return HostileInput.of("requests/timestamp/extreme/" + trigger, FuzzTopic.REQUESTS, request).withTimestamp(timestampMs);
    }
}
