package io.ax.worker;

import static io.ax.worker.WorkerHarness.DEADLINE;
import static io.ax.worker.WorkerHarness.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ax.schema.ExecutionReport;
import io.ax.schema.ReportStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A backlogged job type holds back neither other job types nor other partitions, within bounded memory. */
class JobTypeBackpressureTest {
    private static final TopicPartition P0 = WorkerHarness.partition(0);
    private static final TopicPartition P1 = WorkerHarness.partition(1);

    private final WorkerHarness harness = new WorkerHarness();
    private final RecordingConsumer consumer = harness.consumer;
    private final CountDownLatch release = new CountDownLatch(1);
    private final AtomicInteger slowStarted = new AtomicInteger();

    @AfterEach
    void close() {
        release.countDown();
        harness.close();
    }

    private AxWorker.Builder slowAndFast(AxWorker.Builder builder) {
        return builder.maxWaitingPerJobType(2)
                .handler("reconcile", 1, context -> {
                    slowStarted.incrementAndGet();
                    release.await();
                    return Result.success();
                })
                .handler("notify", 2, context -> Result.success());
    }

    private static List<ConsumerRecord<String, byte[]>> runs(String jobType, int partition, int fromOffset, int toOffset) {
        List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
        for (int offset = fromOffset; offset < toOffset; offset++) {
            records.add(run(jobType + "-" + partition + "-" + offset, jobType, partition, offset));
        }
        return records;
    }

    private List<String> succeeded() {
        return harness.reports(ReportStatus.SUCCEEDED).stream().map(ExecutionReport::getExecutionId).toList();
    }

    @Test
    void shouldKeepRunningAnotherJobTypeFromTheSamePartitionWhileASlowJobTypeIsBacklogged() {
        harness.start(List.of(P0), this::slowAndFast, runs("reconcile", 0, 0, 20)); // 1 running, 19 waiting
        await().atMost(DEADLINE).until(() -> slowStarted.get() == 1);
        harness.awaitPolls(5);

        runs("notify", 0, 20, 30).forEach(consumer::addRecord);

        await().atMost(DEADLINE).until(() -> succeeded().size() == 10);
        assertThat(succeeded()).allSatisfy(id -> assertThat(id).startsWith("exec-notify-"));
        assertThat(slowStarted).as("the slow type stays at its limit").hasValue(1);
        assertThat(consumer.paused()).isEmpty();
        assertThat(consumer.lastCommitted(P0)).as("never past the unfinished offset 0").isEqualTo(-1);

        release.countDown();
        await().atMost(DEADLINE).until(() -> consumer.lastCommitted(P0) == 30);
    }

    @Test
    void shouldPauseOnlyThePartitionABacklogComesFromOnceItsOverflowIsFullAndResumeWhenItDrains() {
        // 1 running, 9 waiting: 7 beyond the waiting limit of 2, over the overflow bound of 3
        harness.start(List.of(P0, P1), b -> slowAndFast(b).maxOverflow(3), runs("reconcile", 0, 0, 10));
        await().atMost(DEADLINE).until(() -> consumer.paused().equals(Set.of(P0)));

        runs("notify", 1, 0, 5).forEach(consumer::addRecord);
        runs("notify", 0, 10, 11).forEach(consumer::addRecord);

        await().atMost(DEADLINE).until(() -> succeeded().size() == 5);
        assertThat(succeeded()).allSatisfy(id -> assertThat(id).startsWith("exec-notify-1-"));
        assertThat(consumer.lastCommitted(P1)).isEqualTo(5);
        assertThat(consumer.paused()).containsExactly(P0);

        release.countDown();
        await().atMost(DEADLINE).until(() -> consumer.lastCommitted(P0) == 11);
        assertThat(succeeded()).hasSize(16);
        assertThat(consumer.paused()).isEmpty();
    }
}
