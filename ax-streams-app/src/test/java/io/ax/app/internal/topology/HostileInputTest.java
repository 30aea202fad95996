package io.ax.app.internal.topology;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.ax.codec.AxSchemas;
import io.ax.codec.WireCodec;
import io.ax.schema.ExecutionReport;
import io.ax.schema.RetryRecord;
import io.ax.schema.ScheduleRequest;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Inputs a hostile producer sends: each is answered on ax.state with a bounded record, and the partition goes
 * on (a canary request behind it is accepted and fires). Each case once stopped a partition for good.
 */
class HostileInputTest {
    /** Larger than any valid input: refused before it is decoded. */
    private static final String BIG = "x".repeat(600 * 1024);
    /** Fits in a record, too long for any field. */
    private static final String LONG = "x".repeat(300 * 1024);

    private static void assertRejected(JsonNode event, String reasonPart) {
        assertThat(event.get("to").asText()).isEqualTo("REJECTED");
        assertThat(event.get("reason").asText()).contains(reasonPart);
    }

    /** A canary behind the bad input is accepted and fires: the partition moves on. */
    private static void assertCanaryFires(SchedulerHarness ax, String name) {
        ax.request(name, "{\"jobType\":\"canary\",\"delayMs\":0}");
        assertThat(ax.events()).last().satisfies(e -> assertThat(e.get("to").asText()).isEqualTo("PENDING"));
        ax.advanceMs(10);
        assertThat(ax.dispatches()).extracting(SchedulerHarness.Dispatched::key).contains(name);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"at", "startAt"})
    void shouldRejectAnInstantOutsideTheEpochMillisecondRange(String field) {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            String trigger = field.equals("at") ? "" : "\"everyMs\":1000,";
            ax.request("far", "{\"jobType\":\"a\"," + trigger + "\"" + field + "\":\"+300000000-01-01T00:00:00Z\"}");
            assertRejected(ax.events().get(0), field + " is not an ISO-8601 instant between 1970 and 9999");
            ax.request("far2", "{\"jobType\":\"a\"," + trigger + "\"" + field + "\":253402300800000}");
            assertRejected(ax.events().get(0), "must be between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z");
            assertCanaryFires(ax, "canary");
        }
    }

    @Test
    void shouldRejectAReportWithAnInstantOutsideTheRange() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.report("t", "{\"executionId\":\"e\",\"attempt\":1,\"status\":\"STARTED\",\"reportedAt\":\"+300000000-01-01T00:00:00Z\"}");
            assertRejected(ax.events().get(0), "reportedAt is not an ISO-8601 instant");
            assertCanaryFires(ax, "canary");
        }
    }

    @Test
    void shouldRejectAnAvroLengthPrefixPastTheEndWithoutAllocatingIt() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.requestBytes("r", hugeStringRecord(ScheduleRequest.getClassSchema()));
            assertRejected(ax.events().get(0), "malformed Avro record: string of 2000000000 bytes at byte 15 runs past the end");
            ax.reportBytes("r", hugeStringRecord(ExecutionReport.getClassSchema()));
            assertRejected(ax.events().get(0), "malformed Avro record: string of 2000000000 bytes");
            ax.retryBytes("r", hugeStringRecord(RetryRecord.getClassSchema()));
            assertRejected(ax.events().get(0), "malformed Avro record: string of 2000000000 bytes");
            assertCanaryFires(ax, "canary");
        }
    }

    /** A 33-byte single-object record whose first field, a string, announces 2e9 bytes. */
    private static byte[] hugeStringRecord(Schema schema) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(0xC3);
        out.write(0x01);
        out.writeBytes(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(AxSchemas.fingerprint(schema)).array());
        long zigzag = 2_000_000_000L << 1;
        while ((zigzag & ~0x7FL) != 0) {
            out.write((int) ((zigzag & 0x7F) | 0x80));
            zigzag >>>= 7;
        }
        out.write((int) zigzag);
        while (out.size() < 33) {
            out.write('a');
        }
        return out.toByteArray();
    }

    @Test
    void shouldAnswerAHugeKeyWithABoundedRecord() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request(BIG, "{\"jobType\":\"a\",\"delayMs\":0}");
            List<TestRecord<String, byte[]>> records = ax.stateRecords();
            assertThat(records).hasSize(1);
            assertThat(records.get(0).key()).hasSizeLessThan(100).startsWith("xxxx").contains("…#");
            assertThat(records.get(0).value()).hasSizeLessThan(1000);
            assertThat(new String(records.get(0).value(), StandardCharsets.UTF_8)).contains("taskId is longer than 256 chars: 614400");
            assertCanaryFires(ax, "canary");
        }
    }

    @Test
    void shouldQuoteAHugeFieldValueShortInTheReason() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("p", "{\"jobType\":\"a\",\"delayMs\":0,\"priority\":\"" + LONG + "\"}");
            List<TestRecord<String, byte[]>> records = ax.stateRecords();
            assertThat(records.get(0).value()).hasSizeLessThan(1000);
            assertThat(new String(records.get(0).value(), StandardCharsets.UTF_8))
                    .contains("priority must be a whole number: \\\"xxxx").contains("(307200 chars, sha-256 ");
            assertCanaryFires(ax, "canary");
        }
    }

    @Test
    void shouldKeepAHugeFailureMessageBoundedInStateTaskAndDeadLetter() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("f", "{\"jobType\":\"a\",\"delayMs\":0,\"maxRetries\":0}");
            ax.advanceMs(10);
            String executionId = ax.dispatches().get(0).executionId();
            ax.discardEvents();
            ax.report("f", "{\"executionId\":\"" + executionId + "\",\"attempt\":1,\"status\":\"FAILED\",\"message\":\"" + LONG + "\"}");
            List<TestRecord<String, byte[]>> records = ax.stateRecords();
            assertThat(records).hasSize(1);
            assertThat(records.get(0).value()).hasSizeLessThan(5000);
            assertThat(new String(records.get(0).value(), StandardCharsets.UTF_8)).contains("\"to\":\"FAILED\"")
                    .contains("(truncated from 307200 chars)");
            assertThat(ax.deadLetters()).singleElement().satisfies(letter ->
                    assertThat(letter.getErrors().get(0).getMessage()).hasSizeLessThanOrEqualTo(4096));
            assertCanaryFires(ax, "canary");
        }
    }

    @Test
    void shouldRefuseAValueLargerThanAnyValidInputBeforeDecodingIt() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.report("f", "{\"executionId\":\"e\",\"attempt\":1,\"status\":\"FAILED\",\"message\":\"" + BIG + "\"}");
            List<TestRecord<String, byte[]>> records = ax.stateRecords();
            assertThat(records.get(0).value()).hasSizeLessThan(1000);
            assertThat(new String(records.get(0).value(), StandardCharsets.UTF_8))
                    .contains("record value is 614462 bytes, more than the 393216 any valid input can take");
            assertCanaryFires(ax, "canary");
        }
    }

    @Test
    void shouldRejectRetryRecordsWithTimesOrAttemptsOutOfRange() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.retryBytes("r", WireCodec.encode(RetryRecord.newBuilder().setExecutionId("e").setAttempt(2)
                    .setNextAttemptAtMs(-5).setBackoffMs(0).setJobType("a").build()));
            assertRejected(ax.events().get(0), "nextAttemptAtMs must be between 1970-01-01T00:00:00Z and 9999");
            ax.retryBytes("r", WireCodec.encode(RetryRecord.newBuilder().setExecutionId("e").setAttempt(Integer.MIN_VALUE)
                    .setNextAttemptAtMs(0).setBackoffMs(0).setJobType("a").build()));
            assertRejected(ax.events().get(0), "a retry's attempt must be between 2 and 101");
            assertCanaryFires(ax, "canary");
        }
    }

    @Test
    void shouldRejectADelayCountedFromARecordTimestampOutOfRange() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.requestAt("late", "{\"jobType\":\"a\",\"delayMs\":1000}", Long.MAX_VALUE - 1);
            assertRejected(ax.events().get(0), "record timestamp must be between 1970");
            assertCanaryFires(ax, "canary");
        }
    }

    @Test
    void shouldRejectAnOverlongReasonExecutionIdOrWorkerId() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("c", "{\"cancel\":true,\"reason\":\"" + LONG + "\"}");
            assertRejected(ax.events().get(0), "reason is longer than 1024 chars");
            ax.report("c", "{\"executionId\":\"" + LONG + "\",\"attempt\":1,\"status\":\"STARTED\"}");
            assertRejected(ax.events().get(0), "executionId is longer than 256 chars");
            ax.report("c", "{\"executionId\":\"e\",\"attempt\":1,\"status\":\"STARTED\",\"workerId\":\"" + LONG + "\"}");
            assertRejected(ax.events().get(0), "workerId is longer than 256 chars");
            assertCanaryFires(ax, "canary");
        }
    }

    @Test
    void shouldRejectDeepNestingDuplicateFieldsAndTrailingContent() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("deep", "{\"jobType\":\"a\",\"delayMs\":0,\"payload\":" + "[".repeat(10_000) + "]".repeat(10_000) + "}");
            assertRejected(ax.events().get(0), "nesting depth");
            ax.request("dup", "{\"jobType\":\"a\",\"delayMs\":0,\"delayMs\":5000}");
            assertRejected(ax.events().get(0), "field \"delayMs\" appears more than once");
            ax.request("trail", "{\"jobType\":\"a\",\"delayMs\":0} {\"cancel\":true}");
            assertRejected(ax.events().get(0), "unexpected content after the JSON object");
            assertCanaryFires(ax, "canary");
        }
    }

    @Test
    void shouldHandAJsonPayloadToTheWorkerByteForByte() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            String payload = "{ \"amount\": 12345678901234567890.25, \"huge\": 1e400, \"tiny\": -0.0,\n  \"name\": \"\\u0041da\" }";
            ax.request("exact", "{\"jobType\":\"a\",\"delayMs\":0,\"payload\":" + payload + "}");
            ax.request("text", "{\"payload\" : \"caf\\u00e9\" ,\"jobType\":\"a\",\"delayMs\":0}");
            ax.request("number", "{\"jobType\":\"a\",\"delayMs\":0,\"payload\":1.000}");
            ax.advanceMs(10);
            List<SchedulerHarness.Dispatched> dispatches = ax.dispatches();
            assertThat(dispatches).hasSize(3);
            assertThat(payloadOf(dispatches, "exact")).isEqualTo(payload);
            assertThat(payloadOf(dispatches, "text")).isEqualTo("\"caf\\u00e9\"");
            assertThat(payloadOf(dispatches, "number")).isEqualTo("1.000");
        }
    }

    private static String payloadOf(List<SchedulerHarness.Dispatched> dispatches, String taskId) {
        ByteBuffer payload = dispatches.stream().filter(d -> d.key().equals(taskId)).findFirst().orElseThrow().task().getPayload();
        byte[] bytes = new byte[payload.remaining()];
        payload.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
