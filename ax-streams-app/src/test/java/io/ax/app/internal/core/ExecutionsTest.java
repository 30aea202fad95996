package io.ax.app.internal.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.ax.schema.StoredExecution;
import io.ax.schema.TaskState;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class ExecutionsTest {

    @Test
    void shouldBuildTheFirstAttemptAsAvrosBuilderWouldWithTheSchemasDefaults() {
        StoredExecution built = StoredExecution.newBuilder()
                .setExecutionId("e-1").setAttempt(1).setState(TaskState.PENDING)
                .setDueAtMs(1_000).setFiredAtMs(2_000).setLastSignMs(2_000)
                .build();

        StoredExecution first = Executions.first("e-1", 1_000, 2_000);

        assertThat(first).isEqualTo(built);
        first.getErrors().add(null); // its own lists, not shared ones
        assertThat(Executions.first("e-2", 1, 2).getErrors()).isEmpty();
    }

    @Test
    void shouldBuildANewTaskAsAvrosBuilderWouldWithTheSchemasDefaults() {
        io.ax.schema.ScheduleRequest request = io.ax.schema.ScheduleRequest.newBuilder().setJobType("email")
                .setTrigger(new io.ax.schema.AtTrigger(1_000L)).build();
        io.ax.schema.StoredTask built = io.ax.schema.StoredTask.newBuilder()
                .setTaskId("t-1").setIncarnation(42).setRequest(request).setAcceptedAtMs(500).setNextDueAtMs(1_000L)
                .build();

        io.ax.schema.StoredTask task = Executions.newTask("t-1", 42, request, 500, 1_000L);

        assertThat(task).isEqualTo(built);
        task.getHistory().add(null); // its own collections, not shared ones
        task.getDependencyOutcomes().put("a", "b");
        assertThat(Executions.newTask("t-2", 1, request, 1, null).getHistory()).isEmpty();
        assertThat(Executions.newTask("t-2", 1, request, 1, null).getDependencyOutcomes()).isEmpty();
    }

    @Test
    void shouldMakeTheSameNameBasedUuidsAsTheJdk() {
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 2_000; i++) {
            byte[] name = new byte[random.nextInt(0, 300)];
            for (int j = 0; j < name.length; j++) {
                name[j] = (byte) random.nextInt(256);
            }
            assertThat(ExecutionIds.nameUuid(name)).isEqualTo(UUID.nameUUIDFromBytes(name));
        }
        String name = "ax-execution\nt-1\n42\n1700000000000";
        assertThat(ExecutionIds.of("t-1", 42, 1_700_000_000_000L))
                .isEqualTo(UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8)).toString());
    }
}
