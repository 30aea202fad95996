package io.ax.app.fuzz;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * Hostile records of the workers topic ({@code ax.workers}, worker announcements), the i-th of a seed always the same:
 * valid announcements, and ones broken in one way each (a field missing, of the wrong type, out of range, too long, with
 * control characters; a list beyond its bound; the key not the workerId; JSON that is not, nested too deep, a field named
 * twice, trailing content; random bytes, Avro-looking bytes, an oversize value; a tombstone). {@link #get} says whether
 * the registry must store it.
 */
public final class HostileAnnouncements {
    /** One record: its kind (for the figures), key, value (null: tombstone) and whether it is valid. */
    public record Announcement(String kind, String key, byte[] value, boolean valid) {
    }

    private final long seed;

    public HostileAnnouncements(long seed) {
        this.seed = seed;
    }

    public Announcement get(int index) {
        Random random = new Random(mix(seed * 0x9E3779B97F4A7C15L + index)); // adjacent seeds of Random start alike
        String key = "w-" + random.nextInt(20);
        int kind = random.nextInt(24);
        String lanes = "[{\"jobType\":\"email\",\"limit\":4,\"running\":1,\"waiting\":2}]";
        String inFlight = "[{\"executionId\":\"e-" + index + "\",\"taskId\":\"t\",\"jobType\":\"email\",\"attempt\":1}]";
        return switch (kind) {
            case 0, 1, 2, 3 -> valid("valid", key, "{\"workerId\":\"" + key + "\",\"host\":\"h\",\"version\":\"1\",\"heartbeatMs\":"
                    + (100 + random.nextInt(60_000)) + ",\"jobTypes\":[\"email\"],\"lanes\":" + lanes + ",\"inFlight\":" + inFlight + "}");
            case 4 -> valid("valid/least", key, "{\"workerId\":\"" + key + "\",\"heartbeatMs\":1000,\"unknown\":[1,{\"a\":null}]}");
            case 5 -> new Announcement("tombstone", key, null, true);
            case 6 -> bad("heartbeat/out-of-range", key, "{\"workerId\":\"" + key + "\",\"heartbeatMs\":"
                    + pick(random, "0", "-1", "99", "3600001", "9223372036854775807", "99999999999999999999999") + "}");
            case 7 -> bad("heartbeat/type", key, "{\"workerId\":\"" + key + "\",\"heartbeatMs\":"
                    + pick(random, "\"1000\"", "1000.5", "1e4", "true", "null", "[1000]", "{}") + "}");
            case 8 -> bad("workerId/mismatch", key, "{\"workerId\":\"" + key + "x\",\"heartbeatMs\":1000}");
            case 9 -> bad("workerId/missing", key, "{\"heartbeatMs\":1000}");
            case 10 -> bad("host/too-long", key, "{\"workerId\":\"" + key + "\",\"heartbeatMs\":1000,\"host\":\""
                    + "h".repeat(256 + random.nextInt(100_000)) + "\"}");
            case 11 -> bad("host/control", key, "{\"workerId\":\"" + key + "\",\"heartbeatMs\":1000,\"version\":\"1\\u0000\"}");
            case 12 -> bad("jobTypes/too-many", key, "{\"workerId\":\"" + key + "\",\"heartbeatMs\":1000,\"jobTypes\":["
                    + String.join(",", Collections.nCopies(101 + random.nextInt(5_000), "\"e\"")) + "]}");
            case 13 -> bad("jobTypes/bad", key, "{\"workerId\":\"" + key + "\",\"heartbeatMs\":1000,\"jobTypes\":["
                    + pick(random, "\"\"", "\"a b\"", "1", "null", "\"" + "j".repeat(129) + "\"", "{}") + "]}");
            case 14 -> bad("lanes/bad", key, "{\"workerId\":\"" + key + "\",\"heartbeatMs\":1000,\"lanes\":["
                    + pick(random, "1", "{\"jobType\":\"e\"}", "{\"jobType\":\"e\",\"limit\":0}", "{\"jobType\":\"e\",\"limit\":1,\"waiting\":-5}",
                    "{\"limit\":1}", "{\"jobType\":\"e\",\"limit\":1000001}") + "]}");
            case 15 -> bad("inFlight/too-many", key, "{\"workerId\":\"" + key + "\",\"heartbeatMs\":1000,\"inFlight\":["
                    + String.join(",", Collections.nCopies(101 + random.nextInt(500), "{\"executionId\":\"e\"}")) + "]}");
            case 16 -> bad("inFlight/bad", key, "{\"workerId\":\"" + key + "\",\"heartbeatMs\":1000,\"inFlight\":["
                    + pick(random, "{}", "{\"executionId\":\"\"}", "{\"executionId\":\"" + "e".repeat(257) + "\"}", "\"e\"",
                    "{\"executionId\":\"e\",\"attempt\":0}") + "]," + "\"inFlightCount\":" + pick(random, "1", "-1", "0") + "}");
            case 17 -> bad("json/duplicate", key, "{\"workerId\":\"" + key + "\",\"heartbeatMs\":1000,\"heartbeatMs\":2000}");
            case 18 -> bad("json/deep", key, "{\"workerId\":\"" + key + "\",\"heartbeatMs\":1000,\"x\":"
                    + "[".repeat(65 + random.nextInt(10_000)) + "]".repeat(0) + "}");
            case 19 -> bad("json/trailing", key, "{\"workerId\":\"" + key + "\",\"heartbeatMs\":1000} {}");
            case 20 -> {
                byte[] bytes = new byte[random.nextInt(300)];
                random.nextBytes(bytes);
                yield new Announcement("bytes/random", key, bytes, false);
            }
            case 21 -> new Announcement("bytes/oversize", key, ("{\"workerId\":\"" + key + "\",\"heartbeatMs\":1000,\"pad\":\""
                    + "p".repeat(262_144) + "\"}").getBytes(StandardCharsets.UTF_8), false);
            case 22 -> bad("key/bad", pick(random, "", "k".repeat(257), "a\u0001b"), "{\"workerId\":\"x\",\"heartbeatMs\":1000}");
            default -> bad("json/not-object", key, pick(random, "[]", "\"w\"", "42", "null", "", "{", "{\"workerId\":"));
        };
    }

    private static long mix(long x) {
        x ^= x >>> 33;
        x *= 0xff51afd7ed558ccdL;
        x ^= x >>> 33;
        x *= 0xc4ceb9fe1a85ec53L;
        return x ^ (x >>> 33);
    }

    private static Announcement valid(String kind, String key, String json) {
        return new Announcement(kind, key, json.getBytes(StandardCharsets.UTF_8), true);
    }

    private static Announcement bad(String kind, String key, String json) {
        return new Announcement(kind, key, json.getBytes(StandardCharsets.UTF_8), false);
    }

    private static String pick(Random random, String... choices) {
        List<String> list = new ArrayList<>(List.of(choices));
        return list.get(random.nextInt(list.size()));
    }
}
