package io.ax.app.internal.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ax.schema.SourceRecord;
import io.ax.schema.StateChange;
import io.ax.schema.TaskState;
import java.util.SplittableRandom;
import org.apache.avro.AvroMissingFieldException;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

class ChangeTest {

    @Test
    void shouldBuildWhatAvrosBuilderBuildsWhicheverFieldsAreSet() {
        SplittableRandom random = new SplittableRandom(20261206L);
        for (int i = 0; i < 2_000; i++) {
            StateChange.Builder avro = StateChange.newBuilder();
            Change ours = new Change();
            TaskState to = TaskState.values()[random.nextInt(TaskState.values().length)];
            long atMs = random.nextLong();
            avro.setTo(to).setAtMs(atMs);
            ours.setTo(to).setAtMs(atMs);
            // each optional field left unset, set to null or set to a value, as the rules' chains do
            if (random.nextBoolean()) { String v = text(random); avro.setTaskId(v); ours.setTaskId(v); }
            if (random.nextBoolean()) { String v = text(random); avro.setExecutionId(v); ours.setExecutionId(v); }
            if (random.nextBoolean()) { Integer v = random.nextBoolean() ? null : random.nextInt(); avro.setAttempt(v); ours.setAttempt(v); }
            if (random.nextBoolean()) { String v = text(random); avro.setFrom(v); ours.setFrom(v); }
            if (random.nextBoolean()) { Long v = random.nextBoolean() ? null : random.nextLong(); avro.setDueAtMs(v); ours.setDueAtMs(v); }
            if (random.nextBoolean()) { String v = text(random); avro.setJobType(v); ours.setJobType(v); }
            if (random.nextBoolean()) { String v = text(random); avro.setReason(v); ours.setReason(v); }
            if (random.nextBoolean()) {
                SourceRecord v = random.nextBoolean() ? null : new SourceRecord("ax.requests", random.nextInt(64), random.nextLong());
                avro.setSource(v);
                ours.setSource(v);
            }
            if (random.nextBoolean()) { Long v = random.nextBoolean() ? null : random.nextLong(); avro.setSkipped(v); ours.setSkipped(v); }
            if (random.nextBoolean()) { Long v = random.nextBoolean() ? null : random.nextLong(); avro.setLastDueAtMs(v); ours.setLastDueAtMs(v); }
            if (random.nextBoolean()) { String v = text(random); avro.setCalendar(v); ours.setCalendar(v); }
            if (random.nextBoolean()) { Integer v = random.nextBoolean() ? null : random.nextInt(); avro.setShard(v); ours.setShard(v); }
            if (random.nextBoolean()) { Integer v = random.nextBoolean() ? null : random.nextInt(); avro.setShards(v); ours.setShards(v); }

            assertThat(ours.build()).isEqualTo(avro.build());
        }
    }

    @Test
    void shouldKnowEveryFieldOfTheSchema() {
        // a field added to StateChange must be added to Change (its constructor call stops compiling; this names why)
        assertThat(StateChange.getClassSchema().getFields()).extracting(Schema.Field::name).containsExactly("taskId", "executionId",
                "attempt", "from", "to", "atMs", "dueAtMs", "jobType", "reason", "source", "skipped", "lastDueAtMs", "calendar",
                "shard", "shards");
    }

    @Test
    void shouldRefuseAChangeWithoutItsRequiredFieldsAsAvrosBuilderDoes() {
        assertThatThrownBy(() -> StateChange.newBuilder().setAtMs(1L).build()).isInstanceOf(AvroMissingFieldException.class);
        assertThatThrownBy(() -> new Change().setAtMs(1L).build()).isInstanceOf(NullPointerException.class).hasMessageContaining("'to'");
        assertThatThrownBy(() -> StateChange.newBuilder().setTo(TaskState.PENDING).build()).isInstanceOf(AvroMissingFieldException.class);
        assertThatThrownBy(() -> new Change().setTo(TaskState.PENDING).build()).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("'atMs'");
    }

    private static String text(SplittableRandom random) {
        return random.nextInt(4) == 0 ? null : "v" + random.nextInt(1_000);
    }
}
