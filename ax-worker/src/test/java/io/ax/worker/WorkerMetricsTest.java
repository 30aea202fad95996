package io.ax.worker;

import static io.ax.worker.WorkerHarness.DEADLINE;
import static io.ax.worker.WorkerHarness.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ax.schema.ReportStatus;
import io.ax.worker.idempotency.InMemoryIdempotencyGuard;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The worker's metrics (topology-docs/METRICS.md, Worker) as its handlers run, wait, fail and are skipped. */
class WorkerMetricsTest {
    private static final TopicPartition P0 = WorkerHarness.partition(0);

    private final WorkerHarness harness = new WorkerHarness();
    private final MeterRegistry registry = new SimpleMeterRegistry();
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void close() {
        release.countDown();
        harness.close();
    }

    private double gauge(String name, String jobType) {
        return registry.get(name).tag("job_type", jobType).gauge().value();
    }

    private long handled(String jobType, String outcome) {
        Timer timer = registry.find("ax.worker.handler.duration").tags("job_type", jobType, "outcome", outcome).timer();
        return timer == null ? 0 : timer.count();
    }

    @Test
    void shouldShowRunningAndWaitingHandlersPerLaneAndPausedPartitions() {
        List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
        for (int offset = 0; offset < 10; offset++) {
            records.add(run("slow-" + offset, "reconcile", 0, offset));
        }
        harness.start(List.of(P0), b -> b.meterRegistry(registry).maxWaitingPerJobType(2).maxOverflow(3)
                .handler("reconcile", 1, context -> {
                    release.await();
                    return Result.success();
                }), records);
        await().atMost(DEADLINE).until(() -> gauge("ax.worker.executions.running", "reconcile") == 1
                && gauge("ax.worker.lane.queue.depth", "reconcile") == 9);
        await().atMost(DEADLINE).until(() -> registry.get("ax.worker.paused.partitions").gauge().value() == 1);

        release.countDown();
        await().atMost(DEADLINE).until(() -> handled("reconcile", "success") == 10);
        await().atMost(DEADLINE).until(() -> registry.get("ax.worker.paused.partitions").gauge().value() == 0);
        assertThat(gauge("ax.worker.executions.running", "reconcile")).isZero();
        assertThat(gauge("ax.worker.lane.queue.depth", "reconcile")).isZero();
    }

    @Test
    void shouldTimeHandlersByOutcomeAndCountRedeliveriesTheGuardSkipped() {
        InMemoryIdempotencyGuard guard = new InMemoryIdempotencyGuard(100);
        List<ConsumerRecord<String, byte[]>> records = List.of(run("ok", "email", 0, 0), run("bad", "email", 0, 1),
                run("ok", "email", 0, 2)); // offset 2 is a redelivery of the first: same executionId
        harness.start(List.of(P0), b -> b.meterRegistry(registry).handler("email", 1, guard.guard(context -> {
            if (context.taskId().equals("bad")) {
                throw new IllegalStateException("smtp down");
            }
            Thread.sleep(20);
            return Result.success();
        })), records);
        await().atMost(DEADLINE).until(() -> harness.reports(ReportStatus.SUCCEEDED).size() == 2
                && harness.reports(ReportStatus.FAILED).size() == 1);
        assertThat(handled("email", "success")).isEqualTo(2);
        assertThat(handled("email", "failure")).isEqualTo(1);
        assertThat(registry.get("ax.worker.redeliveries.skipped").tag("job_type", "email").counter().count()).isEqualTo(1);
        Timer success = registry.get("ax.worker.handler.duration").tags("job_type", "email", "outcome", "success").timer();
        assertThat(success.max(java.util.concurrent.TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(20);
    }
}
