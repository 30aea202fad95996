package io.ax.app.internal.query;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.ax.schema.Dependency;
import io.ax.schema.DependencyCondition;
import io.ax.schema.IntervalTrigger;
import io.ax.schema.ScheduleRequest;
import io.ax.schema.StoredTask;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TaskViewPeriodicDependenciesTest {
    @Test
    void shouldShowEachUpstreamsLatestOccurrenceAndThatASkippedOneMeetsNothing() {
        StoredTask task = StoredTask.newBuilder().setTaskId("report").setIncarnation(0).setAcceptedAtMs(0L).setNextDueAtMs(120_000L)
                .setRequest(ScheduleRequest.newBuilder().setJobType("report").setTrigger(new IntervalTrigger(60_000L, null))
                        .setAfter(List.of(new Dependency("export", DependencyCondition.COMPLETED),
                                new Dependency("load", DependencyCondition.SUCCESS))).build())
                .setDependencyOutcomes(Map.of("export", "SKIPPED", "load", "SUCCESS"))
                .setUpstreamNominalAtMs(Map.of("export", 90_000L, "load", 60_000L)).build();
        JsonNode conditions = TaskView.of(task, 0, "host:1").get("after").get("conditions");
        assertThat(conditions.get(0).get("occurrenceDueAt").asText()).isEqualTo("1970-01-01T00:01:30Z");
        assertThat(conditions.get(0).get("met").asBoolean()).isFalse();
        assertThat(conditions.get(1).get("occurrenceDueAt").asText()).isEqualTo("1970-01-01T00:01:00Z");
        assertThat(conditions.get(1).get("met").asBoolean()).isTrue();
    }
}
