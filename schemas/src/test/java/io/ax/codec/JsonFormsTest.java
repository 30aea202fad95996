package io.ax.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.ax.schema.SourceRecord;
import io.ax.schema.StateChange;
import io.ax.schema.TaskState;
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
}
