package io.ax.app.fuzz;

import static io.ax.app.fuzz.HostileValues.pick;

import io.ax.codec.WireCodec;
import io.ax.schema.DependencySignal;
import io.ax.schema.DependencySignalKind;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Records on the scheduler's own topics, which anyone with write access can also reach: {@code ax.deps} (the dependency
 * protocol, Avro), {@code ax.flow} and {@code ax.flow-grants} (flow control, JSON), and the compacted {@code ax.limits}.
 * Garbage bytes, valid-shaped records for unknown tasks and executions, duplicates, fields at extremes. Record {@code #i}
 * of seed {@code s} is a pure function of {@code (s, i)}, as in {@link HostileInputs}.
 *
 * <p>What the run expects is in the record: {@link Expect}.
 */
public final class HostileInternalRecords {
    private static final long GOLDEN = 0x9E3779B97F4A7C15L;
    /** Gate keys and job types the records use; the run's own gated type ({@value #RUN_GATED_TYPE}) is never named. */
    public static final String RUN_GATED_TYPE = "fzl";
    static final List<String> GATES = List.of("type:fzx", "type:fzy", "owner:o1", "owner:o2", "owner:*", "x", "", "type:",
            "owner:", "type:" + "t".repeat(129));

    /** What a record must get. */
    public enum Expect {
        /** Exactly one ax.state answer with the record's coordinates (REJECTED or IGNORED). */
        ONE_ANSWER,
        /** No answer is owed (a well-formed subscription, or a flow record: logged when skipped), and none twice. */
        AT_MOST_ONE_ANSWER,
        /** A limits record the scheduler must apply: the store then holds it (normalized), the refused count stays. */
        LIMIT_APPLIED,
        /** A limits record the scheduler must refuse: the refused count grows by one, the key's limits stay. */
        LIMIT_REFUSED
    }

    /** One record: topic name suffix as in {@code AxTopics} ({@code deps}, {@code flow}, {@code flow-grants}, {@code limits}). */
    public record Internal(String origin, String kind, String topic, String key, byte[] value, Expect expect) {
        public String describe() {
            String text = value == null ? "null" : new String(value, 0, Math.min(value.length, 120), StandardCharsets.UTF_8);
            return origin + " [" + kind + "] key " + (key == null ? "null" : key.length() > 60 ? key.substring(0, 60) + "..." : key)
                    + ", value " + (value == null ? "null" : value.length + " B " + text.replaceAll("[^ -~]", "?"));
        }
    }

    @FunctionalInterface
    private interface Family {
        Internal make(SplittableRandom random);
    }

    private static final List<Family> FAMILIES = List.of(HostileInternalRecords::depsGarbage, HostileInternalRecords::depsSignal,
            HostileInternalRecords::flowGarbage, HostileInternalRecords::flowMessage, HostileInternalRecords::grantGarbage,
            HostileInternalRecords::grant, HostileInternalRecords::limitsGood, HostileInternalRecords::limitsBad,
            HostileInternalRecords::limitsExtreme, HostileInternalRecords::replayOfRealRecord);

    private final long seed;

    public HostileInternalRecords(long seed) {
        this.seed = seed;
    }

    public static int families() {
        return FAMILIES.size();
    }

    public Internal get(int index) {
        SplittableRandom random = new SplittableRandom(seed ^ (index * GOLDEN) ^ 0x5DEECE66DL);
        Internal made = FAMILIES.get((int) Math.floorMod(index + seed, (long) FAMILIES.size())).make(random);
        return new Internal("seed " + seed + " #" + index, made.kind(), made.topic(), made.key(), made.value(), made.expect());
    }

    private static Internal of(String kind, String topic, String key, byte[] value, Expect expect) {
        return new Internal("", kind, topic, key, value, expect);
    }

    private static byte[] utf8(String text) {
        return text == null ? null : text.getBytes(StandardCharsets.UTF_8);
    }

    private static String taskId(SplittableRandom random) {
        return pick(random, List.of("unknown-" + random.nextInt(1_000_000), "a", "i".repeat(256)));
    }

    private static byte[] garbage(SplittableRandom random) {
        return switch (random.nextInt(6)) {
            case 0 -> null;
            case 1 -> new byte[0];
            case 2 -> HostileBytes.randomBytes(random, 1 + random.nextInt(64));
            case 3 -> utf8(pick(random, List.of("null", "{}", "[]", "1", "\"x\"", "true", "{\"a\":")));
            case 4 -> new byte[]{(byte) 0xC3, 0x01, 1, 2, 3, 4, 5, 6, 7, 8, 9};
            default -> utf8(HostileValues.deep(random));
        };
    }

    // ax.deps --------------------------------------------------------------------------------------------------------

    static Internal depsGarbage(SplittableRandom random) {
        String key = random.nextInt(8) == 0 ? null : taskId(random);
        byte[] value = random.nextBoolean() ? garbage(random)
                : random.nextBoolean() ? HostileBytes.truncated(random, signal(random, key).bytes)
                : HostileBytes.bitFlipped(random, signal(random, key).bytes);
        // a bit flip or a truncation can leave a well-formed subscription: no answer owed then
        return of("deps/bytes/garbage", "deps", key, value, Expect.AT_MOST_ONE_ANSWER);
    }

    private record Signal(byte[] bytes, boolean subscription, boolean wellFormed) {
    }

    private static Signal signal(SplittableRandom random, String key) {
        DependencySignalKind kind = pick(random, List.of(DependencySignalKind.values()));
        String other = taskId(random);
        String keyed = key == null ? "k" : key;
        boolean matching = random.nextInt(4) > 0;
        String upstream = kind == DependencySignalKind.NOTIFY ? other : matching ? keyed : other;
        String dependent = kind == DependencySignalKind.NOTIFY ? (matching ? keyed : other) : other;
        if (random.nextInt(6) == 0) {
            String bad = pick(random, List.of("", "x".repeat(257), "a\u0000b", "x".repeat(HostileValues.HUGE_CHARS)));
            if (random.nextBoolean()) {
                upstream = bad;
            } else {
                dependent = bad;
            }
            matching = false;
        }
        if (random.nextInt(10) == 0) {
            upstream = keyed; // waits for itself
            dependent = keyed;
        }
        String outcome = pick(random, java.util.Arrays.asList(null, "SUCCESS", "FAILED", "CANCELLED", "PURGED", "SKIPPED", "success",
                "", "x".repeat(300)));
        // Periodic dependencies: a subscription for every occurrence, a NOTIFY naming an occurrence (any long, or none).
        boolean everyOccurrence = random.nextInt(3) == 0;
        Long nominalAtMs = pick(random, java.util.Arrays.asList(null, null, Long.MIN_VALUE, -1L, 0L, 1_796_000_000_000L, Long.MAX_VALUE));
        String executionId = pick(random, java.util.Arrays.asList(null, "e", "", "x".repeat(257)));
        DependencySignal signal = DependencySignal.newBuilder().setKind(kind).setUpstream(upstream).setDependent(dependent)
                .setOutcome(outcome).setExecutionId(executionId).setEveryOccurrence(everyOccurrence).setNominalAtMs(nominalAtMs)
                .setAtMs(pick(random, List.of(Long.MIN_VALUE, -1L, 0L, 1_796_000_000_000L, Long.MAX_VALUE))).build();
        boolean subscription = kind != DependencySignalKind.NOTIFY;
        return new Signal(WireCodec.encode(signal), subscription, matching);
    }

    /** A well-formed signal (some for unknown tasks, mis-keyed, waiting for itself, with hostile ids and outcomes). */
    static Internal depsSignal(SplittableRandom random) {
        String key = taskId(random);
        Signal signal = signal(random, key);
        Expect expect = signal.subscription() ? Expect.AT_MOST_ONE_ANSWER : Expect.ONE_ANSWER;
        return of("deps/avro/" + (signal.subscription() ? "subscription" : "notify"), "deps", key, signal.bytes(), expect);
    }

    // ax.flow --------------------------------------------------------------------------------------------------------

    static Internal flowGarbage(SplittableRandom random) {
        return of("flow/bytes/garbage", "flow", random.nextInt(8) == 0 ? null : pick(random, GATES), garbage(random),
                Expect.AT_MOST_ONE_ANSWER);
    }

    private static String field(String name, String value) {
        return "\"" + name + "\":" + value;
    }

    /** A flow message, often well-formed, for executions nobody holds: every field at times hostile or missing. */
    static Internal flowMessage(SplittableRandom random) {
        List<String> fields = new ArrayList<>();
        String kind = pick(random, List.of("\"ACQUIRE\"", "\"RELEASE\"", "\"STARTED\"", "\"GRANT\"", "null", "1"));
        int gateCount = pick(random, List.of(1, 1, 2, 3, 0, 50));
        List<String> gates = new ArrayList<>();
        for (int i = 0; i < gateCount; i++) {
            gates.add("\"" + pick(random, GATES) + "\"");
        }
        if (random.nextInt(10) == 0 && !gates.isEmpty()) {
            gates.set(0, "null");
        }
        int gateIndex = pick(random, List.of(0, 0, 0, 1, -1, 2_147_483_647));
        String gate = gates.isEmpty() ? "type:fzx" : gateIndex >= 0 && gateIndex < gates.size() ? gates.get(gateIndex).replace("\"", "")
                : "type:fzx";
        maybe(random, fields, field("kind", kind));
        maybe(random, fields, field("taskId", pick(random, List.of("\"" + taskId(random) + "\"", "null", "\"\"", "1"))));
        maybe(random, fields, field("executionId", pick(random, List.of("\"e-" + random.nextInt(1_000) + "\"", "null", "\"\"",
                "\"" + "e".repeat(4_000) + "\""))));
        maybe(random, fields, field("attempt", pick(random, List.of("1", "0", "-1", "2147483647", "-2147483648", "2147483648", "1.5"))));
        maybe(random, fields, field("jobType", pick(random, List.of("\"fzx\"", "null", "\"\""))));
        maybe(random, fields, field("owner", pick(random, List.of("\"o1\"", "null", "\"\""))));
        maybe(random, fields, field("priority", pick(random, List.of("4", "-2147483648", "2147483647", "100"))));
        maybe(random, fields, field("dueAtMs", pick(random, List.of("0", "-9223372036854775808", "9223372036854775807", "1796000000000"))));
        maybe(random, fields, field("state", pick(random, List.of("\"PENDING\"", "\"RETRY_WAITING\"", "\"RUNNING\"", "\"SUCCESS\"",
                "\"BOGUS\"", "null"))));
        maybe(random, fields, field("gates", "[" + String.join(",", gates) + "]"));
        maybe(random, fields, field("gateIndex", Integer.toString(gateIndex)));
        maybe(random, fields, field("heldSinceMs", pick(random, List.of("0", "-9223372036854775808", "9223372036854775807"))));
        if (random.nextInt(8) == 0) {
            fields.add(field("unknown", "{\"a\":[1,2]}"));
        }
        Collections.shuffle(fields, new java.util.Random(random.nextLong()));
        String json = "{" + String.join(",", fields) + "}";
        String key = random.nextInt(10) == 0 ? pick(random, GATES) : gate;
        int copies = random.nextInt(6) == 0 ? 2 : 1; // a duplicate: the same record twice in one value is not JSON, so sent as is
        return of("flow/json/message", "flow", key, utf8(copies == 2 ? json + json : json), Expect.AT_MOST_ONE_ANSWER);
    }

    private static void maybe(SplittableRandom random, List<String> fields, String field) {
        if (random.nextInt(8) > 0) {
            fields.add(field);
        }
    }

    // ax.flow-grants -------------------------------------------------------------------------------------------------

    static Internal grantGarbage(SplittableRandom random) {
        return of("flow-grants/bytes/garbage", "flow-grants", random.nextInt(8) == 0 ? null : taskId(random), garbage(random),
                Expect.ONE_ANSWER);
    }

    /** A grant for a task that does not wait for it (unknown, or named wrong), with hostile fields. */
    static Internal grant(SplittableRandom random) {
        List<String> fields = new ArrayList<>();
        maybe(random, fields, field("executionId", pick(random, List.of("\"e-" + random.nextInt(1_000) + "\"", "null", "\"\"",
                "\"" + "e".repeat(4_000) + "\""))));
        maybe(random, fields, field("attempt", pick(random, List.of("1", "0", "-1", "2147483647", "2147483648"))));
        List<String> gates = new ArrayList<>();
        for (int i = 0; i < pick(random, List.of(1, 2, 0, 40)); i++) {
            gates.add("\"" + pick(random, GATES) + "\"");
        }
        if (random.nextInt(10) == 0 && !gates.isEmpty()) {
            gates.set(gates.size() - 1, pick(random, List.of("null", "1", "{}")));
        }
        maybe(random, fields, field("gates", "[" + String.join(",", gates) + "]"));
        maybe(random, fields, field("heldSinceMs", pick(random, List.of("0", "-9223372036854775808", "9223372036854775807"))));
        String key = random.nextInt(10) == 0 ? pick(random, List.of("", "a\u0000b", "x".repeat(300))) : taskId(random);
        return of("flow-grants/json/grant", "flow-grants", key, utf8("{" + String.join(",", fields) + "}"), Expect.ONE_ANSWER);
    }

    /** Kinds the run fills with a copy of a record the scheduler itself wrote while setting up (key and value). */
    public static final List<String> REPLAYS = List.of("flow-grants/replay/grant-of-dispatched", "flow/replay/acquire-of-dispatched",
            "flow/replay/acquire-of-held");

    /** A duplicate of a real record, sent again later: the dispatched task's grant, or an ACQUIRE already granted or waiting. */
    static Internal replayOfRealRecord(SplittableRandom random) {
        String kind = pick(random, REPLAYS);
        return of(kind, kind.startsWith("flow-grants") ? "flow-grants" : "flow", null, null,
                kind.startsWith("flow-grants") ? Expect.ONE_ANSWER : Expect.AT_MOST_ONE_ANSWER);
    }

    // ax.limits ------------------------------------------------------------------------------------------------------

    static final List<String> LIMIT_KEYS_OWNER = List.of("owner:o1", "owner:o2", "owner:*", "owner:" + "o".repeat(256));
    static final List<String> LIMIT_KEYS_TYPE = List.of("type:fzx", "type:fzy", "type:" + "t".repeat(128), "type:a.b_c:d-e");

    static Internal limitsGood(SplittableRandom random) {
        boolean owner = random.nextBoolean();
        String key = pick(random, owner ? LIMIT_KEYS_OWNER : LIMIT_KEYS_TYPE);
        if (random.nextInt(5) == 0) {
            return of("limits/tombstone/valid-key", "limits", key, null, Expect.LIMIT_APPLIED);
        }
        List<String> fields = new ArrayList<>();
        if (owner) {
            maybe(random, fields, field("maxInFlight", pick(random, List.of("1", "5", "1000000", "1.0", "null"))));
            maybe(random, fields, field("weight", pick(random, List.of("1", "3", "1000", "null"))));
        } else {
            maybe(random, fields, field("maxInFlight", pick(random, List.of("1", "50", "1000000", "null"))));
            maybe(random, fields, field("maxPerSecond", pick(random, List.of("0.5", "200", "1000000", "1", "1e-3", "null"))));
            maybe(random, fields, field("maxNotStarted", pick(random, List.of("1", "2000", "1000000", "null"))));
        }
        String json = "{" + String.join(random.nextBoolean() ? "," : " , ", fields) + "}";
        return of("limits/json/valid", "limits", key, utf8(random.nextBoolean() ? json : " " + json + "\n"), Expect.LIMIT_APPLIED);
    }

    static Internal limitsBad(SplittableRandom random) {
        String detail = pick(random, List.of("bad-key", "not-json", "trailing", "duplicate", "unknown-field", "wrong-kind-field",
                "wrong-type", "too-large", "not-object", "bad-key-tombstone", "huge-key"));
        String key = pick(random, LIMIT_KEYS_TYPE);
        String value = switch (detail) {
            case "bad-key", "bad-key-tombstone" -> {
                key = pick(random, java.util.Arrays.asList(null, "", "type:", "owner:", "type:a b", "Type:x", "owner:a\u0000b",
                        "owner:" + "o".repeat(257), "type:" + "t".repeat(129), "garbage", "limits", "owner", "type:x\n"));
                yield detail.equals("bad-key") ? "{\"maxInFlight\":1}" : null;
            }
            case "not-json" -> pick(random, List.of("", "{", "maxInFlight=1", "\u00ff\u00fe", "{'maxInFlight':1}"));
            case "trailing" -> pick(random, List.of("{}garbage", "{\"maxInFlight\":1}}", "{} {}", "{\"maxInFlight\":1}[1]"));
            case "huge-key" -> {
                key = pick(random, List.of("owner:", "type:", "")) + "k".repeat(HostileValues.HUGE_CHARS);
                yield random.nextBoolean() ? null : "{\"maxInFlight\":1}";
            }
            case "duplicate" -> "{\"maxInFlight\":1,\"maxInFlight\":2}";
            case "unknown-field" -> "{\"maxInFlight\":1,\"" + pick(random, List.of("maxLiveTasks", "", "maxinflight", "x".repeat(200)))
                    + "\":1}";
            case "wrong-kind-field" -> {
                boolean owner = random.nextBoolean();
                key = pick(random, owner ? LIMIT_KEYS_OWNER : LIMIT_KEYS_TYPE);
                yield owner ? "{\"maxNotStarted\":1}" : "{\"weight\":2}";
            }
            case "wrong-type" -> "{\"maxInFlight\":" + pick(random, List.of("\"1\"", "true", "[1]", "{}", "\"\"")) + "}";
            case "too-large" -> "{\"maxInFlight\":1" + " ".repeat(1_100) + "}";
            default -> pick(random, List.of("[]", "1", "null", "\"x\"", "[{\"maxInFlight\":1}]"));
        };
        if (detail.equals("not-json") && random.nextInt(3) == 0) { // limits are JSON only: an Avro record is refused as not JSON
            return of("limits/avro/not-json", "limits", key, HostileBytes.encode(io.ax.schema.CancelRequest.newBuilder()
                    .setReason("{\"maxInFlight\":1}").build()), Expect.LIMIT_REFUSED);
        }
        return of("limits/" + (value == null ? "tombstone" : "json") + "/" + detail, "limits", key, utf8(value), Expect.LIMIT_REFUSED);
    }

    /** One field at an extreme, refused or applied as the documented ranges say. */
    static Internal limitsExtreme(SplittableRandom random) {
        boolean owner = random.nextBoolean();
        String key = pick(random, owner ? LIMIT_KEYS_OWNER : LIMIT_KEYS_TYPE);
        String fieldName = pick(random, owner ? List.of("maxInFlight", "maxPerSecond", "burst", "weight")
                : List.of("maxInFlight", "maxPerSecond", "burst", "maxNotStarted"));
        String number = pick(random, HostileValues.EXTREME_NUMBERS);
        java.math.BigDecimal exact;
        try {
            exact = new java.math.BigDecimal(number);
        } catch (NumberFormatException e) {
            exact = null;
        }
        boolean valid;
        if (exact == null) {
            valid = false;
        } else if (fieldName.equals("maxPerSecond")) {
            double asDouble = Double.parseDouble(number);
            valid = asDouble > 0 && asDouble <= 1_000_000;
        } else {
            int max = fieldName.equals("weight") ? 1_000 : 1_000_000;
            boolean whole = exact.stripTrailingZeros().scale() <= 0;
            valid = whole && exact.compareTo(java.math.BigDecimal.ONE) >= 0 && exact.compareTo(java.math.BigDecimal.valueOf(max)) <= 0;
        }
        String rate = fieldName.equals("burst") ? "\"maxPerSecond\":1," : ""; // a burst is the size of a rate's bucket
        return of("limits/json/extreme-" + fieldName, "limits", key, utf8("{" + rate + "\"" + fieldName + "\":" + number + "}"),
                valid ? Expect.LIMIT_APPLIED : Expect.LIMIT_REFUSED);
    }
}
