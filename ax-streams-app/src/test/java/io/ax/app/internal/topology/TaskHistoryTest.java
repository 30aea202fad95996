package io.ax.app.internal.topology;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.ax.app.config.AxConfig;
import io.ax.app.internal.store.HistoryEntry;
import io.ax.app.internal.topology.SchedulerHarness.Dispatched;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.utils.Bytes;
import org.junit.jupiter.api.Test;

/**
 * Each task's history of state changes ({@code TaskHistory}, in the task record): the last {@code ax.history.max.events}
 * changes, as written to {@code ax.state}, oldest first, with the reporting worker; its executions findable by id
 * exactly while the history holds one of their changes (or it is the latest); gone with the task.
 */
class TaskHistoryTest {
    private static final String EVERY_SECOND = "{\"jobType\":\"sync\",\"everyMs\":1000}";

    private static String report(Dispatched d, String status, String extra) {
        return "{\"executionId\":\"" + d.executionId() + "\",\"attempt\":" + d.task().getAttempt() + ",\"status\":\""
                + status + "\"" + extra + "}";
    }

    private static String line(JsonNode event) {
        return event.path("from").asText("-") + ">" + event.get("to").asText() + " " + event.path("executionId").asText("-")
                + " " + event.path("attempt").asText("-");
    }

    private static String line(HistoryEntry entry) {
        return (entry.from() == null ? "-" : entry.from()) + ">" + entry.to() + " "
                + (entry.executionId() == null ? "-" : entry.executionId()) + " " + (entry.attempt() == null ? "-" : entry.attempt());
    }

    /** The execution keys of the index store ('x' executionId): each findable execution. */
    private static Set<String> executionKeys(SchedulerHarness ax) {
        Set<String> keys = new TreeSet<>();
        for (Map.Entry<Bytes, byte[]> kv : ax.indexContents().entrySet()) {
            byte[] key = kv.getKey().get();
            if (key[0] == 'x') {
                keys.add(new String(key, 1, key.length - 1, StandardCharsets.UTF_8));
            }
        }
        return keys;
    }

    private static long keysIn(SchedulerHarness ax, char space) {
        return ax.indexContents().keySet().stream().filter(key -> key.get()[0] == space).count();
    }

    /** Runs one occurrence of a periodic task to SUCCESS: TRIGGERED (and the next PENDING), RUNNING, SUCCESS. */
    private static Dispatched runOnce(SchedulerHarness ax, List<JsonNode> events) {
        ax.advanceMs(1000);
        Dispatched d = ax.dispatches().get(0);
        ax.report("p1", report(d, "STARTED", ",\"workerId\":\"w-" + d.executionId().substring(0, 4) + "\""));
        ax.report("p1", report(d, "SUCCEEDED", ""));
        events.addAll(ax.events());
        return d;
    }

    @Test
    void shouldKeepOnlyTheLastNStateChangesOldestFirst() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir(), Map.of(AxConfig.HISTORY_MAX_EVENTS_CONFIG, 7))) {
            List<JsonNode> events = new ArrayList<>();
            ax.request("p1", EVERY_SECOND);
            events.addAll(ax.events());
            assertThat(ax.history("p1")).extracting(TaskHistoryTest::line).containsExactly(line(events.get(0)));
            for (int occurrence = 0; occurrence < 6; occurrence++) {
                runOnce(ax, events);
                List<String> written = events.stream().map(TaskHistoryTest::line).toList();
                assertThat(ax.history("p1")).extracting(TaskHistoryTest::line)
                        .as("the last 7 of what ax.state carries, in its order")
                        .containsExactlyElementsOf(written.subList(Math.max(0, written.size() - 7), written.size()));
                assertThat(ax.storedTask("p1").getHistory().get(0))
                        .as("the oldest entry kept names its execution and previous state, though the entries before it are gone")
                        .satisfies(oldest -> assertThat(oldest.getExecutionId()).isNotEmpty())
                        .satisfies(oldest -> assertThat(oldest.getFrom()).isNotEqualTo(""));
            }
            assertThat(events).hasSizeGreaterThan(7 * 2);
            assertThat(ax.storedTask("p1").getHistory()).as("7 entries in the task record").hasSize(7);
            long reportedAtMs = ax.nowMs(); // reading the index lets a wheel tick pass
            assertThat(keysIn(ax, 'h') + keysIn(ax, 'r') + keysIn(ax, 'y')).as("no history keys in the index").isZero();
            HistoryEntry last = ax.history("p1").get(6);
            JsonNode lastEvent = events.get(events.size() - 1);
            assertThat(last.to().name()).isEqualTo("SUCCESS");
            assertThat(last.atMs()).isEqualTo(reportedAtMs);
            assertThat(last.dueAtMs()).isEqualTo(lastEvent.has("dueAt") ? java.time.Instant.parse(lastEvent.get("dueAt").asText()).toEpochMilli() : null);
            assertThat(last.workerId()).as("the worker that reported STARTED").startsWith("w-");
        }
    }

    @Test
    void shouldStoreNoExecutionIdOrPreviousStateTheEntryBeforeAlreadySays() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("t1", "{\"jobType\":\"email\",\"delayMs\":1000}");
            ax.advanceMs(1000);
            Dispatched d = ax.dispatches().get(0);
            ax.report("t1", report(d, "STARTED", ",\"workerId\":\"w-1\""));
            ax.report("t1", report(d, "SUCCEEDED", ""));

            assertThat(ax.history("t1")).extracting(TaskHistoryTest::line).containsExactly(
                    "->PENDING " + d.executionId() + " 1", "PENDING>TRIGGERED " + d.executionId() + " 1",
                    "TRIGGERED>RUNNING " + d.executionId() + " 1", "RUNNING>SUCCESS " + d.executionId() + " 1");
            assertThat(ax.storedTask("t1").getHistory()).extracting(entry -> entry.getExecutionId())
                    .as("stored: the id once, then 'the entry before's' (36 bytes fewer an entry, in each of the task's four saves)")
                    .containsExactly(d.executionId(), "", "", "");
            assertThat(ax.storedTask("t1").getHistory()).extracting(entry -> entry.getFrom())
                    .as("stored: no previous state, then 'the state the entry before went to'")
                    .containsExactly(null, "", "", "");
            assertThat(executionKeys(ax)).as("found by its execution").containsExactly(d.executionId());
        }
    }

    @Test
    void shouldKeepAFailedAttemptsErrorAndWorkerBoundedInLength() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("t1", "{\"jobType\":\"email\",\"delayMs\":0,\"maxRetries\":1,\"backoffMs\":1000,\"jitter\":false}");
            ax.advanceMs(10);
            Dispatched d = ax.dispatches().get(0);
            ax.report("t1", report(d, "STARTED", ",\"workerId\":\"w-1\""));
            ax.report("t1", report(d, "FAILED", ",\"retryable\":true,\"message\":\"smtp down\",\"workerId\":\"w-2\""));
            ax.advanceMs(1000);
            Dispatched retry = ax.dispatches().get(0);
            String huge = "x".repeat(4000);
            ax.report("t1", report(retry, "FAILED", ",\"retryable\":false,\"message\":\"" + huge + "\""));

            List<HistoryEntry> history = ax.history("t1");
            assertThat(history).extracting(TaskHistoryTest::line).containsExactly(
                    "->PENDING " + d.executionId() + " 1",
                    "PENDING>TRIGGERED " + d.executionId() + " 1",
                    "TRIGGERED>RUNNING " + d.executionId() + " 1",
                    "RUNNING>RETRY_WAITING " + d.executionId() + " 1",
                    "RETRY_WAITING>TRIGGERED " + d.executionId() + " 2",
                    "TRIGGERED>FAILED " + d.executionId() + " 2");
            assertThat(history.get(1).workerId()).as("dispatched, nobody reported yet").isNull();
            assertThat(history.get(2).workerId()).isEqualTo("w-1");
            assertThat(history.get(3).workerId()).isEqualTo("w-2");
            assertThat(history.get(3).reason()).contains("smtp down");
            assertThat(history.get(4).workerId()).as("attempt 2 has its own worker").isNull();
            assertThat(history.get(5).reason()).startsWith("non-retryable failure: xxx").hasSizeLessThanOrEqualTo(io.ax.app.internal.store.TaskHistory.MAX_REASON_CHARS);
        }
    }

    @Test
    void shouldFindAnExecutionByIdExactlyWhileTheHistoryHoldsOneOfItsChangesOrItIsTheLatest() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir(), Map.of(AxConfig.HISTORY_MAX_EVENTS_CONFIG, 5))) {
            List<JsonNode> events = new ArrayList<>();
            ax.request("p1", EVERY_SECOND);
            List<String> executions = new ArrayList<>();
            for (int occurrence = 0; occurrence < 5; occurrence++) {
                executions.add(runOnce(ax, events).executionId());
                Set<String> held = new TreeSet<>();
                ax.history("p1").forEach(entry -> held.add(entry.executionId()));
                held.add(ax.storedTask("p1").getExecution().getExecutionId());
                assertThat(executionKeys(ax)).as("an execution key for each execution in the history, and the latest, no other")
                        .isEqualTo(held);
                for (String executionId : executions) {
                    assertThat(ax.taskOfExecutionInHistory(executionId)).isEqualTo(held.contains(executionId) ? "p1" : null);
                }
            }
            assertThat(ax.taskOfExecutionInHistory(executions.get(0))).as("left the history long ago").isNull();
            assertThat(ax.taskOfExecutionInHistory(executions.get(4))).isEqualTo("p1");
        }
    }

    @Test
    void shouldDeleteTheHistoryAndItsExecutionKeysWithTheTask() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir(), Map.of(AxConfig.RETENTION_MS_CONFIG, 1000))) {
            ax.request("t1", "{\"jobType\":\"email\",\"delayMs\":0}");
            ax.request("t2", "{\"jobType\":\"email\",\"delayMs\":60000}");
            ax.advanceMs(10);
            Dispatched d = ax.dispatches().get(0);
            ax.report("t1", report(d, "SUCCEEDED", ""));
            assertThat(ax.history("t1")).hasSize(3);
            assertThat(ax.taskOfExecutionInHistory(d.executionId())).isEqualTo("t1");
            ax.advanceMs(1000);
            assertThat(ax.storedTask("t1")).as("purged").isNull();
            assertThat(ax.history("t1")).isEmpty();
            assertThat(ax.taskOfExecutionInHistory(d.executionId())).isNull();
            assertThat(executionKeys(ax)).as("t2's pending execution only").containsExactly(ax.history("t2").get(0).executionId());
            assertThat(ax.storedTask("t2").getHistory()).as("t2's PENDING only").hasSize(1);
            assertThat(ax.history("t2")).extracting(TaskHistoryTest::line).singleElement().asString().startsWith("->PENDING");
        }
    }

    @Test
    void shouldNotKeepRejectedOrIgnoredInput() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("t1", "{\"jobType\":\"email\",\"delayMs\":60000}");
            ax.request("t1", "{\"jobType\":\"email\",\"delayMs\":60000}");
            ax.request("t2", "{\"jobType\":\"email\",\"delayMs\":-1}");
            ax.request("t3", "{\"cancel\":true}");
            assertThat(ax.transitions()).containsExactly("PENDING", "IGNORED", "REJECTED", "IGNORED");
            assertThat(ax.history("t1")).extracting(e -> e.to().name()).containsExactly("PENDING");
            assertThat(ax.storedTask("t2")).as("never stored").isNull();
            assertThat(executionKeys(ax)).as("t1's pending execution only").hasSize(1);
        }
    }
}
