package io.ax.app.internal.topology;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.ax.AxHeaders;
import io.ax.app.internal.topology.SchedulerHarness.Dispatched;
import io.ax.codec.WireCodec;
import io.ax.schema.AtTrigger;
import io.ax.schema.CancelRequest;
import io.ax.schema.ScheduleRequest;
import java.util.List;
import org.junit.jupiter.api.Test;

class AcceptScheduleRequestTest {

    @Test
    void shouldAcceptABinaryRequestAsPending() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ScheduleRequest request = ScheduleRequest.newBuilder().setJobType("report")
                    .setTrigger(new AtTrigger(ax.nowMs() + 500)).build();
            ax.requestBytes("r1", WireCodec.encode(request));
            JsonNode pending = ax.events().get(0);
            assertThat(pending.get("taskId").asText()).isEqualTo("r1");
            assertThat(pending.get("to").asText()).isEqualTo("PENDING");
            assertThat(pending.get("dueAt").asText()).isEqualTo("2026-12-01T00:00:00.500Z");
            assertThat(pending.get("jobType").asText()).isEqualTo("report");
            assertThat(pending.has("from")).isFalse();
            ax.advanceMs(500);
            Dispatched fired = ax.dispatches().get(0);
            assertThat(fired.executionId()).isEqualTo(pending.get("executionId").asText());
        }
    }

    @Test
    void shouldCountADelayFromTheRequestTimestamp() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.advanceMs(250);
            ax.request("t1", "{\"jobType\":\"email\",\"delayMs\":1000}");
            assertThat(ax.events().get(0).get("dueAt").asText()).isEqualTo("2026-12-01T00:00:01.250Z");
        }
    }

    @Test
    void shouldIgnoreADuplicateOfALiveTaskByDefault() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("t1", "{\"jobType\":\"email\",\"delayMs\":1000}");
            ax.request("t1", "{\"jobType\":\"email\",\"delayMs\":200}");
            List<JsonNode> events = ax.events();
            assertThat(events).extracting(e -> e.get("to").asText()).containsExactly("PENDING", "IGNORED");
            assertThat(events.get(1).get("reason").asText()).contains("ifExists=KEEP");
            assertThat(events.get(1).get("source").get("offset").asLong()).isEqualTo(1);
            ax.advanceMs(200);
            assertThat(ax.dispatches()).isEmpty();
            ax.advanceMs(800);
            assertThat(ax.dispatches()).hasSize(1);
            ax.advanceMs(5000);
            assertThat(ax.dispatches()).isEmpty();
        }
    }

    @Test
    void shouldReplaceALiveTaskWhenAsked() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("t1", "{\"jobType\":\"email\",\"delayMs\":1000}");
            ax.request("t1", "{\"jobType\":\"sms\",\"delayMs\":200,\"ifExists\":\"REPLACE\"}");
            List<JsonNode> events = ax.events();
            assertThat(events).extracting(e -> e.get("to").asText()).containsExactly("PENDING", "CANCELLED", "PENDING");
            assertThat(events.get(1).get("executionId")).isEqualTo(events.get(0).get("executionId"));
            assertThat(events.get(2).get("executionId")).isNotEqualTo(events.get(0).get("executionId"));
            ax.advanceMs(200);
            assertThat(ax.dispatches()).singleElement().satisfies(d -> assertThat(d.task().getJobType()).isEqualTo("sms"));
            ax.advanceMs(2000);
            assertThat(ax.dispatches()).isEmpty();
        }
    }

    @Test
    void shouldAcceptTheSameTaskIdAgainOnceTheTaskFinished() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("t1", "{\"jobType\":\"email\",\"delayMs\":0}");
            ax.advanceMs(10);
            Dispatched first = ax.dispatches().get(0);
            ax.report("t1", "{\"executionId\":\"" + first.executionId() + "\",\"attempt\":1,\"status\":\"SUCCEEDED\"}");
            ax.request("t1", "{\"jobType\":\"email\",\"delayMs\":0}");
            ax.advanceMs(10);
            Dispatched second = ax.dispatches().get(0);
            assertThat(second.executionId()).isNotEqualTo(first.executionId());
        }
    }

    @Test
    void shouldCancelAPendingTask() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("t1", "{\"jobType\":\"email\",\"delayMs\":1000}");
            ax.request("t1", "{\"cancel\":true,\"reason\":\"customer left\"}");
            List<JsonNode> events = ax.events();
            assertThat(events).extracting(e -> e.get("to").asText()).containsExactly("PENDING", "CANCELLED");
            assertThat(events.get(1).get("from").asText()).isEqualTo("PENDING");
            assertThat(events.get(1).get("reason").asText()).isEqualTo("cancelled: customer left");
            ax.advanceMs(5000);
            assertThat(ax.dispatches()).isEmpty();
        }
    }

    @Test
    void shouldSendACancelSignalWhenCancellingATriggeredTask() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("t1", "{\"jobType\":\"email\",\"delayMs\":0}");
            ax.advanceMs(10);
            Dispatched run = ax.dispatches().get(0);
            ax.requestBytes("t1", WireCodec.encode(new CancelRequest("stop")));
            Dispatched cancel = ax.dispatches().get(0);
            assertThat(cancel.header(AxHeaders.KIND)).isEqualTo("CANCEL");
            assertThat(cancel.executionId()).isEqualTo(run.executionId());
            assertThat(ax.transitions()).containsExactly("PENDING", "TRIGGERED", "CANCELLED");
            ax.report("t1", "{\"executionId\":\"" + run.executionId() + "\",\"attempt\":1,\"status\":\"SUCCEEDED\"}");
            assertThat(ax.transitions()).containsExactly("IGNORED");
        }
    }

    @Test
    void shouldAnswerACancelOfAnUnknownOrFinishedTaskWithIgnored() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("ghost", "{\"cancel\":true}");
            assertThat(ax.events()).singleElement().satisfies(e -> {
                assertThat(e.get("to").asText()).isEqualTo("IGNORED");
                assertThat(e.get("reason").asText()).isEqualTo("cancel: no such task");
            });
            ax.request("t1", "{\"jobType\":\"email\",\"delayMs\":1000}");
            ax.request("t1", "{\"cancel\":true}");
            ax.request("t1", "{\"cancel\":true}");
            assertThat(ax.events()).last().satisfies(e -> assertThat(e.get("reason").asText())
                    .isEqualTo("cancel: task already ended (CANCELLED)"));
        }
    }

    @Test
    void shouldStopAPeriodicTaskWhenCancelled() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("sync", "{\"jobType\":\"sync\",\"everyMs\":1000}");
            ax.advanceMs(1000);
            Dispatched run = ax.dispatches().get(0);
            ax.report("sync", "{\"executionId\":\"" + run.executionId() + "\",\"attempt\":1,\"status\":\"SUCCEEDED\"}");
            ax.request("sync", "{\"cancel\":true}");
            ax.advanceMs(5000);
            assertThat(ax.dispatches()).isEmpty();
        }
    }

    @Test
    void shouldScheduleACronTaskInItsZone() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            // T0 is 08:00 in Shanghai; "0 9 * * *" there is 01:00 UTC.
            ax.request("daily", "{\"jobType\":\"report\",\"cron\":\"0 9 * * *\",\"zone\":\"Asia/Shanghai\"}");
            assertThat(ax.events().get(0).get("dueAt").asText()).isEqualTo("2026-12-01T01:00:00Z");
        }
    }
}
