package io.ax.worker.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ax.schema.DispatchTask;
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
    private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");
    private static final Duration DEADLINE = Duration.ofSeconds(5);

    private final SettableClock clock = new SettableClock(NOW);
    private final ExecutorService threads = Executors.newFixedThreadPool(1);
    private final List<String> started = new CopyOnWriteArrayList<>();
    private final List<Instant> startedAt = new CopyOnWriteArrayList<>();
    private final Lanes lanes = new Lanes(Map.of("work", 1), 100, threads, clock, execution -> {
        started.add(execution.taskId());
        startedAt.add(clock.instant());
    });

    @AfterEach
    void close() {
        lanes.close();
        threads.shutdownNow();
    }

    @Test
    void shouldHoldAnExecutionDispatchedAheadWithoutTakingItsLanesOnlySlot() {
        Instant due = NOW.plusMillis(700);
        lanes.submit(execution("ahead", due));
        lanes.submit(execution("due-now", NOW));
        await().atMost(DEADLINE).until(() -> started.equals(List.of("due-now")));

        clock.advance(Duration.ofMillis(699));
        lanes.releaseDue();
        assertThat(lanes.held()).as("held until its due time").isEqualTo(1);
        assertThat(lanes.nextReleaseAtMs()).isEqualTo(due.toEpochMilli());

        clock.advance(Duration.ofMillis(1));
        lanes.releaseDue();
        assertThat(lanes.held()).isZero();
        await().atMost(DEADLINE).until(() -> started.size() == 2);
        assertThat(started).as("the due one does not wait behind the held one").containsExactly("due-now", "ahead");
        assertThat(startedAt).containsExactly(NOW, due);
        assertThat(lanes.nextReleaseAtMs()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void shouldHoldAnExecutionToRunAgainUntilItsNotBeforeTime() {
        lanes.submit(execution("again", NOW), NOW.plusMillis(200).toEpochMilli());

        lanes.releaseDue();
        assertThat(lanes.held()).isEqualTo(1);
        clock.advance(Duration.ofMillis(200));
        lanes.releaseDue();

        await().atMost(DEADLINE).until(() -> started.equals(List.of("again")));
        assertThat(startedAt).containsExactly(NOW.plusMillis(200));
    }

    @Test
    void shouldDropHeldExecutionsLikeWaitingOnes() {
        Execution held = execution("ahead", NOW.plusSeconds(60));
        lanes.submit(held);
        assertThat(lanes.held()).isEqualTo(1);

        assertThat(lanes.dropWaiting(e -> true)).containsExactly(held);
        assertThat(lanes.held()).isZero();
        lanes.release(held);
        clock.advance(Duration.ofSeconds(60));
        lanes.releaseDue();
        lanes.submit(execution("after", NOW));

        await().atMost(DEADLINE).until(() -> started.contains("after"));
        assertThat(started).as("a dropped execution never runs here; the lane ran what came after it").containsExactly("after");
    }

    @Test
    void shouldQueueAHeldExecutionAtOnceWhenAskedSoItsCancelIsAnsweredBeforeItsDueTime() {
        Execution held = execution("ahead", NOW.plusSeconds(60));
        lanes.submit(held);

        lanes.release(held);

        assertThat(lanes.held()).isZero();
        await().atMost(DEADLINE).until(() -> started.equals(List.of("ahead")));
        assertThat(startedAt).as("before its due time, by the clock").containsExactly(NOW);
    }

    private static Execution execution(String taskId, Instant dueAt) {
        DispatchTask task = Dispatches.task(taskId, "work", dueAt);
        return new Execution(Dispatches.record(task), task);
    }
}
