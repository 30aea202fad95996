package io.ax.app.internal.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.ax.app.config.AxConfig;
import io.ax.app.internal.store.IndexEntry;
import io.ax.app.internal.store.TaskHistory;
import io.ax.app.internal.store.TaskIndex;
import io.ax.app.internal.topology.SchedulerHarness.Dispatched;
import io.ax.schema.StoredTask;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.utils.Bytes;
import org.junit.jupiter.api.Test;

/**
 * The secondary indexes stay exact through a task's life: after every step, the index store holds exactly the keys
 * the task store's tasks call for (entry, state, jobType, owner, the executions its history names and its latest, counts), nothing stale.
 */
class TaskIndexTest {

    /** The index store as readable lines: "s FAILED t1", "x <executionId> t1", "c s PENDING 2", ... (not the entries). */
    private static TreeSet<String> actual(SchedulerHarness ax) {
        TreeSet<String> lines = new TreeSet<>();
        for (Map.Entry<Bytes, byte[]> kv : ax.indexContents().entrySet()) {
            byte[] key = kv.getKey().get();
            char space = (char) key[0];
            switch (space) {
                case 's', 'j', 'o' -> {
                    int length = ((key[1] & 0xff) << 8) | (key[2] & 0xff);
                    lines.add(space + " " + new String(key, 3, length, StandardCharsets.UTF_8) + " "
                            + new String(key, 3 + length, key.length - 3 - length, StandardCharsets.UTF_8));
                }
                case 'x' -> lines.add("x " + new String(key, 1, key.length - 1, StandardCharsets.UTF_8) + " "
                        + new String(kv.getValue(), StandardCharsets.UTF_8));
                case 'c' -> lines.add("c " + (char) key[1] + " " + TaskIndex.countedValue(kv.getKey()) + " "
                        + ByteBuffer.wrap(kv.getValue()).getLong());
                case 'f' -> lines.add("f " + ByteBuffer.wrap(key, 1, Long.BYTES).getLong() + " "
                        + new String(key, 1 + Long.BYTES, key.length - 1 - Long.BYTES, StandardCharsets.UTF_8));
                default -> lines.add("unexpected key space " + space);
            }
        }
        return lines;
    }

    /** What the index store must hold for the tasks now in the task store. */
    private static TreeSet<String> expected(SchedulerHarness ax) {
        TreeSet<String> lines = new TreeSet<>();
        Map<String, Long> byState = new TreeMap<>();
        Map<String, Long> byJobType = new TreeMap<>();
        Map<String, Long> inFlight = new TreeMap<>();
        for (StoredTask task : ax.allStoredTasks()) {
            IndexEntry entry = IndexEntry.of(task);
            String id = task.getTaskId();
            lines.add("s " + entry.state() + " " + id);
            lines.add("j " + entry.jobType() + " " + id);
            if (entry.owner() != null) {
                lines.add("o " + entry.owner() + " " + id);
            }
            if (entry.executionId() != null) {
                lines.add("x " + entry.executionId() + " " + id);
            }
            TaskHistory.executionIds(task.getHistory()).forEach(executionId -> lines.add("x " + executionId + " " + id));
            if (entry.firedAtMs() != null) {
                lines.add("f " + entry.firedAtMs() + " " + id);
                inFlight.merge(entry.state() + "/" + entry.jobType(), 1L, Long::sum);
            }
            byState.merge(entry.state().name(), 1L, Long::sum);
            byJobType.merge(entry.jobType(), 1L, Long::sum);
        }
        byState.forEach((state, n) -> lines.add("c s " + state + " " + n));
        byJobType.forEach((jobType, n) -> lines.add("c j " + jobType + " " + n));
        inFlight.forEach((stateAndJobType, n) -> lines.add("c k " + stateAndJobType + " " + n));
        return lines;
    }

    private static void assertExact(SchedulerHarness ax) {
        assertThat(actual(ax)).isEqualTo(expected(ax));
    }

    private static String report(Dispatched d, String status, String extra) {
        return "{\"executionId\":\"" + d.executionId() + "\",\"attempt\":" + d.task().getAttempt() + ",\"status\":\""
                + status + "\"" + extra + "}";
    }

    @Test
    void shouldIndexANewTaskByStateJobTypeAndOwner() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("t1", "{\"jobType\":\"email\",\"delayMs\":60000,\"owner\":\"billing\"}");
            ax.request("t2", "{\"jobType\":\"sync\",\"everyMs\":60000}");
            assertThat(actual(ax)).contains("s PENDING t1", "j email t1", "o billing t1", "s PENDING t2", "j sync t2",
                    "c s PENDING 2", "c j email 1", "c j sync 1");
            assertExact(ax);
        }
    }

    @Test
    void shouldMoveATaskBetweenStateIndexesAsItRunsRetriesAndFails() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("t1", "{\"jobType\":\"email\",\"delayMs\":0,\"maxRetries\":1,\"backoffMs\":1000,\"jitter\":false}");
            ax.advanceMs(10);
            Dispatched first = ax.dispatches().get(0);
            assertThat(actual(ax)).contains("s TRIGGERED t1", "x " + first.executionId() + " t1").doesNotContain("s PENDING t1");
            assertExact(ax);

            ax.report("t1", report(first, "STARTED", ",\"workerId\":\"w1\""));
            assertThat(actual(ax)).contains("s RUNNING t1", "c s RUNNING 1");
            assertExact(ax);

            ax.report("t1", report(first, "FAILED", ",\"message\":\"smtp down\""));
            assertThat(actual(ax)).contains("s RETRY_WAITING t1");
            assertExact(ax);

            ax.advanceMs(1000);
            Dispatched second = ax.dispatches().get(0);
            ax.report("t1", report(second, "FAILED", ",\"retryable\":false,\"message\":\"bounced\""));
            assertThat(actual(ax)).contains("s FAILED t1", "c s FAILED 1").doesNotContain("c s RETRY_WAITING 1");
            assertExact(ax);
        }
    }

    @Test
    void shouldIndexTheExecutionsAPeriodicTasksHistoryNames() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("p1", "{\"jobType\":\"sync\",\"everyMs\":1000}");
            ax.advanceMs(1000);
            Dispatched first = ax.dispatches().get(0);
            ax.report("p1", report(first, "SUCCEEDED", ""));
            ax.advanceMs(1000);
            Dispatched second = ax.dispatches().get(0);
            assertThat(second.executionId()).isNotEqualTo(first.executionId());
            assertThat(actual(ax)).contains("x " + second.executionId() + " p1", "x " + first.executionId() + " p1");
            assertExact(ax);
        }
    }

    @Test
    void shouldKeepIndexesExactWhenATaskIsCancelledReplacedAndPurged() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir(), Map.of(AxConfig.RETENTION_MS_CONFIG, 1000L))) {
            ax.request("t1", "{\"jobType\":\"email\",\"delayMs\":60000,\"owner\":\"a\"}");
            ax.request("t1", "{\"jobType\":\"report\",\"delayMs\":60000,\"owner\":\"b\",\"ifExists\":\"REPLACE\"}");
            assertThat(actual(ax)).contains("j report t1", "o b t1").doesNotContain("j email t1", "o a t1");
            assertExact(ax);

            ax.request("t1", "{\"cancel\":true}");
            assertThat(actual(ax)).contains("s CANCELLED t1");
            assertExact(ax);

            ax.advanceMs(1500);
            assertThat(ax.storedTasks()).as("purged after retention").isZero();
            assertThat(actual(ax)).as("nothing left of it in any index").isEmpty();
        }
    }

    @Test
    void shouldIndexManyTasksExactlyThroughMixedOutcomes() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            for (int i = 0; i < 30; i++) {
                ax.request("t" + i, "{\"jobType\":\"j" + (i % 3) + "\",\"delayMs\":" + (i % 2 == 0 ? 0 : 60000)
                        + ",\"owner\":\"o" + (i % 4) + "\",\"maxRetries\":0}");
            }
            ax.advanceMs(10);
            int n = 0;
            for (Dispatched d : ax.dispatches()) {
                String status = n++ % 2 == 0 ? "SUCCEEDED" : "FAILED";
                ax.report(d.key(), report(d, status, ""));
            }
            ax.request("t1", "{\"cancel\":true}");
            assertExact(ax);
            assertThat(actual(ax)).contains("c s PENDING 14", "c s CANCELLED 1", "c s SUCCESS 8", "c s FAILED 7");
        }
    }
}
