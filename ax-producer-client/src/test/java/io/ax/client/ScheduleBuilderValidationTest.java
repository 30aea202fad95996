package io.ax.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ax.AxTopics;
import io.ax.InvalidRequestException;
import io.ax.schema.MisfirePolicy;
import io.ax.validation.ScheduleLimits;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

class ScheduleBuilderValidationTest {
    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    private final MockProducer<String, byte[]> producer =
            new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer());
    private final AxClient client = AxClient.create(producer, AxTopics.defaults(), Clock.fixed(NOW, ZoneOffset.UTC),
            new ScheduleLimits(16, 1000));

    @Test
    void shouldBuildATaskThatWaitsForOthersWithoutATriggerOfItsOwn() {
        io.ax.schema.ScheduleRequest built = client.schedule("report").jobType("report")
                .after("extract", io.ax.schema.DependencyCondition.SUCCESS).after("cleanup-old", io.ax.schema.DependencyCondition.COMPLETED)
                .afterDelay(Duration.ofSeconds(5)).afterTimeout(Duration.ofHours(2)).runAnywayWhenUnmet().build();
        assertThat(built.getAfter()).extracting(d -> d.getTaskId() + ":" + d.getOn()).containsExactly("extract:SUCCESS", "cleanup-old:COMPLETED");
        assertThat(built.getTrigger()).isEqualTo(new io.ax.schema.DelayTrigger(0L));
        assertThat(built.getAfterDelayMs()).isEqualTo(5000);
        assertThat(built.getAfterTimeoutMs()).isEqualTo(7_200_000);
        assertThat(built.getAfterRunAnyway()).isTrue();
    }

    @Test
    void shouldRejectATaskThatWaitsForItselfOrTwiceForOneTask() {
        assertRejected(() -> client.schedule("t1").jobType("j").after("t1", io.ax.schema.DependencyCondition.SUCCESS).submit(),
                "after", "after: a task cannot wait for itself: \"t1\"");
        assertRejected(() -> client.schedule("t1").jobType("j").after("a", io.ax.schema.DependencyCondition.SUCCESS)
                .after("a", io.ax.schema.DependencyCondition.FAILURE).submit(), "after", "after: taskId \"a\" is named twice");
        assertRejected(() -> client.schedule("t1").jobType("j").every(Duration.ofMinutes(1))
                .after("a", io.ax.schema.DependencyCondition.SUCCESS).afterDelay(Duration.ofSeconds(1)).submit(), "afterDelayMs",
                "afterDelayMs goes with a one-shot task");
    }

    @Test
    void shouldBuildAPeriodicTaskThatWaitsForAnother() {
        io.ax.schema.ScheduleRequest built = client.schedule("report").jobType("report").cron("0 2 * * *", java.time.ZoneId.of("UTC"))
                .after("export", io.ax.schema.DependencyCondition.SUCCESS).afterTimeout(Duration.ofMinutes(20)).build();
        assertThat(built.getAfter()).hasSize(1);
        assertThat(built.getAfterTimeoutMs()).isEqualTo(1_200_000);
    }

    @Test
    void shouldBuildAShardedTaskAndRejectShardsOutOfBounds() {
        assertRejected(() -> client.schedule("scan").jobType("scan").after(Duration.ZERO).shards(2).submit(), "shards",
                "shards 2 with a payload of 0 bytes: the slices' state (4096 bytes per slice beyond the first) and the payload"
                        + " need 4096 bytes, more than the payload limit of 16");
        AxClient roomy = AxClient.create(producer, AxTopics.defaults(), Clock.fixed(NOW, ZoneOffset.UTC),
                new ScheduleLimits(262_144, 1000));
        io.ax.schema.ScheduleRequest built = roomy.schedule("scan").jobType("scan").after(Duration.ZERO).shards(16)
                .onShardFailure(io.ax.schema.ShardFailurePolicy.LET_FINISH).build();
        assertThat(built.getShards()).isEqualTo(16);
        assertThat(built.getShardFailure()).isEqualTo(io.ax.schema.ShardFailurePolicy.LET_FINISH);
        assertRejected(() -> client.schedule("t1").jobType("j").after(Duration.ZERO).shards(0).submit(),
                "shards", "shards must be between 1 and 64: 0");
        assertRejected(() -> client.schedule("t1").jobType("j").after(Duration.ZERO).shards(-2).submit(),
                "shards", "shards must be between 1 and 64: -2");
        assertRejected(() -> client.schedule("t1").jobType("j").after(Duration.ZERO).shards(65).submit(),
                "shards", "shards must be between 1 and 64: 65");
        assertRejected(() -> client.schedule("t1").jobType("j").every(Duration.ofMinutes(1)).overlap(io.ax.schema.OverlapPolicy.ALLOW)
                .shards(2).submit(), "shards", "shards > 1 does not go with overlap ALLOW");
        assertRejected(() -> client.schedule("t1").jobType("j").after(Duration.ZERO)
                .onShardFailure(io.ax.schema.ShardFailurePolicy.LET_FINISH).submit(), "shardFailure", "shardFailure goes with shards > 1 only");
    }

    @Test
    void shouldRejectNegativeDelay() {
        assertRejected(() -> client.schedule("t1").jobType("email").after(Duration.ofSeconds(-1)).submit(),
                "delayMs", "delayMs must be between 0 and");
    }

    @Test
    void shouldRejectAZeroStartToCloseTimeoutNamingIt() {
        assertRejected(() -> client.schedule("t1").jobType("email").after(Duration.ZERO)
                        .startToCloseTimeout(Duration.ZERO).submit(),
                "startToCloseTimeoutMs", "startToCloseTimeoutMs must be between 1 and");
    }

    @Test
    void shouldSendTheTimeoutKinds() throws Exception {
        client.schedule("t1").jobType("email").after(Duration.ZERO).timeout(Duration.ofSeconds(1))
                .scheduleToStartTimeout(Duration.ofMinutes(1)).startToCloseTimeout(Duration.ofMinutes(10))
                .heartbeatTimeout(Duration.ofSeconds(20)).submit().get();
        io.ax.schema.ScheduleRequest sent = io.ax.codec.WireCodec.decodeBinary(producer.history().get(0).value(),
                io.ax.schema.ScheduleRequest.class);
        assertThat(sent.getTimeoutMs()).isEqualTo(1_000L);
        assertThat(sent.getScheduleToStartTimeoutMs()).isEqualTo(60_000L);
        assertThat(sent.getStartToCloseTimeoutMs()).isEqualTo(600_000L);
        assertThat(sent.getHeartbeatTimeoutMs()).isEqualTo(20_000L);
    }

    @Test
    void shouldRejectPriorityTen() {
        assertRejected(() -> client.schedule("t1").jobType("email").after(Duration.ZERO).priority(10).submit(),
                "priority", "priority must be 0-9: 10");
    }

    @Test
    void shouldRejectBadCronExpression() {
        assertRejected(() -> client.schedule("t1").jobType("report").cron("61 2 * * *", ZoneId.of("UTC")).submit(),
                "cron", "bad cron expression \"61 2 * * *\"");
    }

    @Test
    void shouldRejectUnknownZone() {
        assertRejected(() -> client.schedule("t1").jobType("report").cron("0 2 * * *", "Mars/Olympus_Mons").submit(),
                "zone", "unknown time zone \"Mars/Olympus_Mons\"");
    }

    @Test
    void shouldRejectOversizePayload() {
        assertRejected(() -> client.schedule("t1").jobType("email").after(Duration.ZERO).payload(new byte[17]).submit(),
                "payload", "payload is 17 bytes, more than the limit of 16");
    }

    @Test
    void shouldRejectIntervalShorterThanTheLimit() {
        assertRejected(() -> client.schedule("t1").jobType("sync").every(Duration.ofMillis(999)).submit(),
                "everyMs", "everyMs must be between 1000 and");
    }

    @Test
    void shouldRejectBadJobType() {
        assertRejected(() -> client.schedule("t1").jobType("send email").after(Duration.ZERO).submit(),
                "jobType", "jobType must be 1-128 chars");
    }

    @Test
    void shouldRejectEmptyTaskId() {
        assertRejected(() -> client.schedule("").jobType("email").after(Duration.ZERO).submit(),
                "taskId", "missing taskId");
    }

    @Test
    void shouldRejectNegativeMaxRetries() {
        assertRejected(() -> client.schedule("t1").jobType("email").after(Duration.ZERO).maxRetries(-1).submit(),
                "maxRetries", "maxRetries must be between 0 and 100: -1");
    }

    @Test
    void shouldRejectZeroBackoffInterval() {
        assertRejected(() -> client.schedule("t1").jobType("email").after(Duration.ZERO)
                        .backoffIntervals(Duration.ofSeconds(5), Duration.ZERO).submit(),
                "backoffIntervalsMs", "every backoffIntervalsMs entry must be between 1 and");
    }

    @Test
    void shouldRejectDelayThatOverflowsMilliseconds() {
        assertRejected(() -> client.schedule("t1").jobType("email").after(Duration.ofSeconds(Long.MAX_VALUE)),
                "delayMs", "delayMs is out of range");
    }

    @Test
    void shouldRejectAnEndBeforeTheStart() {
        assertRejected(() -> client.schedule("t1").jobType("sync").every(Duration.ofMinutes(1), NOW.plusSeconds(3600))
                        .endAt(NOW).submit(),
                "endAt", "endAt 2026-01-01T00:00:00Z is before startAt 2026-01-01T01:00:00Z");
        assertRejected(() -> client.schedule("t1").jobType("report").cron("0 2 * * *", "UTC").endAt(NOW.plusSeconds(3600)).submit(),
                "endAt", "endAt 2026-01-01T01:00:00Z is before the first occurrence, 2026-01-01T02:00:00Z");
    }

    @Test
    void shouldRejectAMaximumCountBelowOne() {
        assertRejected(() -> client.schedule("t1").jobType("sync").every(Duration.ofMinutes(1)).maxOccurrences(0).submit(),
                "maxOccurrences", "maxOccurrences must be >= 1: 0");
    }

    @Test
    void shouldRejectPeriodicOptionsOnAOneShotAndJitterBeyondTheInterval() {
        assertRejected(() -> client.schedule("t1").jobType("email").after(Duration.ZERO).misfire(MisfirePolicy.SKIP).submit(),
                "misfire", "misfire goes with a periodic trigger (everyMs or cron) only");
        assertRejected(() -> client.schedule("t1").jobType("sync").every(Duration.ofSeconds(10))
                        .occurrenceJitter(Duration.ofSeconds(11)).submit(),
                "occurrenceJitterMs", "occurrenceJitterMs must be between 0 and 10000");
        assertRejected(() -> client.schedule("t1").jobType("sync").every(Duration.ofSeconds(10)).maxCatchUp(0).submit(),
                "maxCatchUp", "maxCatchUp must be between 1 and 10000: 0");
    }

    @Test
    void shouldRejectAnOverlapPolicyOnAOneShotOrNone() {
        assertRejected(() -> client.schedule("t1").jobType("email").after(Duration.ZERO)
                        .overlap(io.ax.schema.OverlapPolicy.QUEUE_ONE).submit(),
                "overlap", "overlap goes with a periodic trigger (everyMs or cron) only");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> client.schedule("t1").overlap(null))
                .isInstanceOf(NullPointerException.class).hasMessage("overlap");
        assertThat(producer.history()).isEmpty();
    }

    @Test
    void shouldSendTheOverlapPolicyAndAnUpdate() {
        client.schedule("t1").jobType("sync").every(Duration.ofMinutes(1)).overlap(io.ax.schema.OverlapPolicy.QUEUE_ONE)
                .ifExists(io.ax.schema.IfExists.UPDATE).submit();
        io.ax.schema.ScheduleRequest sent = io.ax.codec.WireCodec.decodeBinary(producer.history().get(0).value(),
                io.ax.schema.ScheduleRequest.class);
        assertThat(sent.getOverlap()).isEqualTo(io.ax.schema.OverlapPolicy.QUEUE_ONE);
        assertThat(sent.getIfExists()).isEqualTo(io.ax.schema.IfExists.UPDATE);
    }

    @Test
    void shouldRejectAQuartzExpressionCronUtilsRefuses() {
        assertRejected(() -> client.schedule("t1").jobType("report").cron("0 0 12 L * 5", "UTC").submit(),
                "cron", "bad cron expression \"0 0 12 L * 5\"");
    }

    @Test
    void shouldSendTheQuartzFormAndThePeriodicOptions() {
        client.schedule("t1").jobType("report").cron("0 0 12 ? * 6#3", "Europe/Berlin").endAt(NOW.plusSeconds(365 * 86_400L))
                .maxOccurrences(12).misfire(MisfirePolicy.FIRE_ALL).maxCatchUp(2).occurrenceJitter(Duration.ofSeconds(30)).submit();
        io.ax.schema.ScheduleRequest sent = io.ax.codec.WireCodec.decodeBinary(producer.history().get(0).value(),
                io.ax.schema.ScheduleRequest.class);
        assertThat(sent.getMisfire()).isEqualTo(MisfirePolicy.FIRE_ALL);
        assertThat(sent.getMaxOccurrences()).isEqualTo(12L);
        assertThat(sent.getMaxCatchUp()).isEqualTo(2);
        assertThat(sent.getOccurrenceJitterMs()).isEqualTo(30_000L);
        assertThat(sent.getEndAtMs()).isEqualTo(NOW.plusSeconds(365 * 86_400L).toEpochMilli());
    }

    @Test
    void shouldRequireJobType() {
        assertThatThrownBy(() -> client.schedule("t1").after(Duration.ZERO).submit())
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("schedule(\"t1\") has no jobType: call jobType(...) before submit()");
        assertThat(producer.history()).isEmpty();
    }

    @Test
    void shouldRequireTrigger() {
        assertThatThrownBy(() -> client.schedule("t1").jobType("email").submit())
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("schedule(\"t1\") has no trigger: call one of at(...), after(...), every(...) or cron(...) before submit()");
        assertThat(producer.history()).isEmpty();
    }

    @Test
    void shouldRejectSecondTrigger() {
        ScheduleBuilder builder = client.schedule("t1").jobType("email").at(NOW);

        assertThatThrownBy(() -> builder.after(Duration.ofSeconds(5)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("schedule(\"t1\") already has the trigger at(2026-01-01T00:00:00Z); "
                        + "a task has exactly one trigger, so after(PT5S) cannot be added");
    }

    private void assertRejected(ThrowingCallable call, String field, String messageStart) {
        assertThatThrownBy(call)
                .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo(field))
                .hasMessageStartingWith(messageStart);
        assertThat(producer.history()).as("nothing is sent").isEmpty();
    }
}
