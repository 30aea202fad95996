package io.ax.app.internal.topology;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.ax.app.fuzz.Quarantine;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Records of the internal flow topics and of ax.limits that are not what the scheduler writes (found by the fuzz suite):
 * skipped or refused with a reason, never quarantined (an exception out of a processor), never a leaked slot.
 */
class FlowRecordsTest {
    private static byte[] utf8(String text) {
        return text == null ? null : text.getBytes(StandardCharsets.UTF_8);
    }

    private static void pipe(SchedulerHarness ax, String topic, String key, String value) {
        ax.pipeRaw(topic, utf8(key), utf8(value), ax.nowMs());
    }

    private static void schedule(SchedulerHarness ax, String taskId) {
        ax.request(taskId, "{\"jobType\":\"charge-card\",\"delayMs\":100}");
    }

    private static void assertNothingQuarantined(SchedulerHarness ax) {
        assertThat(ax.drainRaw(Quarantine.topic(ax.topics))).as("quarantined: an exception escaped a processor").isEmpty();
    }

    @Test
    void shouldRefuseALimitsRecordWithContentAfterItsObjectOrAFieldTwiceAndKeepThePreviousLimit() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            pipe(ax, ax.topics.limits(), "type:charge-card", "{\"maxInFlight\":1}");
            pipe(ax, ax.topics.limits(), "type:charge-card", "{}garbage");
            pipe(ax, ax.topics.limits(), "type:charge-card", "{\"maxInFlight\":1,\"maxInFlight\":5}");
            assertThat(ax.metrics.limitErrors().count()).isEqualTo(2);
            schedule(ax, "c1");
            schedule(ax, "c2");
            ax.advanceMs(100);
            ax.advanceMs(20);
            assertThat(ax.dispatches()).as("maxInFlight 1 still holds").hasSize(1);
        }
    }

    @Test
    void shouldQuoteAHugeLimitsKeyShortInTheRefusalsReason() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            pipe(ax, ax.topics.limits(), "owner:" + "k".repeat(600_000), "{\"maxInFlight\":1}");
            pipe(ax, ax.topics.limits(), "k".repeat(600_000), null);
            assertThat(ax.metrics.limitErrors().count()).isEqualTo(2);
            assertThat(ax.metrics.limitErrors().last()).allSatisfy(refused ->
                    assertThat(refused.reason()).as("kept for GET /limits: quoted short").hasSizeLessThan(300).contains(" chars, sha-256 "));
        }
    }

    @Test
    void shouldSkipAFlowRecordThatIsJsonNullOrAnAcquireWithoutItsStateAndGoOnGating() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            pipe(ax, ax.topics.limits(), "type:charge-card", "{\"maxInFlight\":1}");
            pipe(ax, ax.topics.flow(), "type:charge-card", "null");
            pipe(ax, ax.topics.flow(), "type:charge-card", "{\"kind\":\"ACQUIRE\",\"taskId\":\"t\",\"executionId\":\"e1\","
                    + "\"jobType\":\"charge-card\",\"gates\":[\"type:charge-card\"]}");
            pipe(ax, ax.topics.flow(), "type:charge-card", "{\"kind\":\"ACQUIRE\",\"taskId\":\"t\",\"executionId\":\"e2\","
                    + "\"jobType\":\"charge-card\",\"state\":\"SUCCESS\",\"gates\":[\"type:charge-card\"]}");
            assertNothingQuarantined(ax);
            assertThat(ax.metrics.flowRecordsSkipped()).as("each skipped record counted (ax_flow_records_skipped)").isEqualTo(3);
            schedule(ax, "c1");
            ax.advanceMs(100);
            ax.advanceMs(20);
            assertThat(ax.dispatches()).as("the slot is still free for a real execution").hasSize(1);
        }
    }

    @Test
    void shouldNotGrantAnAcquireWithoutTaskIdSoItsSlotIsNotLeaked() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            pipe(ax, ax.topics.limits(), "type:charge-card", "{\"maxInFlight\":1}");
            pipe(ax, ax.topics.flow(), "type:charge-card", "{\"kind\":\"ACQUIRE\",\"executionId\":\"e1\",\"jobType\":\"charge-card\","
                    + "\"state\":\"PENDING\",\"gates\":[\"type:charge-card\"]}");
            assertThat(ax.drainRaw(ax.topics.flowGrants())).as("no grant to a null key").isEmpty();
            schedule(ax, "c1");
            ax.advanceMs(100);
            ax.advanceMs(20);
            assertThat(ax.dispatches()).as("the one slot was not taken by the ACQUIRE without a task").hasSize(1);
            assertNothingQuarantined(ax);
        }
    }

    @Test
    void shouldRejectAGrantThatIsJsonNullOrNamesANullGate() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            pipe(ax, ax.topics.flowGrants(), "t", "null");
            pipe(ax, ax.topics.flowGrants(), "t", "{\"executionId\":\"e\",\"attempt\":1,\"gates\":[null]}");
            assertNothingQuarantined(ax);
            List<JsonNode> events = ax.events();
            assertThat(events).extracting(e -> e.get("to").asText()).containsExactly("REJECTED", "REJECTED");
            assertThat(events).extracting(e -> e.get("source").get("topic").asText()).containsOnly(ax.topics.flowGrants());
        }
    }

    private static final String RELEASE = "{\"kind\":\"RELEASE\",\"taskId\":\"t\",\"executionId\":\"e1\",\"attempt\":1,"
            + "\"jobType\":\"charge-card\",\"gates\":[\"type:charge-card\"]}";

    @Test
    void shouldCountAndLogShortEveryFlowRecordNotProcessed() {
        LogCapture logs = LogCapture.root();
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            pipe(ax, ax.topics.flow(), null, RELEASE);
            pipe(ax, ax.topics.flow(), "", RELEASE);
            pipe(ax, ax.topics.flow(), "k".repeat(1_000_000), RELEASE);
            pipe(ax, ax.topics.flow(), "type:charge-card", RELEASE.replace("{\"kind\":\"RELEASE\",", "{\"kind\":\"RELEASE\",\"kind\":\"ACQUIRE\","));
            pipe(ax, ax.topics.flow(), "type:charge-card", RELEASE + "{}");
            pipe(ax, ax.topics.flow(), "type:other", RELEASE);
            pipe(ax, ax.topics.flow(), "type:charge-card", "[".repeat(100) + "]".repeat(100));
            assertNothingQuarantined(ax);
            assertThat(ax.metrics.flowRecordsSkipped()).as("null, empty and 1 MB keys, a field twice, content after the object,"
                    + " a key naming another gate, too deep: each counted").isEqualTo(7);
            pipe(ax, ax.topics.flow(), "type:charge-card", RELEASE);
            assertThat(ax.metrics.flowRecordsSkipped()).as("a well-formed RELEASE is processed").isEqualTo(7);
        } finally {
            logs.stop();
        }
        List<String> skipped = logs.lines().stream().filter(line -> line.contains("Skipped flow record")).toList();
        assertThat(skipped).hasSize(7).allSatisfy(line -> assertThat(line).as("topic-partition@offset").contains(" at ax.flow-0@"));
        assertThat(logs.longest()).as("the 1 MB key quoted short in the line and the MDC").isLessThan(2_000);
    }

    @Test
    void shouldSkipAFlowRecordOnAnotherPartitionThanItsGateKeys() {
        String elsewhere = java.util.stream.IntStream.range(0, 100).mapToObj(i -> "type:job-" + i)
                .filter(key -> KeyPartition.of(key, 4) != 0).findFirst().orElseThrow();
        String here = java.util.stream.IntStream.range(0, 100).mapToObj(i -> "type:job-" + i)
                .filter(key -> KeyPartition.of(key, 4) == 0).findFirst().orElseThrow();
        try (SchedulerHarness ax = SchedulerHarness.withFlowPartitions(SchedulerHarness.tempDir(), 4)) {
            pipe(ax, ax.topics.flow(), elsewhere, RELEASE.replace("type:charge-card", elsewhere));
            assertThat(ax.metrics.flowRecordsSkipped()).as("on partition 0, its key's is another: a gate split in two").isEqualTo(1);
            pipe(ax, ax.topics.flow(), here, RELEASE.replace("type:charge-card", here));
            assertThat(ax.metrics.flowRecordsSkipped()).as("on its key's partition: processed").isEqualTo(1);
            assertNothingQuarantined(ax);
        }
    }
}
