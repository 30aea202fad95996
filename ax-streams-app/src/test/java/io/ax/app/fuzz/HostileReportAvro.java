package io.ax.app.fuzz;

import static io.ax.app.fuzz.HostileValues.pick;

import io.ax.schema.CancelRequest;
import io.ax.schema.ExecutionReport;
import io.ax.schema.ReportStatus;
import io.ax.schema.RetryRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.avro.specific.SpecificRecord;

/** Execution reports in Avro single-object encoding on {@code ax.results}. */
final class HostileReportAvro {
    static final List<String> LENGTH_SLOTS = List.of("executionId", "message", "workerId", "progress");

    private HostileReportAvro() {
    }

    static List<Maker> makers() {
        return List.of(HostileReportAvro::lyingLength, HostileReportAvro::extremeField, HostileReportAvro::hugeField,
                HostileReportAvro::truncated, HostileReportAvro::bitFlipped, HostileReportAvro::unknownFingerprint,
                HostileReportAvro::wrongType, HostileReportAvro::badIndex);
    }

    private static HostileInput input(String family, String detail, byte[] value) {
        return HostileInput.of("results/avro/" + family + "/" + detail, FuzzTopic.RESULTS, value);
    }

    static ExecutionReport.Builder validReport() {
        return ExecutionReport.newBuilder().setExecutionId("fz-exec").setAttempt(1).setStatus(ReportStatus.FAILED)
                .setMessage("m").setWorkerId("w");
    }

    static HostileInput lyingLength(SplittableRandom random) {
        String slot = pick(random, LENGTH_SLOTS);
        String family = pick(random, HostileBytes.LENGTH_FAMILIES);
        byte[] tail = HostileBytes.randomBytes(random, random.nextInt(20));
        long declared = HostileBytes.lyingLength(random, family, tail.length);
        AvroBytes bytes = AvroBytes.singleObject(ExecutionReport.getClassSchema());
        if (!slot.equals("executionId")) {
            bytes.string("fz-exec").varint(1).index(3).bool(true); // attempt 1, FAILED, retryable
            for (String union : List.of("message", "workerId")) {
                if (union.equals(slot)) {
                    break;
                }
                bytes.index(1).string("x");
            }
            if (slot.equals("progress")) {
                bytes.index(0); // reportedAtMs null
            }
            bytes.index(1);
        }
        return input(family, slot, bytes.lyingLength(declared, tail).bytes());
    }

    static HostileInput extremeField(SplittableRandom random) {
        ExecutionReport.Builder report = validReport();
        String field = random.nextBoolean() ? "attempt" : "reportedAtMs";
        if (field.equals("attempt")) {
            report.setAttempt(HostileRequestAvro.EXTREME_INTS[random.nextInt(HostileRequestAvro.EXTREME_INTS.length)]);
        } else {
            report.setReportedAtMs(HostileRequestAvro.EXTREME_LONGS[random.nextInt(HostileRequestAvro.EXTREME_LONGS.length)]);
        }
        return input("extreme", field, HostileBytes.encode(report.build()));
    }

    static HostileInput hugeField(SplittableRandom random) {
        String field = pick(random, LENGTH_SLOTS);
        String huge = "x".repeat(random.nextInt(4) == 0 ? HostileValues.NEAR_LIMIT_CHARS : HostileValues.HUGE_CHARS);
        ExecutionReport.Builder report = validReport();
        switch (field) {
            case "executionId" -> report.setExecutionId(huge);
            case "message" -> report.setMessage(huge);
            case "workerId" -> report.setWorkerId(huge);
            default -> report.setProgress(huge);
        }
        return input("huge-field", field, HostileBytes.encode(report.build()));
    }

    private static byte[] validSample(SplittableRandom random) {
        return HostileBytes.encode(validReport().setStatus(pick(random, List.of(ReportStatus.values())))
                .setProgress(random.nextBoolean() ? "offset 42" : null).setReportedAtMs(1_800_000_000_000L).build());
    }

    static HostileInput truncated(SplittableRandom random) {
        return input("truncated", "any", HostileBytes.truncated(random, validSample(random)));
    }

    static HostileInput bitFlipped(SplittableRandom random) {
        return input("bit-flip", "any", HostileBytes.bitFlipped(random, validSample(random)));
    }

    static HostileInput unknownFingerprint(SplittableRandom random) {
        return input("unknown-fingerprint", "any", HostileBytes.unknownFingerprint(random, validSample(random)));
    }

    static HostileInput wrongType(SplittableRandom random) {
        List<SpecificRecord> records = new ArrayList<>(HostileBytes.foreignRecords());
        records.add(HostileRequestAvro.validRequest().build());
        records.add(CancelRequest.newBuilder().build());
        records.add(RetryRecord.newBuilder().setExecutionId("e").setAttempt(2).setNextAttemptAtMs(0).setBackoffMs(1).setJobType("fz").build());
        SpecificRecord record = pick(random, records);
        return input("wrong-type", record.getSchema().getName(), HostileBytes.encode(record));
    }

    static HostileInput badIndex(SplittableRandom random) {
        int index = pick(random, List.of(-1, 4, 1_000_000_000, Integer.MAX_VALUE, Integer.MIN_VALUE));
        AvroBytes bytes = AvroBytes.singleObject(ExecutionReport.getClassSchema()).string("fz-exec").varint(1);
        String where = random.nextBoolean() ? "status" : "message";
        byte[] value = where.equals("status") ? bytes.index(index).bytes() : bytes.index(2).bool(true).index(index).bytes();
        return input("bad-index", where, value);
    }
}
