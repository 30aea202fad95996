package io.ax.app.internal.query;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ax.schema.AtTrigger;
import io.ax.schema.ScheduleRequest;
import io.ax.schema.StoredTask;
import org.junit.jupiter.api.Test;

/** {@code GET /tasks/{id}} of a task counted by its owner's maxLiveTasks (topology-docs/FLOW-CONTROL.md). */
class TaskViewAdmissionTest {
    private static StoredTask.Builder task() {
        return StoredTask.newBuilder().setTaskId("t1").setIncarnation(0).setAcceptedAtMs(0L).setNextDueAtMs(5_000L)
                .setRequest(ScheduleRequest.newBuilder().setJobType("j").setOwner("acme").setTrigger(new AtTrigger(5_000L)).build());
    }

    @Test
    void shouldShowTheLiveGateAndWhileItAwaitsAdmissionSinceWhen() {
        ObjectNode awaiting = TaskView.of(task().setAdmissionGate("live:owner:acme").setAdmissionId("t1#0").setAdmissionSinceMs(1_000L)
                .build(), 0, "host:1");
        assertThat(awaiting.get("admission").get("gate").asText()).isEqualTo("live:owner:acme");
        assertThat(awaiting.get("admission").get("awaitingSince").asText()).isEqualTo("1970-01-01T00:00:01Z");
        ObjectNode admitted = TaskView.of(task().setAdmissionGate("live:owner:acme").setAdmissionId("t1#0").build(), 0, "host:1");
        assertThat(admitted.get("admission").has("awaitingSince")).isFalse();
        assertThat(TaskView.of(task().build(), 0, "host:1").has("admission")).as("not counted by a quota").isFalse();
    }
}
