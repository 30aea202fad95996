package io.ax.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ax.InvalidRequestException;
import io.ax.schema.CronTrigger;
import io.ax.schema.MisfirePolicy;
import io.ax.schema.ScheduleRequest;
import io.ax.schema.SourceRecord;
import io.ax.schema.StateChange;
import io.ax.schema.TaskState;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class JsonFormsTest {

    @Test
    void shouldWriteTheStableStateChangeFormWithoutNullFields() {
        StateChange transition = StateChange.newBuilder().setTaskId("invoice-42").setExecutionId("e-1").setAttempt(2)
                .setFrom("RETRY_WAITING").setTo(TaskState.TRIGGERED).setAtMs(1_796_090_400_123L).setDueAtMs(1_796_090_400_000L)
                .setJobType("email").setReason("retry 1 of 3 \"quoted\"").build();
        assertThat(JsonForms.stateChangeJson(transition)).isEqualTo("{\"taskId\":\"invoice-42\",\"executionId\":\"e-1\","
                + "\"attempt\":2,\"from\":\"RETRY_WAITING\",\"to\":\"TRIGGERED\",\"at\":\"2026-12-01T02:00:00.123Z\","
                + "\"dueAt\":\"2026-12-01T02:00:00Z\",\"jobType\":\"email\",\"reason\":\"retry 1 of 3 \\\"quoted\\\"\"}");

        StateChange rejection = StateChange.newBuilder().setTo(TaskState.REJECTED).setAtMs(0L).setReason("empty value")
                .setSource(new SourceRecord("ax.requests", 3, 42L)).build();
        assertThat(JsonForms.stateChangeJson(rejection)).isEqualTo("{\"to\":\"REJECTED\",\"at\":\"1970-01-01T00:00:00Z\","
                + "\"reason\":\"empty value\",\"source\":{\"topic\":\"ax.requests\",\"partition\":3,\"offset\":42}}");
    }

    @Test
    void shouldReadThePeriodicOptionsOfAScheduleRequest() {
        ScheduleRequest request = (ScheduleRequest) JsonForms.parseRequest(("{\"jobType\":\"sync\",\"everyMs\":60000,"
                + "\"startAt\":\"2026-12-01T00:00:00Z\",\"endAt\":\"2026-12-02T00:00:00Z\",\"maxOccurrences\":10,"
                + "\"misfire\":\"FIRE_ALL\",\"maxCatchUp\":5,\"occurrenceJitterMs\":30000}").getBytes(StandardCharsets.UTF_8));
        assertThat(request.getEndAtMs()).isEqualTo(1_796_169_600_000L);
        assertThat(request.getMaxOccurrences()).isEqualTo(10L);
        assertThat(request.getMisfire()).isEqualTo(MisfirePolicy.FIRE_ALL);
        assertThat(request.getMaxCatchUp()).isEqualTo(5);
        assertThat(request.getOccurrenceJitterMs()).isEqualTo(30_000L);

        ScheduleRequest defaults = (ScheduleRequest) JsonForms.parseRequest("{\"jobType\":\"r\",\"cron\":\"0 0 12 L * ?\"}"
                .getBytes(StandardCharsets.UTF_8));
        assertThat(defaults.getMisfire()).isEqualTo(MisfirePolicy.FIRE_ONCE);
        assertThat(defaults.getEndAtMs()).isNull();
        assertThat(defaults.getMaxOccurrences()).isNull();
        assertThat(defaults.getOccurrenceJitterMs()).isZero();
        assertThat(((CronTrigger) defaults.getTrigger()).getZone()).isEqualTo("UTC");
    }

    @Test
    void shouldReadTheTimeoutKindsOfAScheduleRequestAndTheExtensionOfAHeartbeat() {
        ScheduleRequest request = (ScheduleRequest) JsonForms.parseRequest(("{\"jobType\":\"j\",\"delayMs\":0,"
                + "\"timeoutMs\":1000,\"scheduleToStartTimeoutMs\":30000,\"startToCloseTimeoutMs\":60000,"
                + "\"heartbeatTimeoutMs\":5000}").getBytes(StandardCharsets.UTF_8));
        assertThat(request.getTimeoutMs()).isEqualTo(1000L);
        assertThat(request.getScheduleToStartTimeoutMs()).isEqualTo(30_000L);
        assertThat(request.getStartToCloseTimeoutMs()).isEqualTo(60_000L);
        assertThat(request.getHeartbeatTimeoutMs()).isEqualTo(5_000L);
        ScheduleRequest plain = (ScheduleRequest) JsonForms.parseRequest("{\"jobType\":\"j\",\"delayMs\":0}"
                .getBytes(StandardCharsets.UTF_8));
        assertThat(plain.getScheduleToStartTimeoutMs()).isNull();
        assertThat(plain.getStartToCloseTimeoutMs()).isNull();
        assertThat(plain.getHeartbeatTimeoutMs()).isNull();

        assertThat(JsonForms.parseReport("{\"executionId\":\"e\",\"attempt\":1,\"status\":\"HEARTBEAT\",\"extendMs\":60000}"
                .getBytes(StandardCharsets.UTF_8)).getExtendMs()).isEqualTo(60_000L);
        assertThat(JsonForms.parseReport("{\"executionId\":\"e\",\"attempt\":1,\"status\":\"HEARTBEAT\"}"
                .getBytes(StandardCharsets.UTF_8)).getExtendMs()).isNull();
    }

    @Test
    void shouldRefuseAnUnknownMisfirePolicyAndStillRefuseUnknownFields() {
        assertThatThrownBy(() -> JsonForms.parseRequest("{\"jobType\":\"s\",\"everyMs\":1000,\"misfire\":\"LATER\"}"
                .getBytes(StandardCharsets.UTF_8))).isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("misfire must be one of [FIRE_ONCE, FIRE_ALL, SKIP]");
        assertThatThrownBy(() -> JsonForms.parseRequest("{\"jobType\":\"s\",\"everyMs\":1000,\"endsAt\":0}"
                .getBytes(StandardCharsets.UTF_8))).isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("unknown field endsAt");
    }

    @Test
    void shouldWriteHowManyOccurrencesASkippedEventStandsFor() {
        StateChange skipped = StateChange.newBuilder().setTaskId("t").setTo(TaskState.SKIPPED).setAtMs(0L).setDueAtMs(1_000L)
                .setSkipped(3L).setLastDueAtMs(3_000L).setReason("misfire").build();
        assertThat(JsonForms.stateChangeJson(skipped)).isEqualTo("{\"taskId\":\"t\",\"to\":\"SKIPPED\","
                + "\"at\":\"1970-01-01T00:00:00Z\",\"dueAt\":\"1970-01-01T00:00:01Z\",\"reason\":\"misfire\",\"skipped\":3,"
                + "\"lastDueAt\":\"1970-01-01T00:00:03Z\"}");
    }
}
