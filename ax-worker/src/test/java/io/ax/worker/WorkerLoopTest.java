package io.ax.worker;

import static io.ax.worker.internal.Dispatches.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ax.AxHeaders;
import io.ax.codec.WireCodec;
import io.ax.schema.DispatchKind;
import io.ax.schema.DispatchTask;
import io.ax.schema.ExecutionReport;
import io.ax.schema.ReportStatus;
import io.ax.worker.internal.Dispatches;
import io.ax.worker.internal.SettableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The worker's loop against MockConsumer/MockProducer: concurrency, offsets, bad input, cancel, shutdown.
 * Backpressure: {@link JobTypeBackpressureTest}; outages: {@link WorkerRecoveryTest}.
 */
class WorkerLoopTest {
    private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");
    private static final TopicPartition P0 = new TopicPartition(Dispatches.TOPIC, 0);
    private static final Duration DEADLINE = Duration.ofSeconds(10);

    private final RecordingConsumer consumer = new RecordingConsumer();
    private final MockProducer<String, byte[]> producer =
            new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer());
    private final CountDownLatch release = new CountDownLatch(1);
    private AxWorker worker;

    @AfterEach
    void closeWorker() {
        release.countDown();
        if (worker != null) {
            worker.close(Duration.ofSeconds(5));
        }
    }

    private AxWorker start(UnaryOperator<AxWorker.Builder> configure, List<ConsumerRecord<String, byte[]>> records) {
        consumer.schedulePollTask(() -> {
            consumer.rebalance(List.of(P0));
            consumer.updateBeginningOffsets(Map.of(P0, 0L));
            records.forEach(consumer::addRecord);
        });
        worker = configure.apply(AxWorker.builder().workerId("w1").clock(new SettableClock(NOW)).clients(consumer, producer))
                .build();
        worker.start();
        return worker;
    }

    private static ConsumerRecord<String, byte[]> run(String taskId, String jobType, long offset) {
        return record(Dispatches.task(taskId, jobType, NOW), 0, offset);
    }

    private List<ExecutionReport> reports() {
        return producer.history().stream().filter(r -> r.topic().equals(io.ax.AxTopics.defaults().results())).map(r -> WireCodec.decodeReport(r.value())).toList();
    }

    private List<ExecutionReport> reports(ReportStatus status) {
        return reports().stream().filter(r -> r.getStatus() == status).toList();
    }

    private ExecutionReport finalReport(String taskId) {
        return reports().stream().filter(r -> r.getExecutionId().equals("exec-" + taskId))
                .filter(r -> r.getStatus() == ReportStatus.SUCCEEDED || r.getStatus() == ReportStatus.FAILED)
                .findFirst().orElse(null);
    }

    private void awaitUninterruptibly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void shouldCommitOnlyBelowTheFirstUnfinishedDispatchWhenHandlersFinishOutOfOrder() {
        start(b -> b.handler("work", 3, context -> {
            if (context.taskId().equals("t0")) {
                awaitUninterruptibly(release);
            }
            return Result.success();
        }), List.of(run("t0", "work", 0), run("t1", "work", 1), run("t2", "work", 2)));

        await().atMost(DEADLINE).until(() -> finalReport("t1") != null && finalReport("t2") != null);
        assertThat(consumer.lastCommitted(P0)).as("nothing past the unfinished t0").isEqualTo(-1);

        release.countDown();
        await().atMost(DEADLINE).until(() -> consumer.lastCommitted(P0) == 3);
    }

    @Test
    void shouldRunAnotherJobTypeWhileASlowJobTypeIsAtItsLimit() {
        AtomicInteger slowStarted = new AtomicInteger();
        List<ConsumerRecord<String, byte[]>> records = new java.util.ArrayList<>();
        for (int i = 0; i < 20; i++) {
            records.add(i % 2 == 0 ? run("slow-" + i, "reconcile", i) : run("fast-" + i, "notify", i));
        }
        start(b -> b.handler("reconcile", 2, context -> {
            slowStarted.incrementAndGet();
            release.await();
            return Result.success();
        }).handler("notify", 2, context -> Result.success()), records);

        await().atMost(DEADLINE).until(() -> reports(ReportStatus.SUCCEEDED).size() == 10);
        assertThat(reports(ReportStatus.SUCCEEDED)).allSatisfy(r -> assertThat(r.getExecutionId()).startsWith("exec-fast-"));
        assertThat(slowStarted).as("the slow type stays at its limit").hasValue(2);
        assertThat(consumer.lastCommitted(P0)).as("offset 0 (slow) is not done").isEqualTo(-1);

        release.countDown();
        await().atMost(DEADLINE).until(() -> consumer.lastCommitted(P0) == 20);
    }

    @Test
    void shouldReportARegistryFormatDispatchUndecodableWithoutARegistry() {
        ConsumerRecord<String, byte[]> registryFormat = Dispatches.withoutHeaders("t0", new byte[] {0, 0, 0, 0, 7, 2}, 0, 0);
        Dispatches.header(registryFormat, AxHeaders.EXECUTION_ID, "exec-t0");
        Dispatches.header(registryFormat, AxHeaders.ATTEMPT, "1");
        start(b -> b.handler("work", context -> Result.success()), List.of(registryFormat, run("t1", "work", 1)));

        await().atMost(DEADLINE).until(() -> consumer.lastCommitted(P0) == 2);
        ExecutionReport failed = finalReport("t0");
        assertThat(failed.getStatus()).isEqualTo(ReportStatus.FAILED);
        assertThat(failed.getRetryable()).isFalse();
        assertThat(failed.getMessage()).startsWith("the worker cannot decode the dispatch record")
                .contains("no schema registry configured");
        assertThat(finalReport("t1").getStatus()).isEqualTo(ReportStatus.SUCCEEDED);
    }

    @Test
    void shouldReportAnUndecodableDispatchAsFatalAndCommitPastIt() {
        ConsumerRecord<String, byte[]> garbage = Dispatches.withoutHeaders("t0", "not avro".getBytes(StandardCharsets.UTF_8), 0, 0);
        Dispatches.header(garbage, AxHeaders.EXECUTION_ID, "exec-t0");
        Dispatches.header(garbage, AxHeaders.ATTEMPT, "1");
        start(b -> b.handler("work", context -> Result.success()), List.of(garbage, run("t1", "work", 1)));

        await().atMost(DEADLINE).until(() -> consumer.lastCommitted(P0) == 2);
        ExecutionReport failed = finalReport("t0");
        assertThat(failed.getStatus()).isEqualTo(ReportStatus.FAILED);
        assertThat(failed.getRetryable()).isFalse();
        assertThat(failed.getMessage()).startsWith("the worker cannot decode the dispatch record");
        assertThat(finalReport("t1").getStatus()).isEqualTo(ReportStatus.SUCCEEDED);
        assertThat(worker.undecodableDispatches()).isEqualTo(1);
    }

    @Test
    void shouldSkipAndCountAJobTypeWithoutHandlerByDefault() {
        start(b -> b.handler("work", context -> Result.success()), List.of(run("t0", "other", 0), run("t1", "work", 1)));

        await().atMost(DEADLINE).until(() -> consumer.lastCommitted(P0) == 2);
        assertThat(reports()).noneMatch(r -> r.getExecutionId().equals("exec-t0"));
        assertThat(worker.skippedUnknownJobType()).isEqualTo(1);
    }

    @Test
    void shouldReportAJobTypeWithoutHandlerAsFatalInStrictMode() {
        start(b -> b.failUnknownJobTypes().handler("work", context -> Result.success()), List.of(run("t0", "other", 0)));

        await().atMost(DEADLINE).until(() -> consumer.lastCommitted(P0) == 1);
        assertThat(finalReport("t0").getRetryable()).isFalse();
        assertThat(finalReport("t0").getMessage()).isEqualTo("no handler for jobType other");
    }

    @Test
    void shouldInterruptTheHandlerOnACancelSignal() {
        AtomicBoolean sawCancel = new AtomicBoolean();
        CountDownLatch running = new CountDownLatch(1);
        start(b -> b.handler("work", context -> {
            running.countDown();
            try {
                release.await();
                return Result.success();
            } catch (InterruptedException e) {
                sawCancel.set(context.isCancelled());
                throw e;
            }
        }), List.of(run("t0", "work", 0)));
        await().atMost(DEADLINE).until(() -> running.getCount() == 0);

        DispatchTask cancel = Dispatches.task("t0", "work", NOW);
        cancel.setKind(DispatchKind.CANCEL);
        consumer.addRecord(record(cancel, 0, 1));

        await().atMost(DEADLINE).until(() -> finalReport("t0") != null);
        assertThat(sawCancel).isTrue();
        assertThat(finalReport("t0").getStatus()).isEqualTo(ReportStatus.FAILED);
        assertThat(finalReport("t0").getRetryable()).isFalse();
        assertThat(finalReport("t0").getMessage()).startsWith("cancelled while running");
        await().atMost(DEADLINE).until(() -> consumer.lastCommitted(P0) == 2);
    }

    @Test
    void shouldSendHeartbeatsWhileTheHandlerRunsAndNoneAfterItEnds() {
        DispatchTask task = Dispatches.task("t0", "work", NOW);
        task.setTimeoutMs(300L); // a heartbeat every 100 ms
        start(b -> b.handler("work", context -> {
            await().atMost(DEADLINE).until(() -> reports(ReportStatus.HEARTBEAT).size() >= 2);
            return Result.success();
        }), List.of(record(task, 0, 0)));

        await().atMost(DEADLINE).until(() -> finalReport("t0") != null);
        worker.close(Duration.ofSeconds(5));
        List<ReportStatus> statuses = reports().stream().map(ExecutionReport::getStatus).toList();
        assertThat(statuses.get(0)).isEqualTo(ReportStatus.STARTED);
        assertThat(statuses.get(statuses.size() - 1)).isEqualTo(ReportStatus.SUCCEEDED);
        assertThat(statuses.subList(1, statuses.size() - 1)).containsOnly(ReportStatus.HEARTBEAT);
    }

    @Test
    void shouldHandTheLastCheckpointToTheHandlerAndReportTheNewOnes() {
        DispatchTask task = Dispatches.task("t0", "work", NOW);
        task.setAttempt(2);
        task.setProgress("page-7");
        List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        start(b -> b.handler("work", context -> {
            seen.add(context.lastProgress().orElse("none"));
            context.saveProgress("page-8");
            context.saveProgress("page-9");
            return Result.retryable("page 10 failed");
        }), List.of(record(task, 0, 0)));

        await().atMost(DEADLINE).until(() -> finalReport("t0") != null);
        assertThat(seen).containsExactly("page-7");
        assertThat(reports(ReportStatus.HEARTBEAT)).extracting(ExecutionReport::getProgress).containsExactly("page-8", "page-9");
        assertThat(reports(ReportStatus.HEARTBEAT)).allSatisfy(r -> assertThat(r.getAttempt()).isEqualTo(2));
    }

    @Test
    void shouldFailForGoodOnADeclaredFatalExceptionOrItsSubclassAndRetryOnOthers() {
        start(b -> b.fatalExceptions(IllegalArgumentException.class).handler("work", context -> {
            switch (context.taskId()) {
                case "t0" -> throw new NumberFormatException("bad number"); // a subclass of IllegalArgumentException
                case "t1" -> throw new IllegalStateException("db down");
                default -> {
                    return Result.fatal("refused");
                }
            }
        }), List.of(run("t0", "work", 0), run("t1", "work", 1), run("t2", "work", 2)));

        await().atMost(DEADLINE).until(() -> consumer.lastCommitted(P0) == 3);
        assertThat(finalReport("t0").getRetryable()).isFalse();
        assertThat(finalReport("t0").getMessage()).isEqualTo("java.lang.NumberFormatException: bad number");
        assertThat(finalReport("t1").getRetryable()).isTrue();
        assertThat(finalReport("t2").getRetryable()).isFalse();
    }

    @Test
    void shouldInterruptHandlersStillRunningAfterTheGracePeriodReportThemRetryableAndCommit() {
        CountDownLatch running = new CountDownLatch(1);
        start(b -> b.handler("work", context -> {
            running.countDown();
            release.await();
            return Result.success();
        }), List.of(run("t0", "work", 0)));
        await().atMost(DEADLINE).until(() -> running.getCount() == 0);

        worker.close(Duration.ofMillis(200));

        assertThat(finalReport("t0").getStatus()).isEqualTo(ReportStatus.FAILED);
        assertThat(finalReport("t0").getRetryable()).isTrue();
        assertThat(finalReport("t0").getMessage()).startsWith("interrupted by worker shutdown");
        assertThat(consumer.lastCommitted(P0)).isEqualTo(1);
        assertThat(producer.closed()).isTrue();
    }

    @Test
    void shouldFinishRunningHandlersAndLeaveWaitingDispatchesForRedeliveryOnShutdown() throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        start(b -> b.handler("work", 1, context -> {
            running.countDown();
            release.await();
            return Result.success();
        }), List.of(run("t0", "work", 0), run("t1", "work", 1), run("t2", "work", 2)));
        await().atMost(DEADLINE).until(() -> running.getCount() == 0);

        Thread closer = new Thread(() -> worker.close(Duration.ofSeconds(10)));
        closer.start();
        await().atMost(DEADLINE).until(() -> consumer.paused().contains(P0));
        release.countDown();
        closer.join(TimeUnit.SECONDS.toMillis(10));

        assertThat(closer.isAlive()).isFalse();
        assertThat(finalReport("t0").getStatus()).isEqualTo(ReportStatus.SUCCEEDED);
        assertThat(reports()).noneMatch(r -> r.getExecutionId().equals("exec-t1") || r.getExecutionId().equals("exec-t2"));
        assertThat(consumer.lastCommitted(P0)).as("t1 and t2 are redelivered").isEqualTo(1);
    }

    @Test
    void shouldNotStartAHandlerBeforeItsDueTimeByTheWorkersClock() {
        SettableClock clock = new SettableClock(NOW);
        List<Instant> startedAt = new java.util.concurrent.CopyOnWriteArrayList<>();
        DispatchTask early = Dispatches.task("t0", "work", NOW.plusSeconds(2)); // dispatched ahead of its due time
        consumer.schedulePollTask(() -> {
            consumer.rebalance(List.of(P0));
            consumer.updateBeginningOffsets(Map.of(P0, 0L));
            consumer.addRecord(record(early, 0, 0));
        });
        worker = AxWorker.builder().workerId("w1").clock(clock).clients(consumer, producer)
                .handler("work", context -> {
                    startedAt.add(clock.instant());
                    return Result.success();
                }).build();
        worker.start();

        clock.advance(Duration.ofMillis(1999));
        int polls = consumer.polls();
        await().atMost(DEADLINE).until(() -> consumer.polls() >= polls + 20);
        assertThat(startedAt).as("1 ms before its due time").isEmpty();
        clock.advance(Duration.ofMillis(1));

        await().atMost(DEADLINE).until(() -> consumer.lastCommitted(P0) == 1);
        assertThat(startedAt).containsExactly(NOW.plusSeconds(2));
    }
}
