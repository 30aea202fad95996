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
import io.ax.validation.ScheduleLimits;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.producer.MockProducer;
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
    void shouldUseSchemaDefaultsForUnsetOptions() {
        ScheduleRequest request = client.schedule("t1").jobType("email").after(Duration.ofSeconds(5)).build();

        assertThat(request.getTrigger()).isEqualTo(new DelayTrigger(5_000L));
        assertThat(request.getPriority()).isEqualTo(4);
        assertThat(request.getMaxRetries()).isEqualTo(3);
        assertThat(request.getTimeoutMs()).isNull();
        assertThat(request.getBackoffMs()).isNull();
        assertThat(request.getBackoffIntervalsMs()).isEmpty();
        assertThat(request.getIfExists()).isEqualTo(IfExists.KEEP);
        assertThat(request.getPayload()).isNull();
    }

    @Test
    void shouldSendIntervalWithAndWithoutFirstOccurrence() {
        Instant firstAt = Instant.parse("2026-01-01T00:10:00Z");

        assertThat(client.schedule("t1").jobType("sync").every(Duration.ofMinutes(1)).build().getTrigger())
                .isEqualTo(new IntervalTrigger(60_000L, null));
        assertThat(client.schedule("t1").jobType("sync").every(Duration.ofMinutes(1), firstAt).build().getTrigger())
                .isEqualTo(new IntervalTrigger(60_000L, firstAt.toEpochMilli()));
    }

    @Test
    void shouldSendCronWithZoneId() {
        ScheduleRequest request = client.schedule("t1").jobType("report").cron("0 2 * * *", ZoneId.of("Asia/Shanghai"))
                .backoff(Duration.ofSeconds(10)).build();

        assertThat(request.getTrigger()).isEqualTo(new CronTrigger("0 2 * * *", "Asia/Shanghai"));
        assertThat(request.getBackoffMs()).isEqualTo(10_000L);
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
                .hasMessage("AxClient has no bootstrap servers: call bootstrapServers(\"host:port\")");
    }

    @Test
    void shouldBuildWithARealKafkaProducerFromTheDefaults() {
        AxClient real = AxClient.builder().bootstrapServers("127.0.0.1:1").producerProperty("linger.ms", 1).build();

        real.close();
    }

    private ProducerRecord<String, byte[]> onlySent() {
        List<ProducerRecord<String, byte[]>> history = producer.history();
        assertThat(history).hasSize(1);
        return history.get(0);
    }
}
