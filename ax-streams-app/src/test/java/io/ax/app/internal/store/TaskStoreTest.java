package io.ax.app.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.ax.schema.AtTrigger;
import io.ax.schema.ScheduleRequest;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;
import java.nio.ByteBuffer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;

/** The task store keeps the tasks it put in flight decoded, handing each to the next read of it once, and no other. */
class TaskStoreTest {
    /** The project's own counting layer over Kafka Streams' in-memory store, as {@link CountingStoreSupplier} builds it. */
    private final CountingKeyValueStore counted = new CountingKeyValueStore(Stores.inMemoryKeyValueStore("tasks").get());
    private final KeyValueStore<String, StoredTask> store = store(counted);

    private static KeyValueStore<String, StoredTask> store(KeyValueStore<Bytes, byte[]> bytes) {
        KeyValueBytesStoreSupplier supplier = new KeyValueBytesStoreSupplier() {
            @Override
            public String name() {
                return bytes.name();
            }

            @Override
            public KeyValueStore<Bytes, byte[]> get() {
                return bytes;
            }

            @Override
            public String metricsScope() {
                return "in-memory";
            }
        };
        KeyValueStore<String, StoredTask> store = Stores.keyValueStoreBuilder(supplier, Serdes.String(), AxStores.STORED_TASK_SERDE)
                .withLoggingDisabled().withCachingDisabled().build();
        store.init(new MockProcessorContext<>().getStateStoreContext(), store);
        return store;
    }

    /** Point reads that reached the store beneath. */
    private long storeReads() {
        return counted.ops().get(StoreOps.Op.GET);
    }

    private static StoredTask task(String taskId, int payloadBytes) {
        ScheduleRequest request = ScheduleRequest.newBuilder().setJobType("email").setTrigger(new AtTrigger(2_000L))
                .setPayload(ByteBuffer.wrap(new byte[payloadBytes])).build();
        return StoredTask.newBuilder().setTaskId(taskId).setIncarnation(1).setRequest(request).setAcceptedAtMs(1)
                .setNextDueAtMs(2_000L).build();
    }

    private static StoredTask inState(StoredTask task, TaskState state) {
        task.setNextDueAtMs(null);
        task.setExecution(StoredExecution.newBuilder().setExecutionId("exec-" + task.getTaskId()).setAttempt(1)
                .setState(state).setDueAtMs(2_000L).setFiredAtMs(2_001L).setLastSignMs(2_001L).build());
        return task;
    }

    @Test
    void aTaskPutInFlightIsHandedToItsNextReadWithoutReadingTheStore() {
        TaskStore tasks = new TaskStore(store);
        StoredTask fired = inState(task("a", 10), TaskState.TRIGGERED);
        tasks.put(fired);

        assertThat(tasks.get("a")).isSameAs(fired);
        assertThat(storeReads()).isEqualTo(0);
        assertThat(store.get("a")).as("the store was written at once").isEqualTo(fired);
    }

    @Test
    void theReadTakesTheKeptTask_soAChangeTheCallerDoesNotPutBackIsNeverSeen() {
        TaskStore tasks = new TaskStore(store);
        tasks.put(inState(task("a", 10), TaskState.RUNNING));
        StoredTask taken = tasks.get("a");
        taken.getExecution().setState(TaskState.SUCCESS); // changed in place, then dropped (a decision that saved nothing)

        StoredTask again = tasks.get("a");
        assertThat(again).isNotSameAs(taken);
        assertThat(again.getExecution().getState()).isEqualTo(TaskState.RUNNING);
        assertThat(storeReads()).isEqualTo(1);
    }

    @Test
    void tasksNotInFlightAreNotKept() {
        TaskStore tasks = new TaskStore(store);
        StoredTask pending = task("p", 10);
        tasks.put(pending);
        StoredTask finished = inState(task("f", 10), TaskState.SUCCESS);
        tasks.put(finished);

        assertThat(tasks.keptCount()).isZero();
        assertThat(tasks.get("p")).isNotSameAs(pending).isEqualTo(pending);
        assertThat(tasks.get("f")).isNotSameAs(finished).isEqualTo(finished);
        assertThat(storeReads()).isEqualTo(2);
    }

    @Test
    void aTaskThatLeavesFlightOrIsRemovedIsDropped() {
        TaskStore tasks = new TaskStore(store);
        StoredTask a = inState(task("a", 10), TaskState.RUNNING);
        tasks.put(a);
        StoredTask done = inState(task("a", 10), TaskState.SUCCESS);
        tasks.put(done);
        assertThat(tasks.keptCount()).isZero();
        assertThat(tasks.get("a")).isEqualTo(done);

        tasks.put(inState(task("b", 10), TaskState.TRIGGERED));
        tasks.remove("b");
        assertThat(tasks.keptCount()).isZero();
        assertThat(tasks.get("b")).isNull();
    }

    @Test
    void keptTasksAreBoundedInNumber_aTaskPutInFlightReplacesTheTaskItsSlotHeld() {
        TaskStore tasks = new TaskStore(store);
        for (int i = 0; i < 4 * TaskStore.SLOTS; i++) {
            tasks.put(inState(task("t" + i, 10), TaskState.TRIGGERED));
        }
        assertThat(tasks.keptCount()).isLessThanOrEqualTo(TaskStore.SLOTS).isGreaterThan(TaskStore.SLOTS / 2);

        StoredTask last = inState(task("last", 10), TaskState.RUNNING);
        tasks.put(last);
        assertThat(tasks.get("last")).as("the task put last is kept").isSameAs(last);
        long before = storeReads();
        int fromMemory = 0;
        for (int i = 0; i < 4 * TaskStore.SLOTS; i++) {
            StoredTask read = tasks.get("t" + i);
            assertThat(read.getTaskId()).isEqualTo("t" + i);
            fromMemory += storeReads() == before ? 1 : 0;
            before = storeReads();
        }
        assertThat(fromMemory).as("each slot hands out the task put last in it, once").isLessThanOrEqualTo(TaskStore.SLOTS);
        assertThat(tasks.keptCount()).isZero();
    }

    @Test
    void keptTasksAreBoundedInBytes_aTaskHeavierThanTheBoundIsNotKept() {
        TaskStore tasks = new TaskStore(store);
        int payload = 256 * 1024; // the largest payload the validator accepts by default
        long weight = TaskStore.weight(inState(task("w", payload), TaskState.TRIGGERED));
        for (int i = 0; i < 100; i++) {
            tasks.put(inState(task("big" + i, payload), TaskState.TRIGGERED));
        }
        assertThat(tasks.keptCount()).as("no more than the bound holds").isEqualTo((int) (TaskStore.KEPT_BYTES / weight));
        for (int i = 0; i < 100; i++) {
            tasks.get("big" + i);
        }
        assertThat(tasks.keptCount()).isZero();
        assertThat(storeReads()).as("the others were read from the store").isEqualTo(100 - TaskStore.KEPT_BYTES / weight);

        tasks.put(inState(task("huge", (int) TaskStore.KEPT_BYTES), TaskState.TRIGGERED));
        assertThat(tasks.keptCount()).isZero();
    }
}
