package io.ax.app.internal.topology;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.ax.codec.WireCodec;
import io.ax.schema.DispatchKind;
import io.ax.schema.DispatchTask;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class BadInputTest {

    private static void assertRejected(JsonNode event, String topic, long offset, String taskId, String reasonPart) {
        assertThat(event.get("to").asText()).isEqualTo("REJECTED");
        assertThat(event.get("source").get("topic").asText()).isEqualTo(topic);
        assertThat(event.get("source").get("partition").asInt()).isEqualTo(0);
        assertThat(event.get("source").get("offset").asLong()).isEqualTo(offset);
        if (taskId == null) {
            assertThat(event.has("taskId")).isFalse();
        } else {
            assertThat(event.get("taskId").asText()).isEqualTo(taskId);
        }
        assertThat(event.get("reason").asText()).contains(reasonPart);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "garbage bytes        | not json at all                                              | neither Avro single-object encoding",
        "malformed JSON       | {\"jobType\":                                                | malformed JSON",
        "unknown field        | {\"jobType\":\"a\",\"delayMS\":5}                            | unknown field delayMS",
        "no trigger           | {\"jobType\":\"a\"}                                          | missing trigger",
        "two triggers         | {\"jobType\":\"a\",\"delayMs\":5,\"everyMs\":1000}           | more than one trigger",
        "negative delay       | {\"jobType\":\"a\",\"delayMs\":-5}                           | delayMs must be between 0 and",
        "bad cron             | {\"jobType\":\"a\",\"cron\":\"61 * * * *\"}                  | bad cron expression",
        "bad zone             | {\"jobType\":\"a\",\"cron\":\"0 2 * * *\",\"zone\":\"Mars/Base\"} | unknown time zone",
        "unknown enum         | {\"jobType\":\"a\",\"delayMs\":5,\"ifExists\":\"MAYBE\"}     | ifExists must be one of [KEEP, REPLACE, UPDATE]",
        "bad priority         | {\"jobType\":\"a\",\"delayMs\":5,\"priority\":10}            | priority must be 0-9",
        "bad time             | {\"jobType\":\"a\",\"at\":\"tomorrow\"}                      | at is not an ISO-8601 instant",
        "bad jobType          | {\"jobType\":\"a b\",\"delayMs\":5}                          | jobType must be",
        "tiny interval        | {\"jobType\":\"a\",\"everyMs\":5}                            | everyMs must be between 100",
        "cancel not true      | {\"cancel\":false}                                           | cancel must be true",
        "bad quartz cron      | {\"jobType\":\"a\",\"cron\":\"0 0 12 L * 5\"}             | bad cron expression \"0 0 12 L * 5\"",
        "cron field count     | {\"jobType\":\"a\",\"cron\":\"every day\"}                | it has 2 fields",
        "end before start     | {\"jobType\":\"a\",\"everyMs\":1000,\"startAt\":\"2027-01-01T00:00:00Z\",\"endAt\":\"2026-12-31T00:00:00Z\"} | endAt 2026-12-31T00:00:00Z is before startAt 2027-01-01T00:00:00Z",
        "end before first     | {\"jobType\":\"a\",\"cron\":\"0 2 * * *\",\"endAt\":\"2026-12-01T01:00:00Z\"} | is before the first occurrence, 2026-12-01T02:00:00Z",
        "max count below one  | {\"jobType\":\"a\",\"everyMs\":1000,\"maxOccurrences\":0}  | maxOccurrences must be >= 1: 0",
        "misfire on one-shot  | {\"jobType\":\"a\",\"delayMs\":5,\"misfire\":\"SKIP\"}     | misfire goes with a periodic trigger",
        "unknown misfire      | {\"jobType\":\"a\",\"everyMs\":1000,\"misfire\":\"LATER\"} | misfire must be one of [FIRE_ONCE, FIRE_ALL, SKIP]",
        "jitter over interval | {\"jobType\":\"a\",\"everyMs\":1000,\"occurrenceJitterMs\":2000} | occurrenceJitterMs must be between 0 and 1000",
        "catch-up bound       | {\"jobType\":\"a\",\"everyMs\":1000,\"misfire\":\"FIRE_ALL\",\"maxCatchUp\":0} | maxCatchUp must be between 1 and 10000: 0",
        "overlap on one-shot  | {\"jobType\":\"a\",\"delayMs\":5,\"overlap\":\"QUEUE_ONE\"} | overlap goes with a periodic trigger",
        "unknown overlap      | {\"jobType\":\"a\",\"everyMs\":1000,\"overlap\":\"BESIDE\"} | overlap must be one of [SKIP, QUEUE_ONE, ALLOW]",
        "overlap not text     | {\"jobType\":\"a\",\"everyMs\":1000,\"overlap\":1}    | overlap",
        "pause not true       | {\"pause\":false}                                            | pause must be true",
        "pause extra field    | {\"pause\":true,\"everyMs\":1000}                          | unknown field everyMs",
        "resume not true      | {\"resume\":\"yes\"}                                       | resume must be true",
        "resume reason length | {\"resume\":true,\"reason\":\"%s\"}                     | reason",
    })
    void shouldRejectABadRequestAndKeepProcessing(String name, String value, String reason) {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("bad", value.formatted("r".repeat(1025)));
            ax.request("good", "{\"jobType\":\"a\",\"delayMs\":0}");
            List<JsonNode> events = ax.events();
            assertThat(events).hasSize(2);
            assertRejected(events.get(0), "ax.requests", 0, "bad", reason);
            assertThat(events.get(1).get("to").asText()).isEqualTo("PENDING");
            ax.advanceMs(10);
            assertThat(ax.dispatches()).hasSize(1);
        }
    }

    @Test
    void shouldRejectAnOversizePayload() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            String big = "x".repeat(300 * 1024);
            ax.request("big", "{\"jobType\":\"a\",\"delayMs\":0,\"payload\":\"" + big + "\"}");
            assertRejected(ax.events().get(0), "ax.requests", 0, "big", "more than the limit of 262144");
        }
    }

    @Test
    void shouldRejectARequestWithoutAKey() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request(null, "{\"jobType\":\"a\",\"delayMs\":0}");
            assertRejected(ax.events().get(0), "ax.requests", 0, null, "missing taskId");
        }
    }

    @Test
    void shouldRejectAnAvroRecordOfTheWrongTypeOnTheRequestsTopic() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            byte[] dispatch = WireCodec.encode(DispatchTask.newBuilder().setKind(DispatchKind.RUN).setTaskId("x")
                    .setExecutionId("e").setAttempt(1).setJobType("j").setDueAtMs(0).setFiredAtMs(0).setTimeoutMs(1).build());
            ax.requestBytes("x", dispatch);
            assertRejected(ax.events().get(0), "ax.requests", 0, "x", "expected a ScheduleRequest, CancelRequest, ReplayRequest, TriggerRequest, PauseRequest, ResumeRequest or CalendarRequest");
        }
    }

    @Test
    void shouldRejectUnknownSchemaFingerprints() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.requestBytes("x", new byte[] {(byte) 0xC3, 0x01, 1, 2, 3, 4, 5, 6, 7, 8, 0});
            assertRejected(ax.events().get(0), "ax.requests", 0, "x", "unknown schema fingerprint 0102030405060708");
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "garbage         | \u0000\u0001binary       | neither Avro single-object encoding",
        "unknown status  | {\"executionId\":\"e\",\"attempt\":1,\"status\":\"DONE\"}    | status must be one of [STARTED, HEARTBEAT, SUCCEEDED, FAILED]",
        "missing attempt | {\"executionId\":\"e\",\"status\":\"SUCCEEDED\"}            | missing attempt",
        "retryable text  | {\"executionId\":\"e\",\"attempt\":1,\"status\":\"FAILED\",\"retryable\":\"no\"} | retryable must be true or false",
    })
    void shouldRejectABadReportAndKeepProcessing(String name, String value, String reason) {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("t1", "{\"jobType\":\"a\",\"delayMs\":0}");
            ax.advanceMs(10);
            String executionId = ax.dispatches().get(0).executionId();
            ax.discardEvents();
            ax.reportBytes("t1", value.getBytes(StandardCharsets.UTF_8));
            ax.report("t1", "{\"executionId\":\"" + executionId + "\",\"attempt\":1,\"status\":\"SUCCEEDED\"}");
            List<JsonNode> events = ax.events();
            assertRejected(events.get(0), "ax.results", 0, "t1", reason);
            assertThat(events.get(1).get("to").asText()).isEqualTo("SUCCESS");
        }
    }
}
