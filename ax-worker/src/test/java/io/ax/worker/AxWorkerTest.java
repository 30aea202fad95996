package io.ax.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.ax.codec.WireCodec;
import io.ax.schema.ExecutionReport;
import io.ax.schema.ReportStatus;
import io.ax.worker.internal.Dispatches;
import io.ax.worker.internal.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

class AxWorkerTest {
    private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");
    private static final TopicPartition P0 = new TopicPartition("ax.dispatch", 0);

    private final CommitRecordingConsumer consumer = new CommitRecordingConsumer();
    private final MockProducer<String, byte[]> producer =
            new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer());

    @Test
    void shouldRunDispatchesAndCommitThemBeforeClosing() throws Exception {
        CountDownLatch handlerEntered = new CountDownLatch(1);
        AxWorker worker = AxWorker.builder()
                .workerId("w1")
                .clock(new SettableClock(NOW))
                .handler("email", context -> {
                    handlerEntered.countDown();
                    return Result.success();
                })
                .clients(consumer, producer)
                .build();
        consumer.schedulePollTask(() -> {
            consumer.rebalance(List.of(P0));
            consumer.updateBeginningOffsets(Map.of(P0, 0L));
            consumer.addRecord(Dispatches.record(Dispatches.task("t1", "email", NOW)));
        });

        worker.start();
        assertThat(handlerEntered.await(10, TimeUnit.SECONDS)).as("handler ran").isTrue();
        worker.close(Duration.ofSeconds(10));

        assertThat(worker.isRunning()).isFalse();
        assertThat(producer.history().stream().filter(r -> r.topic().equals(io.ax.AxTopics.defaults().results())).toList()).extracting(r -> WireCodec.decodeReport(r.value()))
                .extracting(ExecutionReport::getStatus, ExecutionReport::getWorkerId)
                .containsExactly(tuple(ReportStatus.STARTED, "w1"), tuple(ReportStatus.SUCCEEDED, "w1"));
        assertThat(consumer.commits).containsExactly(Map.of(P0, new OffsetAndMetadata(1)));
        assertThat(consumer.closed()).isTrue();
        assertThat(producer.closed()).isTrue();
    }

    /** MockConsumer forgets its commits when closed; the worker closes it. */
    private static final class CommitRecordingConsumer extends MockConsumer<String, byte[]> {
        final List<Map<TopicPartition, OffsetAndMetadata>> commits = new CopyOnWriteArrayList<>();

        CommitRecordingConsumer() {
            super("earliest");
        }

        @Override
        public synchronized void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
            super.commitSync(offsets);
            commits.add(Map.copyOf(offsets));
        }
    }

    @Test
    void shouldCloseClientsWhenClosedWithoutStarting() {
        AxWorker worker = AxWorker.builder().handler("email", context -> Result.success()).clients(consumer, producer).build();

        worker.close();

        assertThat(consumer.closed()).isTrue();
        assertThat(producer.closed()).isTrue();
    }

    @Test
    void shouldRefuseToStartTwice() {
        AxWorker worker = AxWorker.builder().workerId("w1").handler("email", context -> Result.success())
                .clients(consumer, producer).build();
        worker.start();
        try {
            assertThatThrownBy(worker::start).isInstanceOf(IllegalStateException.class)
                    .hasMessage("AxWorker w1 cannot start: it is RUNNING");
        } finally {
            worker.close();
        }
    }

    @Test
    void shouldRefuseToStartAfterClose() {
        AxWorker worker = AxWorker.builder().workerId("w1").handler("email", context -> Result.success())
                .clients(consumer, producer).build();
        worker.close();

        assertThatThrownBy(worker::start).isInstanceOf(IllegalStateException.class)
                .hasMessage("AxWorker w1 cannot start: it is CLOSED");
    }

    @Test
    void shouldRequireAHandler() {
        assertThatThrownBy(() -> AxWorker.builder().bootstrapServers("localhost:9092").build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("AxWorker has no handlers: call handler(jobType, handler)");
    }

    @Test
    void shouldRequireBootstrapServers() {
        assertThatThrownBy(() -> AxWorker.builder().handler("email", context -> Result.success()).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("AxWorker has no bootstrap servers: call bootstrapServers(\"host:port\")"
                        + " or give bootstrap.servers in connectionProperties(...)");
    }

    @Test
    void shouldRejectSecondHandlerForTheSameJobType() {
        AxWorker.Builder builder = AxWorker.builder().handler("email", context -> Result.success());

        assertThatThrownBy(() -> builder.handler("email", context -> Result.success()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a handler is already registered for jobType email");
    }

    @Test
    void shouldRejectConcurrencyBelowOne() {
        assertThatThrownBy(() -> AxWorker.builder().concurrency(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("concurrency must be >= 1: 0");
    }

    @Test
    void shouldRejectANegativeOverflow() {
        assertThatThrownBy(() -> AxWorker.builder().maxOverflow(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxOverflow must be >= 0: -1");
    }

    @Test
    void shouldRejectACommitTimeoutOutsideOneMillisecondToSixtySeconds() {
        AxWorker.Builder builder = AxWorker.builder();

        assertThatThrownBy(() -> builder.commitTimeout(Duration.ofNanos(999_999)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("commitTimeout must be from 1 ms to 60 s: PT0.000999999S");
        assertThatThrownBy(() -> builder.commitTimeout(Duration.ofMillis(60_001)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("commitTimeout must be from 1 ms to 60 s: PT1M0.001S");
        assertThatThrownBy(() -> builder.commitTimeout(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.commitTimeout(null)).isInstanceOf(NullPointerException.class);
        builder.commitTimeout(Duration.ofMillis(1)).commitTimeout(Duration.ofSeconds(60));
    }

    @Test
    void shouldBuildWithRealKafkaClientsFromTheDefaults() {
        AxWorker worker = AxWorker.builder().bootstrapServers("127.0.0.1:1").handler("email", context -> Result.success())
                .consumerProperty("max.poll.records", 5).producerProperty("linger.ms", 1).build();

        worker.close();

        assertThat(worker.isRunning()).isFalse();
    }

    @Test
    void shouldDefaultWorkerIdToHostAndPid() {
        AxWorker worker = AxWorker.builder().handler("email", context -> Result.success()).clients(consumer, producer).build();

        assertThat(worker.workerId()).endsWith("-" + ProcessHandle.current().pid());
        worker.close();
    }
}
