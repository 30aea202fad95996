package io.ax.worker.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ax.schema.DispatchTask;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LanesTest {
    private final Clock clock = Clock.systemUTC();
    private final ExecutorService threads = Executors.newFixedThreadPool(1);
    private final List<String> started = new CopyOnWriteArrayList<>();
    private final List<Long> startedAtMs = new CopyOnWriteArrayList<>();
    private final Lanes lanes = new Lanes(Map.of("work", 1), 100, threads, clock, execution -> {
        started.add(execution.taskId());
        startedAtMs.add(clock.millis());
    });

    @AfterEach
    void close() {
        lanes.close();
        threads.shutdownNow();
    }

    @Test
    void shouldHoldAnExecutionDispatchedAheadWithoutTakingItsLanesOnlySlot() {
        long dueMs = clock.millis() + 700;
        lanes.submit(execution("ahead", Instant.ofEpochMilli(dueMs)));
        lanes.submit(execution("due-now", clock.instant()));

        await().atMost(Duration.ofSeconds(5)).until(() -> started.size() == 2);
        assertThat(started).as("the due one does not wait behind the held one").containsExactly("due-now", "ahead");
        assertThat(startedAtMs.get(0)).isLessThan(dueMs);
        assertThat(startedAtMs.get(1)).as("queued at its due time").isGreaterThanOrEqualTo(dueMs - 1);
        assertThat(lanes.notDue()).isZero();
    }

    @Test
    void shouldDropHeldExecutionsLikeWaitingOnes() {
        Execution held = execution("ahead", clock.instant().plusSeconds(60));
        lanes.submit(held);
        assertThat(lanes.notDue()).isEqualTo(1);

        assertThat(lanes.dropWaiting(e -> true)).containsExactly(held);
        assertThat(lanes.notDue()).isZero();
        lanes.release(held);
        assertThat(started).as("a dropped execution never runs here").isEmpty();
    }

    @Test
    void shouldQueueAHeldExecutionAtOnceWhenAskedSoItsCancelIsAnsweredBeforeItsDueTime() {
        Execution held = execution("ahead", clock.instant().plusSeconds(60));
        lanes.submit(held);

        lanes.release(held);

        await().atMost(Duration.ofSeconds(5)).until(() -> started.equals(List.of("ahead")));
        assertThat(lanes.notDue()).isZero();
    }

    private static Execution execution(String taskId, Instant dueAt) {
        DispatchTask task = Dispatches.task(taskId, "work", dueAt);
        return new Execution(Dispatches.record(task), task);
    }
}
