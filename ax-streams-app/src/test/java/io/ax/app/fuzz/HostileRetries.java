package io.ax.app.fuzz;

import static io.ax.app.fuzz.HostileValues.pick;

import io.ax.schema.CancelRequest;
import io.ax.schema.RetryRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.avro.specific.SpecificRecord;

/**
 * Retry records on {@code ax.retry} (Avro only: the scheduler writes them, so JSON there is refused), for executions
 * that do not exist: a retry record only takes effect for an execution waiting for exactly that attempt, and the
 * scheduler's own record always reaches the partition first.
 */
final class HostileRetries {
    static final List<String> LENGTH_SLOTS = List.of("executionId", "lastError", "jobType");

    private HostileRetries() {
    }

    static List<Maker> makers() {
        return List.of(HostileRetries::extremeField, HostileRetries::hugeField, HostileRetries::lyingLength,
                HostileRetries::truncated, HostileRetries::bitFlipped, HostileRetries::unknownFingerprint,
                HostileRetries::wrongType, HostileRetries::json);
    }

    private static HostileInput input(String family, String detail, byte[] value) {
        return HostileInput.of("retry/avro/" + family + "/" + detail, FuzzTopic.RETRY, value);
    }

    static RetryRecord.Builder validRetry() {
        return RetryRecord.newBuilder().setExecutionId("fz-exec").setAttempt(2).setNextAttemptAtMs(1_800_000_000_000L)
                .setBackoffMs(1_000).setLastError("boom").setJobType("fz");
    }

    static HostileInput extremeField(SplittableRandom random) {
        String field = pick(random, List.of("nextAttemptAtMs", "attempt", "backoffMs"));
        long value = HostileRequestAvro.EXTREME_LONGS[random.nextInt(HostileRequestAvro.EXTREME_LONGS.length)];
        RetryRecord.Builder retry = validRetry();
        switch (field) {
            case "nextAttemptAtMs" -> retry.setNextAttemptAtMs(value);
            case "backoffMs" -> retry.setBackoffMs(value);
            default -> retry.setAttempt(HostileRequestAvro.EXTREME_INTS[random.nextInt(HostileRequestAvro.EXTREME_INTS.length)]);
        }
        return input("extreme", field, HostileBytes.encode(retry.build()));
    }

    static HostileInput hugeField(SplittableRandom random) {
        String field = pick(random, LENGTH_SLOTS);
        String huge = "x".repeat(random.nextInt(4) == 0 ? HostileValues.NEAR_LIMIT_CHARS : HostileValues.HUGE_CHARS);
        RetryRecord.Builder retry = validRetry();
        switch (field) {
            case "executionId" -> retry.setExecutionId(huge);
            case "lastError" -> retry.setLastError(huge);
            default -> retry.setJobType(huge);
        }
        return input("huge-field", field, HostileBytes.encode(retry.build()));
    }

    static HostileInput lyingLength(SplittableRandom random) {
        String slot = pick(random, LENGTH_SLOTS);
        String family = pick(random, HostileBytes.LENGTH_FAMILIES);
        byte[] tail = HostileBytes.randomBytes(random, random.nextInt(20));
        long declared = HostileBytes.lyingLength(random, family, tail.length);
        AvroBytes bytes = AvroBytes.singleObject(RetryRecord.getClassSchema());
        if (!slot.equals("executionId")) {
            bytes.string("fz-exec").varint(2).varint(1_800_000_000_000L).varint(1_000);
            bytes = slot.equals("lastError") ? bytes.index(1) : bytes.index(1).string("boom");
        }
        return input(family, slot, bytes.lyingLength(declared, tail).bytes());
    }

    private static byte[] validSample() {
        return HostileBytes.encode(validRetry().build());
    }

    static HostileInput truncated(SplittableRandom random) {
        return input("truncated", "any", HostileBytes.truncated(random, validSample()));
    }

    static HostileInput bitFlipped(SplittableRandom random) {
        return input("bit-flip", "any", HostileBytes.bitFlipped(random, validSample()));
    }

    static HostileInput unknownFingerprint(SplittableRandom random) {
        return input("unknown-fingerprint", "any", HostileBytes.unknownFingerprint(random, validSample()));
    }

    static HostileInput wrongType(SplittableRandom random) {
        List<SpecificRecord> records = new ArrayList<>(HostileBytes.foreignRecords());
        records.add(HostileRequestAvro.validRequest().build());
        records.add(CancelRequest.newBuilder().build());
        records.add(HostileReportAvro.validReport().build());
        SpecificRecord record = pick(random, records);
        return input("wrong-type", record.getSchema().getName(), HostileBytes.encode(record));
    }

    /** JSON, which the retry topic does not accept: a RetryRecord's fields, or any hostile JSON. */
    static HostileInput json(SplittableRandom random) {
        String text = switch (random.nextInt(3)) {
            case 0 -> "{\"executionId\":\"e\",\"attempt\":2,\"nextAttemptAtMs\":-1,\"backoffMs\":1,\"jobType\":\"fz\"}";
            case 1 -> HostileValues.deep(random);
            default -> "{\"lastError\":" + HostileValues.hugeString(random) + "}";
        };
        return HostileInput.of("retry/json/not-accepted/any", FuzzTopic.RETRY, text);
    }
}
