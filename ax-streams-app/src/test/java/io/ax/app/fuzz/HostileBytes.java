package io.ax.app.fuzz;

import io.ax.codec.WireCodec;
import io.ax.schema.AttemptError;
import io.ax.schema.DeadLetter;
import io.ax.schema.DispatchKind;
import io.ax.schema.DispatchTask;
import io.ax.schema.SourceRecord;
import io.ax.schema.StateChange;
import io.ax.schema.TaskState;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.avro.specific.SpecificRecord;

/** Damage that fits any topic: garbage, truncated and bit-flipped records, unknown fingerprints, malformed JSON. */
final class HostileBytes {
    static final long[] HUGE_LENGTHS = {2_000_000_000L, Integer.MAX_VALUE, Integer.MAX_VALUE - 8, 1L << 30, 300_000_000L};
    static final long[] NEGATIVE_LENGTHS = {-1, -2, -1_000_000, Integer.MIN_VALUE, -2_000_000_000L};
    /** Lengths no Avro int can hold (a reader must refuse them, not wrap them). */
    static final long[] OUT_OF_INT_LENGTHS = {1L << 31, 1L << 40, Long.MAX_VALUE, Long.MIN_VALUE};

    private HostileBytes() {
    }

    static byte[] garbage(SplittableRandom random) {
        return switch (random.nextInt(6)) {
            case 0 -> new byte[0];
            case 1 -> new byte[] {(byte) 0xC3};
            case 2 -> new byte[] {(byte) 0xC3, 0x01, 0x00};
            case 3 -> "\u0000\u0001binary".getBytes(StandardCharsets.ISO_8859_1);
            default -> randomBytes(random, 1 + random.nextInt(random.nextBoolean() ? 64 : 4096));
        };
    }

    static byte[] randomBytes(SplittableRandom random, int length) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) random.nextInt(256);
        }
        return bytes;
    }

    /** The record cut short somewhere after its first byte. */
    static byte[] truncated(SplittableRandom random, byte[] valid) {
        int keep = 1 + random.nextInt(valid.length - 1);
        byte[] cut = new byte[keep];
        System.arraycopy(valid, 0, cut, 0, keep);
        return cut;
    }

    /** The record with one to four bits flipped anywhere, header included. */
    static byte[] bitFlipped(SplittableRandom random, byte[] valid) {
        byte[] flipped = valid.clone();
        int flips = 1 + random.nextInt(4);
        for (int i = 0; i < flips; i++) {
            int bit = random.nextInt(flipped.length * 8);
            flipped[bit / 8] ^= (byte) (1 << (bit % 8));
        }
        return flipped;
    }

    /** A valid body behind a fingerprint no ax schema has. */
    static byte[] unknownFingerprint(SplittableRandom random, byte[] valid) {
        byte[] copy = valid.clone();
        for (int i = 2; i < 10; i++) {
            copy[i] = (byte) random.nextInt(256);
        }
        return copy;
    }

    static long lyingLength(SplittableRandom random, String family, int tailLength) {
        return switch (family) {
            case "huge-length" -> HUGE_LENGTHS[random.nextInt(HUGE_LENGTHS.length)];
            case "negative-length" -> NEGATIVE_LENGTHS[random.nextInt(NEGATIVE_LENGTHS.length)];
            case "out-of-int-length" -> OUT_OF_INT_LENGTHS[random.nextInt(OUT_OF_INT_LENGTHS.length)];
            case "past-end" -> tailLength + 1 + random.nextInt(1000);
            default -> throw new IllegalArgumentException(family);
        };
    }

    static final List<String> LENGTH_FAMILIES = List.of("huge-length", "negative-length", "out-of-int-length", "past-end");

    /** Records of every ax type that no input topic accepts. */
    static List<SpecificRecord> foreignRecords() {
        DispatchTask dispatch = DispatchTask.newBuilder().setKind(DispatchKind.RUN).setTaskId("fz").setExecutionId("e")
                .setAttempt(1).setJobType("j").setDueAtMs(0).setFiredAtMs(0).setTimeoutMs(1).build();
        return List.of(dispatch,
                DeadLetter.newBuilder().setDispatch(dispatch).setErrors(List.of(new AttemptError(1, 0L, false, true, "x")))
                        .setReason("r").setFailedAtMs(0).build(),
                StateChange.newBuilder().setTaskId("fz").setTo(TaskState.REJECTED).setAtMs(0)
                        .setSource(new SourceRecord("ax.requests", 0, 0L)).build());
    }

    static byte[] encode(SpecificRecord record) {
        return WireCodec.encode(record);
    }

    /** Text that is not quite JSON, or JSON that is not an object. */
    static final List<String> MALFORMED_JSON = List.of("{", "}", "{\"jobType\":", "{\"jobType\":\"a\",}", "{\"jobType\" \"a\"}",
            "{'jobType':'a'}", "{jobType:\"a\"}", "{\"jobType\":\"a\"/*c*/}", "{\"a\":NaN}", "{\"a\":Infinity}", "{\"a\":0x10}",
            "{\"a\":01}", "{\"a\":\"unterminated}", "{\"a\":\"\\x41\"}", "{\"a\":tru}", "{\"a\":[1,2}", "{}}", "{} {}",
            "{\"a\":1}xyz", " \n\t{}", "{}", "[]", "[{}]", "\"text\"", "1", "null", "true", "", "   ", "{\"\":1}",
            "{\"a\":\"\\ud800\"}", "{\"a\":\"\\uZZZZ\"}");

    /** Malformed JSON, JSON in another encoding, or JSON with a byte-order mark or invalid UTF-8. */
    static byte[] malformedJson(SplittableRandom random) {
        return switch (random.nextInt(5)) {
            case 0 -> "{\"jobType\":\"a\",\"delayMs\":0}".getBytes(StandardCharsets.UTF_16BE);
            case 1 -> concat(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF}, "{\"jobType\":\"a\",\"delayMs\":0}".getBytes(StandardCharsets.UTF_8));
            case 2 -> concat("{\"jobType\":\"".getBytes(StandardCharsets.UTF_8), new byte[] {(byte) 0xC3, (byte) 0x28, (byte) 0xFF},
                    "\",\"delayMs\":0}".getBytes(StandardCharsets.UTF_8));
            default -> HostileValues.pick(random, MALFORMED_JSON).getBytes(StandardCharsets.UTF_8);
        };
    }

    static byte[] concat(byte[]... parts) {
        int length = 0;
        for (byte[] part : parts) {
            length += part.length;
        }
        byte[] all = new byte[length];
        int at = 0;
        for (byte[] part : parts) {
            System.arraycopy(part, 0, all, at, part.length);
            at += part.length;
        }
        return all;
    }
}
