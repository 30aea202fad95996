package io.ax.worker.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ax.schema.DispatchTask;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LanesTest {
    private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");
    private static final Duration DEADLINE = Duration.ofSeconds(5);

    private final SettableClock clock = new SettableClock(NOW);
    private final ExecutorService threads = Executors.newFixedThreadPool(1);
    private final List<String> started = new CopyOnWriteArrayList<>();
    private final List<Instant> startedAt = new CopyOnWriteArrayList<>();
    private final Lanes lanes = new Lanes(Map.of("work", 1), new BacklogLimits(100, 0), threads, clock, 1_000, execution -> {
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

    @Test
    void shouldNameThePartitionsOfBackloggedLanesOnlyOnceTheirOverflowReachesItsBound() {
        CountDownLatch release = new CountDownLatch(1);
        ExecutorService blocking = Executors.newFixedThreadPool(2);
        Lanes backlogged = new Lanes(Map.of("slow", 1, "other", 1), new BacklogLimits(2, 2), blocking, clock, 1_000,
                execution -> awaitUninterruptibly(release));
        try {
            submit(backlogged, "slow", 0, 3); // 1 running, 2 waiting: backlogged, nothing beyond the limit
            submit(backlogged, "other", 2, 2); // 1 running, 1 waiting
            assertThat(backlogged.partitionsToPause()).isEmpty();
            submit(backlogged, "slow", 1, 1); // overflow 1
            assertThat(backlogged.partitionsToPause()).isEmpty();

            submit(backlogged, "slow", 0, 1); // overflow 2: the bound
            assertThat(backlogged.partitionsToPause()).as("not P2: its lane is not backlogged")
                    .containsExactlyInAnyOrder(partition(0), partition(1));

            release.countDown();
            await().atMost(DEADLINE).until(() -> backlogged.partitionsToPause().isEmpty());
        } finally {
            release.countDown();
            backlogged.close();
            blocking.shutdownNow();
        }
    }

    private int nextOffset;

    private void submit(Lanes to, String jobType, int partition, int count) {
        for (int i = 0; i < count; i++) {
            long offset = nextOffset++;
            DispatchTask task = Dispatches.task(jobType + "-" + offset, jobType, NOW);
            to.submit(new Execution(Dispatches.record(task, partition, offset), task));
        }
    }

    private static TopicPartition partition(int partition) {
        return new TopicPartition(Dispatches.TOPIC, partition);
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static Execution execution(String taskId, Instant dueAt) {
        DispatchTask task = Dispatches.task(taskId, "work", dueAt);
        return new Execution(Dispatches.record(task), task);
    }

    private static Execution execution(String taskId, int priority) {
        DispatchTask task = Dispatches.task(taskId, "work", NOW);
        task.setPriority(priority);
        return new Execution(Dispatches.record(task), task);
    }

    @Test
    void shouldStartTheHighestPriorityFirstWithAgingSoThatPriorityZeroIsNeverStarved() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        List<String> order = new CopyOnWriteArrayList<>();
        Lanes busy = new Lanes(Map.of("work", 1), new BacklogLimits(100, 0), threads, clock, 1_000, execution -> {
            order.add(execution.taskId());
            if (execution.taskId().equals("blocker")) {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        try {
            busy.submit(execution("blocker", 4));
            await().atMost(DEADLINE).until(() -> order.equals(List.of("blocker")));
            busy.submit(execution("old-p0", 0));             // rank 0
            clock.advance(Duration.ofMillis(500));
            busy.submit(execution("urgent-p9", 9));          // rank 500 - 9000
            busy.submit(execution("mid-p4", 4));             // rank 500 - 4000
            busy.submit(execution("mid-p4-later", 4));       // same rank: in the order queued
            clock.advance(Duration.ofMillis(9_000));
            busy.submit(execution("late-p9", 9));            // rank 9500 - 9000 = 500: after old-p0, aged 9.5 s
            busy.submit(execution("fresh-p0", 0));           // rank 9500
            release.countDown();
            await().atMost(DEADLINE).until(() -> order.size() == 7);
            assertThat(order).containsExactly("blocker", "urgent-p9", "mid-p4", "mid-p4-later", "old-p0", "late-p9", "fresh-p0");
        } finally {
            busy.close();
        }
    }

    @Test
    void shouldShareALaneBetweenOwnersSoTheFewOfOneDoNotWaitBehindTheManyOfAnother() {
        CountDownLatch release = new CountDownLatch(1);
        List<String> order = new CopyOnWriteArrayList<>();
        Lanes busy = new Lanes(Map.of("work", 1), new BacklogLimits(1_000, 0), threads, clock, 1_000, owner -> 1, execution -> {
            order.add(execution.taskId());
            if (execution.taskId().equals("blocker")) {
                awaitUninterruptibly(release);
            }
        });
        try {
            busy.submit(owned("blocker", "big"));
            await().atMost(DEADLINE).until(() -> order.equals(List.of("blocker")));
            for (int i = 0; i < 200; i++) {
                busy.submit(owned("big-" + i, "big"));
            }
            clock.advance(Duration.ofSeconds(30));
            busy.submit(owned("small-0", "small"));
            busy.submit(owned("small-1", "small"));
            release.countDown();
            await().atMost(DEADLINE).until(() -> order.size() == 203);

            assertThat(order.subList(1, 5)).as("queued 30 s after 200 of the big owner, the small owner's two alternate with it")
                    .containsExactly("big-0", "small-0", "big-1", "small-1");
        } finally {
            release.countDown();
            busy.close();
        }
    }

    private static Execution owned(String taskId, String owner) {
        DispatchTask task = Dispatches.task(taskId, "work", NOW);
        task.setOwner(owner);
        return new Execution(Dispatches.record(task), task);
    }
}
