package io.ax.app.internal.topology;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.ax.app.internal.topology.SchedulerHarness.Dispatched;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;

/**
 * Owner live-task quotas ({@code maxLiveTasks}, topology-docs/FLOW-CONTROL.md) through the whole topology: the task
 * side, the owner's live gate on the flow topic and its answer on the grants topic.
 */
class AdmissionTest {

    private static void limit(SchedulerHarness ax, String key, String json) {
        ax.pipeRaw(ax.topics.limits(), key.getBytes(StandardCharsets.UTF_8), json == null ? null : json.getBytes(StandardCharsets.UTF_8),
                ax.nowMs());
    }

    private static void schedule(SchedulerHarness ax, String taskId, String owner) {
        ax.request(taskId, "{\"jobType\":\"email\",\"delayMs\":100" + (owner == null ? "" : ",\"owner\":\"" + owner + "\"")
                + ",\"maxRetries\":0}");
    }

    private static String report(Dispatched d, String status) {
        return "{\"executionId\":\"" + d.executionId() + "\",\"attempt\":" + d.task().getAttempt() + ",\"status\":\"" + status + "\""
                + (status.equals("FAILED") ? ",\"retryable\":false,\"message\":\"no\"" : "") + "}";
    }

    private static List<String> of(List<JsonNode> events, String taskId) {
        return events.stream().filter(e -> e.get("taskId").asText().equals(taskId))
                .map(e -> (e.hasNonNull("from") ? e.get("from").asText() : "new") + "->" + e.get("to").asText() + " "
                        + (e.hasNonNull("reason") ? e.get("reason").asText() : "")).toList();
    }

    /** The flow messages written, as "KIND gate executionId". */
    private static List<String> flow(SchedulerHarness ax) {
        return ax.drainRaw(ax.topics.flow()).stream().map(AdmissionTest::flowLine).toList();
    }

    private static String flowLine(TestRecord<byte[], byte[]> record) {
        JsonNode message;
        try {
            message = new com.fasterxml.jackson.databind.ObjectMapper().readTree(record.value());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return message.get("kind").asText() + " " + message.get("gates").get(message.get("gateIndex").asInt()).asText() + " "
                + message.get("executionId").asText();
    }

    @Test
    void shouldAdmitUnderTheQuotaAndRejectOverItWithTheQuotaInTheReason() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            limit(ax, "owner:acme", "{\"maxLiveTasks\":2}");
            schedule(ax, "a1", "acme");
            schedule(ax, "a2", "acme");
            schedule(ax, "a3", "acme");
            List<JsonNode> events = ax.events();
            assertThat(of(events, "a1")).containsExactly(
                    "new->PENDING awaiting admission: owner acme maxLiveTasks 2 (live:owner:acme); nothing is timed or dispatched until admitted",
                    "PENDING->PENDING admitted by live:owner:acme after waiting 0 ms: owner acme has 1 of 2 live tasks (maxLiveTasks)");
            assertThat(of(events, "a2")).last().asString().endsWith("owner acme has 2 of 2 live tasks (maxLiveTasks)");
            assertThat(of(events, "a3")).hasSize(2).last().asString()
                    .startsWith("new->REJECTED owner acme has 2 of 2 live tasks (maxLiveTasks): the task is rejected");
            assertThat(ax.storedTask("a3")).as("not kept").isNull();
            assertThat(ax.metrics.scrape()).contains("ax_requests_rejected_total{input=\"grant\",reason=\"over-quota\"} 1.0",
                    "ax_flow_in_flight{gate=\"live:owner:acme\"} 2.0");
            ax.advanceMs(99);
            assertThat(ax.dispatches()).as("never early").isEmpty();
            ax.advanceMs(1);
            assertThat(ax.dispatches()).extracting(Dispatched::key).containsExactlyInAnyOrder("a1", "a2");
        }
    }

    @Test
    void shouldAdmitTheNextTaskOnceAFinalStateFreedASlot() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            limit(ax, "owner:acme", "{\"maxLiveTasks\":1}");
            schedule(ax, "a1", "acme");
            schedule(ax, "a2", "acme");
            assertThat(ax.storedTask("a2")).isNull();
            ax.advanceMs(100);
            Dispatched a1 = ax.dispatches().get(0);
            ax.report("a1", report(a1, "SUCCEEDED"));
            assertThat(flow(ax)).containsExactly("ADMIT live:owner:acme a1#0", "ADMIT live:owner:acme a2#1", "RELEASE live:owner:acme a1#0");
            schedule(ax, "a2", "acme");
            assertThat(of(ax.events(), "a2")).last().asString().contains("admitted by live:owner:acme");
            ax.advanceMs(100);
            assertThat(ax.dispatches()).extracting(Dispatched::key).containsExactly("a2");
        }
    }

    @Test
    void shouldReleaseASlotExactlyOnceWhetherCancelledFinishedOrReplayed() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            limit(ax, "owner:acme", "{\"maxLiveTasks\":5}");
            schedule(ax, "c", "acme");
            schedule(ax, "f", "acme");
            ax.advanceMs(100);
            List<Dispatched> fired = ax.dispatches();
            assertThat(fired).hasSize(2);
            ax.request("c", "{\"cancel\":true}");
            ax.request("c", "{\"cancel\":true}"); // a second cancel: IGNORED, nothing released again
            Dispatched f = fired.stream().filter(d -> d.key().equals("f")).findFirst().orElseThrow();
            ax.report("f", report(f, "FAILED"));
            ax.report("f", report(f, "FAILED")); // a stale copy of the report
            ax.request("f", "{\"replay\":true}"); // a replay of the dead-lettered task runs outside the quota
            ax.advanceMs(10);
            Dispatched replayed = ax.dispatches().stream().filter(d -> d.key().equals("f")).findFirst().orElseThrow();
            ax.report("f", report(replayed, "SUCCEEDED"));
            assertThat(flow(ax)).containsExactly("ADMIT live:owner:acme c#0", "ADMIT live:owner:acme f#1",
                    "RELEASE live:owner:acme c#0", "RELEASE live:owner:acme f#1");
            assertThat(ax.metrics.scrape()).contains("ax_flow_in_flight{gate=\"live:owner:acme\"} 0.0");
        }
    }

    @Test
    void shouldReleaseTheSlotOfAPeriodicTaskWhenItsScheduleEnds() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            limit(ax, "owner:acme", "{\"maxLiveTasks\":1}");
            ax.request("p", "{\"jobType\":\"sync\",\"everyMs\":1000,\"maxOccurrences\":2,\"owner\":\"acme\"}");
            for (int i = 0; i < 2; i++) {
                ax.advanceMs(1000);
                Dispatched d = ax.dispatches().get(0);
                ax.report("p", report(d, "SUCCEEDED"));
            }
            assertThat(ax.storedTask("p").getFinishedAtMs()).isNotNull();
            assertThat(flow(ax)).containsExactly("ADMIT live:owner:acme p#0", "RELEASE live:owner:acme p#0");
            schedule(ax, "next", "acme");
            assertThat(ax.storedTask("next")).as("the slot is free again").isNotNull();
        }
    }

    @Test
    void shouldApplyTheOwnDefaultToOwnersWithoutARecordAndTheirOwnToOthers() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            limit(ax, "owner:*", "{\"maxLiveTasks\":1}");
            limit(ax, "owner:big", "{\"maxLiveTasks\":3,\"maxInFlight\":100}");
            for (int i = 0; i < 4; i++) {
                schedule(ax, "b" + i, "big");
                schedule(ax, "s" + i, "small");
            }
            List<JsonNode> events = ax.events();
            assertThat(events).filteredOn(e -> e.get("to").asText().equals("REJECTED")).extracting(e -> e.get("taskId").asText())
                    .containsExactlyInAnyOrder("b3", "s1", "s2", "s3");
            assertThat(of(events, "s1")).last().asString().contains("owner small has 1 of 1 live tasks (maxLiveTasks)");
            assertThat(of(events, "b3")).last().asString().contains("owner big has 3 of 3 live tasks (maxLiveTasks)");
        }
    }

    @Test
    void shouldApplyALimitChangedAtRunTimeKeepingTheTasksAlreadyAdmitted() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            limit(ax, "owner:acme", "{\"maxLiveTasks\":1}");
            schedule(ax, "a1", "acme");
            schedule(ax, "a2", "acme");
            assertThat(ax.storedTask("a2")).isNull();
            limit(ax, "owner:acme", "{\"maxLiveTasks\":3}");
            schedule(ax, "a2", "acme");
            schedule(ax, "a3", "acme");
            assertThat(ax.storedTask("a3").getAdmissionSinceMs()).isNull();
            limit(ax, "owner:acme", "{\"maxLiveTasks\":2}");
            schedule(ax, "a4", "acme");
            assertThat(ax.storedTask("a4")).as("3 admitted, over the lowered 2").isNull();
            assertThat(List.of("a1", "a2", "a3")).allSatisfy(id -> assertThat(ax.storedTask(id).getAdmissionGate()).isEqualTo("live:owner:acme"));
            ax.request("a1", "{\"cancel\":true}");
            schedule(ax, "a4", "acme");
            assertThat(ax.storedTask("a4")).as("still 2 of 2").isNull();
            ax.request("a2", "{\"cancel\":true}");
            schedule(ax, "a4", "acme");
            assertThat(ax.storedTask("a4")).as("below the limit again").isNotNull();
            limit(ax, "owner:acme", null);
            ax.discardEvents();
            schedule(ax, "free", "acme");
            assertThat(flow(ax)).as("no quota: no admission").noneMatch(line -> line.contains("free#"));
            assertThat(of(ax.events(), "free")).singleElement().asString().isEqualTo("new->PENDING ");
        }
    }

    @Test
    void shouldNotReAdmitAnUpdateOrReplaceOfAnAdmittedTaskEvenAtTheQuota() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            limit(ax, "owner:acme", "{\"maxLiveTasks\":1}");
            ax.request("p", "{\"jobType\":\"sync\",\"everyMs\":60000,\"owner\":\"acme\"}");
            ax.request("p", "{\"jobType\":\"sync\",\"everyMs\":30000,\"owner\":\"acme\",\"ifExists\":\"UPDATE\"}");
            ax.request("p", "{\"jobType\":\"sync\",\"everyMs\":20000,\"owner\":\"acme\",\"ifExists\":\"REPLACE\"}");
            assertThat(flow(ax)).containsExactly("ADMIT live:owner:acme p#0");
            assertThat(ax.storedTask("p").getRequest().getTrigger().toString()).contains("20000");
            List<JsonNode> events = ax.events();
            assertThat(events).noneMatch(e -> e.get("to").asText().equals("REJECTED"));
            for (int s = 0; s < 21; s++) {
                ax.advanceMs(1_000);
            }
            assertThat(ax.dispatches()).extracting(Dispatched::key).containsExactly("p");
        }
    }

    @Test
    void shouldLeaveOwnersWithoutAQuotaUnaffected() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            limit(ax, "owner:acme", "{\"maxLiveTasks\":1}");
            limit(ax, "owner:other", "{\"maxInFlight\":10}");
            schedule(ax, "o1", "other");
            schedule(ax, "n1", null);
            List<JsonNode> events = ax.events();
            assertThat(of(events, "o1")).containsExactly("new->PENDING ");
            assertThat(of(events, "n1")).containsExactly("new->PENDING ");
            assertThat(flow(ax)).as("no ADMIT: no extra hop (o1's dispatch passes its owner:other gate)")
                    .noneMatch(line -> line.startsWith("ADMIT") || line.contains("live:"));
            ax.advanceMs(100);
            assertThat(ax.dispatches()).extracting(Dispatched::key).containsExactlyInAnyOrder("o1", "n1");
        }
    }
}
