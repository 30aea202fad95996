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
    void shouldCopyEveryFieldOfAnExecutionAsAvrosBuilderWould() {
        StoredExecution full = StoredExecution.newBuilder()
                .setExecutionId("e-1").setAttempt(3).setState(TaskState.RUNNING).setDueAtMs(1_000).setFiredAtMs(2_000)
                .setLastSignMs(3_000).setLastError("boom").setErrors(new java.util.ArrayList<>(java.util.List.of(
                        io.ax.schema.AttemptError.newBuilder().setAttempt(2).setAtMs(2_500).setMessage("first").build())))
                .setRetryAtMs(4_000L).setProgress("half").setTimeoutAtMs(5_000L).setWorkerId("w-1").setStartedAtMs(2_100L)
                .setDeadlineAtMs(6_000L).setHeldSinceMs(1_500L).setGates(new java.util.ArrayList<>(java.util.List.of("type:j")))
                .setShard(7).build();
        for (org.apache.avro.Schema.Field field : StoredExecution.getClassSchema().getFields()) {
            Object value = full.get(field.pos());
            assertThat(value).as("every field set apart from its default, so a field copyOf leaves out fails: " + field.name())
                    .isNotNull().isNotEqualTo(field.hasDefaultValue() ? org.apache.avro.specific.SpecificData.get().getDefaultValue(field) : null);
        }

        assertThat(Executions.copyOf(full).build()).isEqualTo(StoredExecution.newBuilder(full).build()).isEqualTo(full);
        assertThat(Executions.copyOf(full).setState(TaskState.SUCCESS).build())
                .isEqualTo(StoredExecution.newBuilder(full).setState(TaskState.SUCCESS).build());
        assertThat(full.getState()).as("the copy, not the execution, changed").isEqualTo(TaskState.RUNNING);
        StoredExecution withoutLists = new StoredExecution("e-2", 1, TaskState.PENDING, 1L, 2L, 2L, null, null, null, null,
                null, null, null, null, null, null, null);
        assertThat(Executions.copyOf(withoutLists).build()).as("a list left null takes the default, as Avro's builder does")
                .isEqualTo(StoredExecution.newBuilder(withoutLists).build());
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
