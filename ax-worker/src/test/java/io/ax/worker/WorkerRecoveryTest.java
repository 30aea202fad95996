package io.ax.worker;

import static io.ax.worker.WorkerHarness.DEADLINE;
import static io.ax.worker.WorkerHarness.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ax.schema.ReportStatus;
import io.ax.worker.internal.Dispatches;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The worker rides out a broker outage: failed commits, and runs whose reports were not acknowledged, are retried
 * with a growing backoff; only a fatal error stops it, and it says so.
 */
class WorkerRecoveryTest {
    private static final TopicPartition P0 = WorkerHarness.partition(0);

    private final WorkerHarness harness = new WorkerHarness();
    private final RecordingConsumer consumer = harness.consumer;

    @AfterEach
    void close() {
        harness.close();
    }

    @Test
    void shouldRetryTimedOutCommitsWithAGrowingBackoffAndCommitWhatIsDoneOnceTheCoordinatorIsBack() {
        consumer.failCommitsWith(new TimeoutException("Timeout of 60000ms expired before successfully committing offsets"));
        AxWorker worker = harness.start(List.of(P0), b -> b.handler("work", context -> Result.success()),
                List.of(run("t0", "work", 0, 0), run("t1", "work", 0, 1)));
        await().atMost(DEADLINE).until(() -> harness.reports(ReportStatus.SUCCEEDED).size() == 2);
        await().atMost(DEADLINE).until(() -> consumer.commitAttempts() >= 1);

        harness.awaitPolls(20);
        assertThat(consumer.commitAttempts()).as("no second attempt within the first 100 ms").isEqualTo(1);
        harness.clock.advance(Duration.ofMillis(100));
        await().atMost(DEADLINE).until(() -> consumer.commitAttempts() == 2);
        harness.clock.advance(Duration.ofMillis(199));
        harness.awaitPolls(20);
        assertThat(consumer.commitAttempts()).as("the second backoff is 200 ms").isEqualTo(2);
        assertThat(worker.isRunning()).isTrue();

        consumer.failCommitsWith(null);
        harness.clock.advance(Duration.ofMillis(1));
        await().atMost(DEADLINE).until(() -> consumer.lastCommitted(P0) == 2);
        consumer.addRecord(run("t2", "work", 0, 2));
        await().atMost(DEADLINE).until(() -> consumer.lastCommitted(P0) == 3);

        assertThat(consumer.commits).as("each offset once, none past unfinished work")
                .containsExactly(Map.of(P0, new OffsetAndMetadata(2)), Map.of(P0, new OffsetAndMetadata(3)));
        assertThat(worker.isRunning()).isTrue();
        assertThat(worker.failure()).isEmpty();
        assertThat(consumer.commitTimeouts()).as("every attempt bounded by the default")
                .containsOnly(Duration.ofSeconds(2));
    }

    @Test
    void shouldStartAHeldRunWhenItIsDueWhileTheCoordinatorIsUnreachableBecauseACommitWaitsOnlyItsBound() {
        Duration bound = Duration.ofSeconds(3);
        Instant due = WorkerHarness.NOW.plusSeconds(1);
        Map<String, Instant> startedAt = new ConcurrentHashMap<>();
        consumer.coordinatorUnreachable(harness.clock);
        AxWorker worker = harness.start(List.of(P0), b -> b.commitTimeout(bound).handler("work", context -> {
            startedAt.put(context.taskId(), harness.clock.instant());
            return Result.success();
        }), List.of(run("t0", "work", 0, 0), Dispatches.record(Dispatches.task("t1", "work", due), 0, 1)));

        // t0 done: committing it runs out of time, and t1 falls due (at +1 s) while the loop waits on that commit
        await().atMost(DEADLINE).until(() -> startedAt.containsKey("t1"));
        assertThat(consumer.commitAttempts()).isEqualTo(1);
        assertThat(startedAt.get("t1")).as("started as soon as the commit gave up, after its bound, not 60 s")
                .isEqualTo(WorkerHarness.NOW.plus(bound));
        await().atMost(DEADLINE).until(() -> harness.reports(ReportStatus.SUCCEEDED).size() == 2);

        consumer.coordinatorUnreachable(null);
        harness.clock.advance(Duration.ofMillis(100)); // the first backoff
        await().atMost(DEADLINE).until(() -> consumer.lastCommitted(P0) == 2);
        assertThat(consumer.commitTimeouts()).as("every attempt bounded").containsOnly(bound);
        assertThat(worker.isRunning()).isTrue();
    }

    @Test
    void shouldStopAndSayWhyWhenACommitFailsForGood() {
        FencedInstanceIdException fenced = new FencedInstanceIdException("another member uses group.instance.id w1");
        consumer.failCommitsWith(fenced);
        AxWorker worker = harness.start(List.of(P0), b -> b.handler("work", context -> Result.success()),
                List.of(run("t0", "work", 0, 0)));

        await().atMost(DEADLINE).until(() -> !worker.isRunning());
        assertThat(worker.failure()).containsSame(fenced);
        assertThat(consumer.closed()).isTrue();
        assertThat(consumer.commits).isEmpty();
    }

    @Test
    void shouldWaitAGrowingBackoffBeforeRunningAgainAfterAReportWasNotAcknowledged() {
        AtomicInteger runs = new AtomicInteger();
        harness.producer.down(true);
        AxWorker worker = harness.start(List.of(P0), b -> b.handler("work", context -> {
            runs.incrementAndGet();
            return Result.success();
        }), List.of(run("t0", "work", 0, 0)));
        await().atMost(DEADLINE).until(() -> harness.producer.failedSends() >= 2); // STARTED and SUCCEEDED

        harness.awaitPolls(20);
        assertThat(runs).as("not again within the first 100 ms").hasValue(1);
        harness.clock.advance(Duration.ofMillis(100));
        await().atMost(DEADLINE).until(() -> harness.producer.failedSends() == 4);
        assertThat(runs).hasValue(2);
        harness.clock.advance(Duration.ofMillis(199));
        harness.awaitPolls(20);
        assertThat(runs).as("the second backoff is 200 ms").hasValue(2);

        harness.producer.down(false);
        harness.clock.advance(Duration.ofMillis(1));
        await().atMost(DEADLINE).until(() -> consumer.lastCommitted(P0) == 1);
        assertThat(runs).hasValue(3);
        assertThat(harness.reports(ReportStatus.SUCCEEDED)).hasSize(1);
        assertThat(worker.isRunning()).isTrue();
    }
}
