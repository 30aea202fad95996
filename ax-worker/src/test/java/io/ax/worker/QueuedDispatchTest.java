package io.ax.worker;

import static io.ax.worker.internal.Dispatches.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.ax.codec.WireCodec;
import io.ax.schema.DispatchTask;
import io.ax.schema.ExecutionReport;
import io.ax.schema.ReportStatus;
import io.ax.worker.internal.Dispatches;
import io.ax.worker.internal.SettableClock;
import io.ax.worker.testing.TestJobContext;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A dispatch waiting in its lane's queue is not running: the worker reports STARTED, and heartbeats, only once its
 * handler starts, so the scheduler's schedule-to-start limit (not the running limits) covers the wait. And a handler
 * asks for more running time with {@link JobContext#heartbeat(Duration)}.
 */
class QueuedDispatchTest {
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

    private void start(JobHandler handler, DispatchTask... tasks) {
        consumer.schedulePollTask(() -> {
            consumer.rebalance(List.of(P0));
            consumer.updateBeginningOffsets(Map.of(P0, 0L));
            for (int i = 0; i < tasks.length; i++) {
                consumer.addRecord(record(tasks[i], 0, i));
            }
        });
        worker = AxWorker.builder().workerId("w1").clock(new SettableClock(NOW)).clients(consumer, producer)
                .handler("work", 1, handler).build();
        worker.start();
    }

    private List<ExecutionReport> reports() {
        return producer.history().stream().filter(r -> r.topic().equals(io.ax.AxTopics.defaults().results())).map(r -> WireCodec.decodeReport(r.value())).toList();
    }

    private List<ReportStatus> statusesOf(String executionId) {
        return reports().stream().filter(r -> r.getExecutionId().equals(executionId)).map(ExecutionReport::getStatus).toList();
    }

    private static DispatchTask task(String taskId, long timeoutMs) {
        DispatchTask task = Dispatches.task(taskId, "work", NOW);
        task.setTimeoutMs(timeoutMs); // heartbeats every third of it while the handler runs
        return task;
    }

    @Test
    void shouldReportAQueuedDispatchStartedOnlyWhenItsHandlerStarts() {
        java.util.concurrent.atomic.AtomicInteger entered = new java.util.concurrent.atomic.AtomicInteger();
        start(context -> {
            entered.incrementAndGet();
            if (context.taskId().equals("first")) {
                release.await();
            }
            return Result.success();
        }, task("first", 300), task("second", 300));

        // The first runs and beats every 100 ms; the second waits behind it in the lane (concurrency 1) for longer than
        // its own 300 ms silence limit, and says nothing meanwhile.
        await().atMost(DEADLINE).until(() -> statusesOf("exec-first").stream().filter(s -> s == ReportStatus.HEARTBEAT).count() >= 4);
        assertThat(entered).as("only the first handler has begun").hasValue(1);
        assertThat(statusesOf("exec-second")).as("queued: no STARTED, no HEARTBEAT").isEmpty();

        release.countDown();
        await().atMost(DEADLINE).until(() -> statusesOf("exec-second").contains(ReportStatus.SUCCEEDED));
        List<String> order = reports().stream().map(r -> r.getExecutionId() + " " + r.getStatus()).toList();
        assertThat(order.indexOf("exec-second STARTED")).as("STARTED once the first handler ended and the second began")
                .isGreaterThan(order.indexOf("exec-first SUCCEEDED"));
        assertThat(statusesOf("exec-second").get(0)).isEqualTo(ReportStatus.STARTED);
    }

    @Test
    void shouldAskForMoreRunningTimeWithAHeartbeatCarryingExtendMs() {
        start(context -> {
            context.heartbeat(Duration.ofMinutes(2));
            context.heartbeat();
            return Result.success();
        }, task("t0", 30_000));

        await().atMost(DEADLINE).until(() -> statusesOf("exec-t0").contains(ReportStatus.SUCCEEDED));
        List<ExecutionReport> heartbeats = reports().stream().filter(r -> r.getStatus() == ReportStatus.HEARTBEAT).toList();
        assertThat(heartbeats).extracting(ExecutionReport::getExtendMs).containsExactly(120_000L, null);
    }

    @Test
    void shouldRefuseANonPositiveExtensionAndRecordExtensionsInTheTestContext() {
        TestJobContext context = TestJobContext.builder("t0").build();
        context.heartbeat(Duration.ofSeconds(30));
        assertThat(context.extensions()).containsExactly(Duration.ofSeconds(30));
        assertThat(context.heartbeats()).isEqualTo(1);
        assertThatThrownBy(() -> context.heartbeat(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("extend must be positive: PT0S");
    }
}
