package io.ax.app.internal.query;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ax.schema.AtTrigger;
import io.ax.schema.ScheduleRequest;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;
import org.junit.jupiter.api.Test;

class TaskViewTimeoutsTest {
    private static StoredTask task(ScheduleRequest request, StoredExecution execution) {
        return StoredTask.newBuilder().setTaskId("t1").setIncarnation(0).setRequest(request).setAcceptedAtMs(0L)
                .setExecution(execution).build();
    }

    @Test
    void shouldShowTheTimeoutKindsAndTheRunningDeadlineOnlyWhenSet() {
        StoredExecution running = StoredExecution.newBuilder().setExecutionId("e1").setAttempt(1).setState(TaskState.RUNNING)
                .setDueAtMs(0L).setFiredAtMs(0L).setLastSignMs(1_000L).setStartedAtMs(1_000L).setDeadlineAtMs(61_000L).build();
        ObjectNode json = TaskView.of(task(ScheduleRequest.newBuilder().setJobType("j").setTrigger(new AtTrigger(0L))
                .setScheduleToStartTimeoutMs(30_000L).setStartToCloseTimeoutMs(60_000L).setHeartbeatTimeoutMs(5_000L).build(),
                running), 0, "host:1");
        assertThat(json.get("scheduleToStartTimeoutMs").asLong()).isEqualTo(30_000L);
        assertThat(json.get("startToCloseTimeoutMs").asLong()).isEqualTo(60_000L);
        assertThat(json.get("heartbeatTimeoutMs").asLong()).isEqualTo(5_000L);
        assertThat(json.get("execution").get("startedAt").asText()).isEqualTo("1970-01-01T00:00:01Z");
        assertThat(json.get("execution").get("deadlineAt").asText()).isEqualTo("1970-01-01T00:01:01Z");

        StoredExecution triggered = StoredExecution.newBuilder(running).setState(TaskState.TRIGGERED).setStartedAtMs(null)
                .setDeadlineAtMs(null).build();
        ObjectNode plain = TaskView.of(task(ScheduleRequest.newBuilder().setJobType("j").setTrigger(new AtTrigger(0L)).build(),
                triggered), 0, "host:1");
        assertThat(plain.has("scheduleToStartTimeoutMs")).isFalse();
        assertThat(plain.get("execution").has("startedAt")).isFalse();
        assertThat(plain.get("execution").has("deadlineAt")).isFalse();
    }
}
