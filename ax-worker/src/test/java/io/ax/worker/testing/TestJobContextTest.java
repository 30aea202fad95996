package io.ax.worker.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class TestJobContextTest {
    @Test
    void shouldReadTheFieldsItWasBuiltWith() {
        TestJobContext context = TestJobContext.builder("invoice-42").executionId("e-1").attempt(2).jobType("email")
                .payload("{\"to\":\"a@b.c\"}").dueAt(Instant.parse("2026-12-01T02:00:00Z")).owner("billing").priority(7)
                .timeout(Duration.ofSeconds(90)).lastProgress("page 3").build();

        assertThat(context.taskId()).isEqualTo("invoice-42");
        assertThat(context.executionId()).isEqualTo("e-1");
        assertThat(context.attempt()).isEqualTo(2);
        assertThat(context.jobType()).isEqualTo("email");
        assertThat(context.payloadAsString()).isEqualTo("{\"to\":\"a@b.c\"}");
        assertThat(context.dueAt()).isEqualTo(Instant.parse("2026-12-01T02:00:00Z"));
        assertThat(context.owner()).isEqualTo("billing");
        assertThat(context.priority()).isEqualTo(7);
        assertThat(context.timeout()).isEqualTo(Duration.ofSeconds(90));
        assertThat(context.lastProgress()).contains("page 3");
    }

    @Test
    void shouldCarryTheSliceOfAShardedTask() {
        TestJobContext slice = TestJobContext.builder("scan").shard(3, 16).build();
        assertThat(slice.shardIndex()).isEqualTo(3);
        assertThat(slice.shardCount()).isEqualTo(16);
        TestJobContext whole = TestJobContext.builder("scan").build();
        assertThat(whole.shardIndex()).isZero();
        assertThat(whole.shardCount()).isEqualTo(1);
        assertThatThrownBy(() -> TestJobContext.builder("scan").shard(16, 16)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldDefaultAsDocumented() {
        TestJobContext context = TestJobContext.builder("t1").build();

        assertThat(context.executionId()).isEqualTo("t1-execution");
        assertThat(context.attempt()).isEqualTo(1);
        assertThat(context.jobType()).isEqualTo("test");
        assertThat(context.payload()).isNull();
        assertThat(context.payloadAsString()).isNull();
        assertThat(context.dueAt()).isEqualTo(Instant.EPOCH);
        assertThat(context.owner()).isNull();
        assertThat(context.priority()).isEqualTo(4);
        assertThat(context.timeout()).isEqualTo(Duration.ofMinutes(5));
        assertThat(context.lastProgress()).isEmpty();
        assertThat(context.isCancelled()).isFalse();
    }

    @Test
    void shouldHandOutAFreshPayloadCopyOnEachCall() {
        byte[] given = {1, 2, 3};
        TestJobContext context = TestJobContext.builder("t1").payload(given).build();
        given[0] = 9;

        byte[] first = context.payload();
        first[1] = 9;

        assertThat(context.payload()).containsExactly(1, 2, 3);
    }

    @Test
    void shouldKeepTimesToTheMillisecondAsTheWireDoes() {
        TestJobContext context = TestJobContext.builder("t1").dueAt(Instant.parse("2026-12-01T02:00:00.123456789Z"))
                .timeout(Duration.ofNanos(1_500_000)).build();

        assertThat(context.dueAt()).isEqualTo(Instant.parse("2026-12-01T02:00:00.123Z"));
        assertThat(context.timeout()).isEqualTo(Duration.ofMillis(1));
    }

    @Test
    void shouldRecordSavedProgressAndRefuseACheckpointOverTheLimitAsTheWorkerDoes() {
        TestJobContext context = TestJobContext.builder("t1").build();

        context.saveProgress("row 1000");
        context.saveProgress("row 2000");

        assertThat(context.savedProgress()).containsExactly("row 1000", "row 2000");
        assertThatThrownBy(() -> context.saveProgress("x".repeat(4097)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("progress is longer than 4096 chars: 4097");
        assertThatThrownBy(() -> context.saveProgress(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("progress must not be null");
        assertThat(context.savedProgress()).hasSize(2);
    }

    @Test
    void shouldCountHeartbeatsAndSeeACancelFromTheTest() {
        TestJobContext context = TestJobContext.builder("t1").build();

        context.heartbeat();
        context.heartbeat();
        context.cancel();

        assertThat(context.heartbeats()).isEqualTo(2);
        assertThat(context.isCancelled()).isTrue();
    }
}
