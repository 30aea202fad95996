package io.ax.worker;

import static io.ax.worker.WorkerHarness.DEADLINE;
import static io.ax.worker.WorkerHarness.NOW;
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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import io.ax.schema.DispatchTask;
import io.ax.worker.internal.Dispatches;
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

    @Test
    void shouldTimeEachHandlersWaitFromItsDispatchsFireOrDueTimeToItsStartByJobType() {
        // The harness's clock stands at NOW: fired 2.5 s ago; fired 4 s ago and started at once; fired ahead of its
        // due time (NOW) and held until then: no wait; fired "later" by a scheduler clock ahead of this worker's: 0.
        DispatchTask late = Dispatches.task("late", "email", NOW.minusMillis(2_500));
        DispatchTask ahead = DispatchTask.newBuilder(Dispatches.task("ahead", "email", NOW)).setFiredAtMs(NOW.toEpochMilli() - 1_500).build();
        DispatchTask skewed = DispatchTask.newBuilder(Dispatches.task("skewed", "email", NOW)).setFiredAtMs(NOW.toEpochMilli() + 9_000).build();
        DispatchTask report = Dispatches.task("report", "report", NOW.minusMillis(4_000));
        harness.start(List.of(P0), b -> b.meterRegistry(registry).handler("email", context -> Result.success())
                .handler("report", context -> Result.success()), List.of(Dispatches.record(late, 0, 0),
                Dispatches.record(ahead, 0, 1), Dispatches.record(skewed, 0, 2), Dispatches.record(report, 0, 3)));
        await().atMost(DEADLINE).until(() -> harness.reports(ReportStatus.SUCCEEDED).size() == 4);

        Timer email = registry.get("ax.worker.dispatch.wait").tag("job_type", "email").timer();
        assertThat(email.count()).isEqualTo(3);
        assertThat(email.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(2_500);
        assertThat(email.max(TimeUnit.MILLISECONDS)).isEqualTo(2_500);
        Timer reports = registry.get("ax.worker.dispatch.wait").tag("job_type", "report").timer();
        assertThat(reports.count()).isEqualTo(1);
        assertThat(reports.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(4_000);
    }

    @Test
    void shouldWarnOnceNamingTheExecutionWhenARunTakesOverThreeTimesItsJobTypesRecentP95() {
        LogCaptured logs = LogCaptured.of(io.ax.worker.internal.ExecutionRunner.class);
        AtomicLong ticker = new AtomicLong();
        List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
        for (int offset = 0; offset < 20; offset++) {
            records.add(run("usual-" + offset, "export", 0, offset)); // 1 s each
        }
        records.add(run("bit-slow", "export", 0, 20)); // 3 s: 3 x the p95, not more
        records.add(run("slow", "export", 0, 21)); // 3.001 s
        try {
            harness.start(List.of(P0), b -> b.meterRegistry(registry).nanoTime(ticker::get).handler("export", 1, context -> {
                ticker.addAndGet(TimeUnit.MILLISECONDS.toNanos(context.taskId().equals("slow") ? 3_001
                        : context.taskId().equals("bit-slow") ? 3_000 : 1_000));
                return Result.success();
            }), records);
            await().atMost(DEADLINE).until(() -> harness.reports(ReportStatus.SUCCEEDED).size() == 22);

            assertThat(logs.warnings()).singleElement().satisfies(line -> assertThat(line)
                    .isEqualTo("Slow run taskId=\"slow\" executionId=\"exec-slow\" attempt=1 jobType=\"export\": 3001 ms,"
                            + " over 3.0 x the p95 of its job type's last runs (1000.0 ms)"));
            assertThat(handled("export", "success")).isEqualTo(22);
        } finally {
            logs.stop();
        }
    }

    /** The WARN lines one logger writes while a test runs. */
    private record LogCaptured(ch.qos.logback.classic.Logger logger, ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> appender) {
        static LogCaptured of(Class<?> type) {
            ch.qos.logback.classic.Logger logger = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(type);
            ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> appender = new ch.qos.logback.core.read.ListAppender<>();
            appender.start();
            logger.addAppender(appender);
            return new LogCaptured(logger, appender);
        }

        List<String> warnings() {
            synchronized (appender) {
                return appender.list.stream().filter(e -> e.getLevel() == ch.qos.logback.classic.Level.WARN)
                        .map(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage).toList();
            }
        }

        void stop() {
            logger.detachAppender(appender);
        }
    }
}
