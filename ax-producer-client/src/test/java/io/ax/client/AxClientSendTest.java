package io.ax.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ax.AxTopics;
import io.ax.InvalidRequestException;
import io.ax.codec.WireCodec;
import io.ax.schema.AtTrigger;
import io.ax.schema.CancelRequest;
import io.ax.schema.ReplayRequest;
import io.ax.schema.CronTrigger;
import io.ax.schema.DelayTrigger;
import io.ax.schema.IfExists;
import io.ax.schema.IntervalTrigger;
import io.ax.schema.ScheduleRequest;
import io.ax.schema.TriggerRequest;
import io.ax.validation.ScheduleLimits;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

class AxClientSendTest {
    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    private final MockProducer<String, byte[]> producer =
            new MockProducer<>(false, null, new StringSerializer(), new ByteArraySerializer());
    private final AxClient client = AxClient.create(producer, AxTopics.defaults(), Clock.fixed(NOW, ZoneOffset.UTC),
            ScheduleLimits.defaults());

    @Test
    void shouldSendBytesThatDecodeToTheSameRequest() {
        ScheduleBuilder builder = client.schedule("invoice-42")
                .jobType("email")
                .at(Instant.parse("2026-12-01T02:00:00Z"))
                .payload("{\"to\":\"a@b.c\"}")
                .priority(7)
                .owner("billing")
                .timeout(Duration.ofMinutes(2))
                .maxRetries(5)
                .backoffIntervals(Duration.ofSeconds(5), Duration.ofSeconds(30))
                .ifExists(IfExists.REPLACE);
        ScheduleRequest expected = builder.build();

        builder.submit();

        ProducerRecord<String, byte[]> sent = onlySent();
        assertThat(sent.topic()).isEqualTo("ax.requests");
        assertThat(sent.key()).isEqualTo("invoice-42");
        assertThat(sent.timestamp()).as("stamped by the client's clock").isEqualTo(NOW.toEpochMilli());
        assertThat(WireCodec.decodeRequest(sent.value())).isEqualTo(expected);
        assertThat(expected.getTrigger()).isEqualTo(new AtTrigger(Instant.parse("2026-12-01T02:00:00Z").toEpochMilli()));
        assertThat(expected.getPayload()).isEqualTo(ByteBuffer.wrap("{\"to\":\"a@b.c\"}".getBytes(StandardCharsets.UTF_8)));
        assertThat(expected.getPriority()).isEqualTo(7);
        assertThat(expected.getOwner()).isEqualTo("billing");
        assertThat(expected.getTimeoutMs()).isEqualTo(120_000L);
        assertThat(expected.getMaxRetries()).isEqualTo(5);
        assertThat(expected.getBackoffIntervalsMs()).containsExactly(5_000L, 30_000L);
        assertThat(expected.getIfExists()).isEqualTo(IfExists.REPLACE);
    }

    @Test
    void shouldSendSchemaDefaultsForUnsetOptions() {
        client.schedule("t1").jobType("email").after(Duration.ofSeconds(5)).submit();

        ScheduleRequest sent = onlySentRequest("t1");
        assertThat(sent.getJobType()).isEqualTo("email");
        assertThat(sent.getTrigger()).isEqualTo(new DelayTrigger(5_000L));
        assertThat(sent.getPriority()).isEqualTo(4);
        assertThat(sent.getMaxRetries()).isEqualTo(3);
        assertThat(sent.getTimeoutMs()).isNull();
        assertThat(sent.getBackoffMs()).isNull();
        assertThat(sent.getBackoffIntervalsMs()).isEmpty();
        assertThat(sent.getIfExists()).isEqualTo(IfExists.KEEP);
        assertThat(sent.getPayload()).isNull();
        assertThat(sent.getOwner()).isNull();
    }

    @Test
    void shouldSendIntervalWithoutFirstOccurrence() {
        client.schedule("t1").jobType("sync").every(Duration.ofMinutes(1)).submit();

        ScheduleRequest sent = onlySentRequest("t1");
        assertThat(sent.getJobType()).isEqualTo("sync");
        assertThat(sent.getTrigger()).isEqualTo(new IntervalTrigger(60_000L, null));
    }

    @Test
    void shouldSendIntervalWithFirstOccurrence() {
        Instant firstAt = Instant.parse("2026-01-01T00:10:00Z");

        client.schedule("t1").jobType("sync").every(Duration.ofMinutes(1), firstAt).submit();

        assertThat(onlySentRequest("t1").getTrigger()).isEqualTo(new IntervalTrigger(60_000L, firstAt.toEpochMilli()));
    }

    @Test
    void shouldSendCronWithZoneId() {
        client.schedule("t1").jobType("report").cron("0 2 * * *", ZoneId.of("Asia/Shanghai"))
                .backoff(Duration.ofSeconds(10)).submit();

        ScheduleRequest sent = onlySentRequest("t1");
        assertThat(sent.getJobType()).isEqualTo("report");
        assertThat(sent.getTrigger()).isEqualTo(new CronTrigger("0 2 * * *", "Asia/Shanghai"));
        assertThat(sent.getBackoffMs()).isEqualTo(10_000L);
    }

    @Test
    void shouldCopyPayloadSoLaterChangesAreNotSent() {
        byte[] payload = {1, 2, 3};
        ScheduleBuilder builder = client.schedule("t1").jobType("email").after(Duration.ZERO).payload(payload);
        payload[0] = 9;

        assertThat(builder.build().getPayload()).isEqualTo(ByteBuffer.wrap(new byte[] {1, 2, 3}));
    }

    @Test
    void shouldSendToTheConfiguredTopicPrefix() {
        AxClient prefixed = AxClient.create(producer, new AxTopics("staging.ax."), Clock.systemUTC(), ScheduleLimits.defaults());

        prefixed.cancel("t1");

        assertThat(onlySent().topic()).isEqualTo("staging.ax.requests");
    }

    @Test
    void shouldCompleteFutureWhenKafkaAcknowledges() throws Exception {
        CompletableFuture<RecordMetadata> acknowledged = client.schedule("t1").jobType("email").after(Duration.ZERO).submit();
        assertThat(acknowledged).isNotDone();

        producer.completeNext();

        assertThat(acknowledged.get().topic()).isEqualTo("ax.requests");
    }

    @Test
    void shouldFailFutureWhenSendFails() {
        CompletableFuture<RecordMetadata> acknowledged = client.schedule("t1").jobType("email").after(Duration.ZERO).submit();

        producer.errorNext(new TimeoutException("no broker"));

        assertThat(acknowledged).isCompletedExceptionally();
        assertThatThrownBy(acknowledged::get).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(TimeoutException.class).hasMessageContaining("no broker");
    }

    @Test
    void shouldFailFutureInsteadOfThrowingWhenProducerIsClosed() {
        producer.close();

        CompletableFuture<RecordMetadata> acknowledged = client.cancel("t1");

        assertThat(acknowledged).isCompletedExceptionally();
    }

    @Test
    void shouldSendCancelRequestWithReason() {
        client.cancel("invoice-42", "paid");

        ProducerRecord<String, byte[]> sent = onlySent();
        assertThat(sent.key()).isEqualTo("invoice-42");
        assertThat(WireCodec.decodeRequest(sent.value())).isEqualTo(new CancelRequest("paid"));
    }

    @Test
    void shouldSendCancelRequestWithoutReason() {
        client.cancel("invoice-42");

        assertThat(WireCodec.decodeRequest(onlySent().value())).isEqualTo(new CancelRequest(null));
    }

    @Test
    void shouldSendReplayRequest() {
        client.replay("invoice-42", "smtp fixed");

        ProducerRecord<String, byte[]> sent = onlySent();
        assertThat(sent.key()).isEqualTo("invoice-42");
        assertThat(WireCodec.decodeRequest(sent.value())).isEqualTo(new ReplayRequest("smtp fixed"));
    }

    @Test
    void shouldSendTriggerRequest() {
        client.trigger("invoice-42", "month end");

        ProducerRecord<String, byte[]> sent = onlySent();
        assertThat(sent.key()).isEqualTo("invoice-42");
        assertThat(sent.topic()).isEqualTo("ax.requests");
        assertThat(WireCodec.decodeRequest(sent.value())).isEqualTo(new TriggerRequest("month end"));
    }

    @Test
    void shouldSendPauseAndResumeRequests() {
        client.pause("sync-1", "maintenance");
        client.resume("sync-1", null);

        assertThat(producer.history()).extracting(r -> r.key()).containsExactly("sync-1", "sync-1");
        assertThat(WireCodec.decodeRequest(producer.history().get(0).value())).isEqualTo(new io.ax.schema.PauseRequest("maintenance"));
        assertThat(WireCodec.decodeRequest(producer.history().get(1).value())).isEqualTo(new io.ax.schema.ResumeRequest(null));
    }

    @Test
    void shouldRejectAPauseOrResumeWithAnOversizeReasonOrNoTaskIdBeforeSending() {
        assertThatThrownBy(() -> client.pause("sync-1", "x".repeat(1025)))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("reason");
        assertThatThrownBy(() -> client.resume("", null))
                .isInstanceOf(InvalidRequestException.class).hasMessage("missing taskId (the record key)");
        assertThat(producer.history()).isEmpty();
    }

    @Test
    void shouldRejectATriggerWithAnOversizeReasonBeforeSending() {
        assertThatThrownBy(() -> client.trigger("invoice-42", "x".repeat(1025)))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("reason");
        assertThat(producer.history()).isEmpty();
    }

    @Test
    void shouldRejectCancelOfEmptyTaskIdBeforeSending() {
        assertThatThrownBy(() -> client.cancel(""))
                .isInstanceOf(InvalidRequestException.class).hasMessage("missing taskId (the record key)");
        assertThat(producer.history()).isEmpty();
    }

    @Test
    void shouldLeaveProducerItDoesNotOwnOpen() {
        client.close();

        assertThat(producer.closed()).isFalse();
    }

    @Test
    void shouldRequireBootstrapServersToBuild() {
        assertThatThrownBy(() -> AxClient.builder().build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("AxClient has no bootstrap servers: call bootstrapServers(\"host:port\")"
                        + " or give bootstrap.servers in connectionProperties(...)");
        AxClient.builder().connectionProperties(Map.of("bootstrap.servers", "127.0.0.1:1")).build().close();
    }

    @Test
    void shouldHandARealKafkaProducerTheEncodedRequestAndFailTheFutureWhenNoBrokerAnswers() {
        Captured.RECORDS.clear();
        AxClient real = AxClient.builder().bootstrapServers("127.0.0.1:1").clock(Clock.fixed(NOW, ZoneOffset.UTC))
                .producerProperty(ProducerConfig.INTERCEPTOR_CLASSES_CONFIG, Captured.class.getName())
                .producerProperty(ProducerConfig.MAX_BLOCK_MS_CONFIG, 500)
                .build();
        CompletableFuture<RecordMetadata> acknowledged;
        try {
            acknowledged = real.schedule("invoice-42").jobType("email").after(Duration.ofSeconds(30))
                    .payload("{\"to\":\"a@b.c\"}").priority(6).submit();
            assertThat(acknowledged).failsWithin(Duration.ofSeconds(30))
                    .withThrowableOfType(ExecutionException.class).withCauseInstanceOf(TimeoutException.class);
        } finally {
            real.close();
        }

        assertThat(Captured.RECORDS).as("records the real producer was given").hasSize(1);
        ProducerRecord<String, byte[]> sent = Captured.RECORDS.get(0);
        assertThat(sent.topic()).isEqualTo("ax.requests");
        assertThat(sent.key()).isEqualTo("invoice-42");
        assertThat(sent.timestamp()).isEqualTo(NOW.toEpochMilli());
        ScheduleRequest request = (ScheduleRequest) WireCodec.decodeRequest(sent.value());
        assertThat(request.getJobType()).isEqualTo("email");
        assertThat(request.getTrigger()).isEqualTo(new DelayTrigger(30_000L));
        assertThat(request.getPayload()).isEqualTo(ByteBuffer.wrap("{\"to\":\"a@b.c\"}".getBytes(StandardCharsets.UTF_8)));
        assertThat(request.getPriority()).isEqualTo(6);
    }

    /** Sees each record a real {@code KafkaProducer} is given, before it looks for a broker. */
    public static final class Captured implements ProducerInterceptor<String, byte[]> {
        static final List<ProducerRecord<String, byte[]>> RECORDS = new CopyOnWriteArrayList<>();

        @Override
        public ProducerRecord<String, byte[]> onSend(ProducerRecord<String, byte[]> record) {
            RECORDS.add(record);
            return record;
        }

        @Override
        public void onAcknowledgement(RecordMetadata metadata, Exception exception) {
        }

        @Override
        public void close() {
        }

        @Override
        public void configure(Map<String, ?> configs) {
        }
    }

    private ScheduleRequest onlySentRequest(String taskId) {
        ProducerRecord<String, byte[]> sent = onlySent();
        assertThat(sent.topic()).isEqualTo("ax.requests");
        assertThat(sent.key()).isEqualTo(taskId);
        assertThat(WireCodec.decodeRequest(sent.value())).isInstanceOf(ScheduleRequest.class);
        return (ScheduleRequest) WireCodec.decodeRequest(sent.value());
    }

    private ProducerRecord<String, byte[]> onlySent() {
        List<ProducerRecord<String, byte[]>> history = producer.history();
        assertThat(history).hasSize(1);
        return history.get(0);
    }
}
