package io.ax.app.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.ax.schema.AtTrigger;
import io.ax.schema.ScheduleRequest;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;

/**
 * The index is derived from the task store and rebuilt after every assignment: whatever an earlier assignment left is
 * deleted, every task is indexed in batches, and decisions applied meanwhile leave it as exact as saves alone would.
 */
class TaskIndexRebuildTest {
    private final MockProcessorContext<Object, Object> context = new MockProcessorContext<>();
    private int stores;

    private <K, V> KeyValueStore<K, V> store(org.apache.kafka.common.serialization.Serde<K> keys,
                                             org.apache.kafka.common.serialization.Serde<V> values) {
        KeyValueStore<K, V> store = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore("s" + stores++), keys, values)
                .withLoggingDisabled().build();
        store.init(context.getStateStoreContext(), store);
        return store;
    }

    private KeyValueStore<String, StoredTask> taskStore() {
        return store(Serdes.String(), AxStores.STORED_TASK_SERDE);
    }

    private KeyValueStore<Bytes, byte[]> indexStore() {
        return store(Serdes.Bytes(), Serdes.ByteArray());
    }

    private static StoredTask task(String taskId, String jobType, String owner) {
        ScheduleRequest request = ScheduleRequest.newBuilder().setJobType(jobType).setOwner(owner)
                .setTrigger(new AtTrigger(2_000_000_000_000L)).build();
        return StoredTask.newBuilder().setTaskId(taskId).setIncarnation(1).setRequest(request).setAcceptedAtMs(1)
                .setNextDueAtMs(2_000_000_000_000L).build();
    }

    private static StoredTask fired(StoredTask task) {
        StoredTask copy = StoredTask.newBuilder(task).setNextDueAtMs(null).build();
        copy.setExecution(StoredExecution.newBuilder().setExecutionId("exec-" + task.getTaskId()).setAttempt(1)
                .setState(TaskState.TRIGGERED).setDueAtMs(1).setFiredAtMs(1).setLastSignMs(1).build());
        return copy;
    }

    private static List<String> contents(KeyValueStore<Bytes, byte[]> store) {
        List<String> out = new ArrayList<>();
        try (KeyValueIterator<Bytes, byte[]> all = store.all()) {
            all.forEachRemaining(kv -> out.add(new String(kv.key.get(), StandardCharsets.ISO_8859_1) + "=" + Arrays.toString(kv.value)));
        }
        return out;
    }

    /** What saves alone give: a complete index (rebuilt over no task) that saw each task saved once. */
    private List<String> savedOnce(KeyValueStore<String, StoredTask> tasks) {
        KeyValueStore<Bytes, byte[]> fresh = indexStore();
        TaskIndex index = new TaskIndex(fresh);
        assertThat(index.rebuildStep(taskStore(), 10)).isTrue();
        try (KeyValueIterator<String, StoredTask> all = tasks.all()) {
            all.forEachRemaining(kv -> index.save(null, List.of(), kv.value));
        }
        index.flush();
        return contents(fresh);
    }

    @Test
    void shouldDeleteWhatAnEarlierAssignmentLeftAndIndexEveryTaskInBatches() {
        KeyValueStore<String, StoredTask> tasks = taskStore();
        for (int i = 0; i < 7; i++) {
            StoredTask task = i == 3 ? fired(task("t" + i, "j1", "o")) : task("t" + i, "j" + (i % 2), i % 2 == 0 ? "o" : null);
            tasks.put(task.getTaskId(), task);
        }
        KeyValueStore<Bytes, byte[]> rebuilt = indexStore();
        // Left by an earlier assignment on this instance: a task long gone, a stale state key, a wrong count.
        rebuilt.put(TaskIndex.valueKey(TaskIndex.BY_STATE, "RUNNING", "gone"), new byte[0]);
        rebuilt.put(TaskIndex.valueKey(TaskIndex.BY_STATE, "SUCCESS", "t1"), new byte[0]);
        rebuilt.put(TaskIndex.countKey(TaskIndex.BY_STATE, "PENDING"), new byte[] {0, 0, 0, 0, 0, 0, 0, 99});
        rebuilt.put(TaskIndex.executionKey("old-exec"), "gone".getBytes(StandardCharsets.UTF_8));

        TaskIndex index = new TaskIndex(rebuilt);
        int steps = 1;
        while (!index.rebuildStep(tasks, 2)) {
            assertThat(index.complete()).isFalse();
            steps++;
        }
        assertThat(steps).as("batches of 2: 4 stale keys, then 7 tasks").isGreaterThanOrEqualTo(5);
        assertThat(index.complete()).isTrue();
        assertThat(contents(rebuilt)).isEqualTo(savedOnce(tasks)).isNotEmpty();
        assertThat(TaskIndex.taskOfExecution(rebuilt, "old-exec")).isNull();
        assertThat(TaskIndex.taskOfExecution(rebuilt, "exec-t3")).isEqualTo("t3");
        assertThat(index.rebuildStep(tasks, 2)).as("done: costs nothing more").isTrue();
    }

    @Test
    void shouldStayExactWhenDecisionsAreAppliedWhileItIsRebuilt() {
        KeyValueStore<String, StoredTask> tasks = taskStore();
        for (int i = 0; i < 6; i++) {
            StoredTask task = task("t" + i, "j", null);
            tasks.put(task.getTaskId(), task);
        }
        KeyValueStore<Bytes, byte[]> rebuilt = indexStore();
        TaskIndex index = new TaskIndex(rebuilt);
        assertThat(index.rebuildStep(tasks, 2)).isFalse(); // wiped (nothing), then t0 and t1 indexed
        // A decision on a task the rebuild passed (t0) and on one it has not reached (t4), as ApplyDecisions applies them.
        for (String taskId : List.of("t0", "t4")) {
            StoredTask before = tasks.get(taskId);
            StoredTask after = fired(before);
            tasks.put(taskId, after);
            index.save(IndexEntry.of(before), before.getHistory(), after);
        }
        StoredTask gone = tasks.get("t1");
        tasks.delete("t1");
        index.remove(IndexEntry.of(gone), gone.getHistory(), "t1");
        index.flush();
        while (!index.rebuildStep(tasks, 2)) {
            assertThat(index.complete()).isFalse();
        }
        assertThat(contents(rebuilt)).isEqualTo(savedOnce(tasks));
        assertThat(TaskIndex.taskOfExecution(rebuilt, "exec-t4")).isEqualTo("t4");
        assertThat(TaskIndex.taskOfExecution(rebuilt, "exec-t0")).isEqualTo("t0");
        assertThat(contents(rebuilt)).as("nothing of the deleted t1").noneMatch(key -> key.contains("t1"));
    }

    /**
     * Decisions in any order with flushes at any point leave the index exactly as a fresh one over the same tasks: keys
     * added and removed between two flushes are never written (TRIGGERED, RUNNING and the in-flight key of an attempt
     * that ends within one tick), and a key the store holds is still deleted when it is re-added and removed again, or
     * rewritten in place (an in-flight key whose detail changed under the same fire time).
     */
    @Test
    void shouldEqualAFreshIndexWhateverTheFlushesBetweenDecisions() {
        java.util.Random random = new java.util.Random(25);
        KeyValueStore<String, StoredTask> tasks = taskStore();
        KeyValueStore<Bytes, byte[]> kept = indexStore();
        TaskIndex index = new TaskIndex(kept);
        assertThat(index.rebuildStep(tasks, 10)).isTrue();
        int executions = 0;
        int flushes = 0;
        for (int step = 0; step < 20_000; step++) {
            String taskId = "t" + random.nextInt(6);
            StoredTask before = tasks.get(taskId);
            if (before == null) {
                StoredTask created = task(taskId, "j" + random.nextInt(2), random.nextBoolean() ? null : "o" + random.nextInt(2));
                tasks.put(taskId, created);
                index.save(null, List.of(), created);
            } else if (random.nextInt(12) == 0) {
                tasks.delete(taskId);
                index.remove(IndexEntry.of(before), before.getHistory(), taskId);
            } else {
                StoredTask after = StoredTask.newBuilder(before).build();
                StoredExecution execution = after.getExecution();
                switch (random.nextInt(5)) {
                    case 0 -> { // a new attempt, sometimes under a fire time an earlier one had
                        String executionId = "exec-" + executions++;
                        after.setNextDueAtMs(random.nextBoolean() ? null : 3_000_000_000_000L);
                        after.setExecution(StoredExecution.newBuilder().setExecutionId(executionId).setAttempt(1)
                                .setState(TaskState.TRIGGERED).setDueAtMs(1).setFiredAtMs(100 * (1 + random.nextInt(2)))
                                .setLastSignMs(1).build());
                        List<io.ax.schema.StoredHistoryEntry> history = new ArrayList<>(after.getHistory());
                        history.add(io.ax.schema.StoredHistoryEntry.newBuilder().setTo("TRIGGERED").setAtMs(1)
                                .setExecutionId(executionId).build());
                        after.setHistory(history.subList(Math.max(0, history.size() - 3), history.size()));
                    }
                    case 1 -> { // started, or ended
                        if (execution != null) {
                            TaskState next = execution.getState() == TaskState.TRIGGERED ? TaskState.RUNNING
                                    : random.nextBoolean() ? TaskState.SUCCESS : TaskState.FAILED;
                            after.setExecution(StoredExecution.newBuilder(execution).setState(next).build());
                            after.setNextDueAtMs(null);
                        }
                    }
                    case 2 -> after.setRequest(ScheduleRequest.newBuilder(after.getRequest())
                            .setOwner(random.nextBoolean() ? null : "o" + random.nextInt(3)).build());
                    case 3 -> after.setRequest(ScheduleRequest.newBuilder(after.getRequest()).setJobType("j" + random.nextInt(3)).build());
                    default -> after.setCancelled(random.nextInt(4) == 0);
                }
                tasks.put(taskId, after);
                index.save(IndexEntry.of(before), before.getHistory(), after);
            }
            if (random.nextInt(7) == 0) {
                index.flush();
                flushes++;
                assertThat(contents(kept)).as("after step %d", step).isEqualTo(savedOnce(tasks));
            }
        }
        index.flush();
        assertThat(contents(kept)).isEqualTo(savedOnce(tasks));
        assertThat(flushes).isGreaterThan(2_000);
    }

    @Test
    void shouldFinishAtOnceOnAnEmptyTaskStore() {
        TaskIndex index = new TaskIndex(indexStore());
        assertThat(index.rebuildStep(taskStore(), 10)).isTrue();
    }
}
