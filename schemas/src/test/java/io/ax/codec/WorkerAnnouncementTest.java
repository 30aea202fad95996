package io.ax.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ax.InvalidRequestException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class WorkerAnnouncementTest {
    private static final String FULL = "{\"workerId\":\"host-1-4242\",\"host\":\"host-1\",\"version\":\"1.0.0\","
            + "\"heartbeatMs\":10000,\"startedAt\":\"2026-12-03T10:00:00Z\",\"jobTypes\":[\"email\"],"
            + "\"lanes\":[{\"jobType\":\"email\",\"limit\":4,\"running\":1,\"waiting\":0}],"
            + "\"inFlight\":[{\"executionId\":\"e-1\",\"taskId\":\"t-1\",\"jobType\":\"email\",\"attempt\":1}],\"inFlightCount\":1}";

    private static WorkerAnnouncement parse(String key, String json) {
        return WorkerAnnouncement.parse(key, json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void shouldReadTheDocumentedFormAndWriteItBackTheSame() {
        WorkerAnnouncement announcement = parse("host-1-4242", FULL);

        assertThat(announcement.heartbeatMs()).isEqualTo(10_000);
        assertThat(announcement.lanes()).containsExactly(new WorkerAnnouncement.Lane("email", 4, 1, 0));
        assertThat(announcement.inFlight()).containsExactly(new WorkerAnnouncement.InFlight("e-1", "t-1", "email", 1));
        assertThat(new String(announcement.toJson(), StandardCharsets.UTF_8)).isEqualTo(FULL);
    }

    @Test
    void shouldTakeTheLeastAnnouncementAndIgnoreFieldsItDoesNotKnow() {
        WorkerAnnouncement announcement = parse("w", "{\"workerId\":\"w\",\"heartbeatMs\":100,\"newerField\":{\"x\":1}}");

        assertThat(announcement.jobTypes()).isEmpty();
        assertThat(announcement.inFlightCount()).isZero();
        assertThat(announcement.host()).isNull();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "w | [] | an announcement is a JSON object",
            "w | {\"heartbeatMs\":1000} | missing workerId",
            "w | {\"workerId\":\"v\",\"heartbeatMs\":1000} | is not the record key",
            "w | {\"workerId\":\"w\"} | missing heartbeatMs",
            "w | {\"workerId\":\"w\",\"heartbeatMs\":99} | heartbeatMs must be from 100 to 3600000",
            "w | {\"workerId\":\"w\",\"heartbeatMs\":1e3} | heartbeatMs must be a whole number",
            "w | {\"workerId\":\"w\",\"heartbeatMs\":\"1000\"} | heartbeatMs must be a whole number",
            "w | {\"workerId\":\"w\",\"heartbeatMs\":1000,\"workerId\":\"w\"} | malformed JSON",
            "w | {\"workerId\":\"w\",\"heartbeatMs\":1000} trailing | malformed JSON",
            "w | {\"workerId\":\"w\",\"heartbeatMs\":1000,\"jobTypes\":\"email\"} | jobTypes must be an array",
            "w | {\"workerId\":\"w\",\"heartbeatMs\":1000,\"jobTypes\":[\"a b\"]} | jobTypes[] must be 1-128 chars",
            "w | {\"workerId\":\"w\",\"heartbeatMs\":1000,\"lanes\":[{\"jobType\":\"e\",\"limit\":0}]} | limit must be from 1",
            "w | {\"workerId\":\"w\",\"heartbeatMs\":1000,\"lanes\":[{\"jobType\":\"e\",\"limit\":1,\"running\":-1}]} | running must be from 0",
            "w | {\"workerId\":\"w\",\"heartbeatMs\":1000,\"lanes\":[7]} | lanes[] must be an object",
            "w | {\"workerId\":\"w\",\"heartbeatMs\":1000,\"inFlight\":[{\"taskId\":\"t\"}]} | missing executionId",
            "w | {\"workerId\":\"w\",\"heartbeatMs\":1000,\"inFlight\":[{\"executionId\":\"e\"}],\"inFlightCount\":0} | ''",
            "w | {\"workerId\":\"w\",\"heartbeatMs\":1000,\"startedAt\":\"yesterday\"} | startedAt must be an ISO-8601 instant",
            "w | {\"workerId\":\"w\",\"heartbeatMs\":1000,\"host\":\"a\\nb\"} | host has control characters",
    })
    void shouldRefuseWithTheReason(String key, String json, String reason) {
        if (reason.isEmpty()) {
            parse(key, json); // inFlightCount 0 means "as many as listed"
            return;
        }
        assertThatThrownBy(() -> parse(key, json)).isInstanceOf(InvalidRequestException.class).hasMessageContaining(reason);
    }

    @Test
    void shouldRefuseOversizeValuesListsAndFieldsBeforeStoringThem() {
        assertThatThrownBy(() -> WorkerAnnouncement.parse("w", new byte[WorkerAnnouncement.MAX_VALUE_BYTES + 1]))
                .hasMessageContaining("bytes, more than an announcement takes");
        String manyJobTypes = "[" + String.join(",", java.util.Collections.nCopies(101, "\"e\"")) + "]";
        assertThatThrownBy(() -> parse("w", "{\"workerId\":\"w\",\"heartbeatMs\":1000,\"jobTypes\":" + manyJobTypes + "}"))
                .hasMessageContaining("jobTypes has 101 entries, more than 100");
        String longHost = "h".repeat(256);
        assertThatThrownBy(() -> parse("w", "{\"workerId\":\"w\",\"heartbeatMs\":1000,\"host\":\"" + longHost + "\"}"))
                .hasMessageContaining("host is longer than 255 chars");
        assertThatThrownBy(() -> parse("k".repeat(257), "{}")).hasMessageContaining("key is longer than 256 chars");
        assertThatThrownBy(() -> parse("", "{}")).hasMessageContaining("missing key");
        assertThatThrownBy(() -> WorkerAnnouncement.parse("w", null)).hasMessageContaining("tombstone");
        String deep = "[".repeat(100) + "]".repeat(100);
        assertThatThrownBy(() -> parse("w", "{\"workerId\":\"w\",\"heartbeatMs\":1000,\"x\":" + deep + "}"))
                .hasMessageContaining("malformed JSON");
    }

    @Test
    void shouldFitTheLargestAnnouncementTheBoundsAllowInTheValueLimit() {
        String id = "i".repeat(256);
        String jobType = "j".repeat(128);
        List<WorkerAnnouncement.Lane> lanes = java.util.Collections.nCopies(WorkerAnnouncement.MAX_LANES,
                new WorkerAnnouncement.Lane(jobType, 1_000_000, 1_000_000, 1_000_000));
        List<WorkerAnnouncement.InFlight> inFlight = java.util.Collections.nCopies(WorkerAnnouncement.MAX_IN_FLIGHT_LISTED,
                new WorkerAnnouncement.InFlight(id, id, jobType, 1_000_000));
        WorkerAnnouncement largest = new WorkerAnnouncement(id, "h".repeat(255), "v".repeat(64), 3_600_000, 0L,
                java.util.Collections.nCopies(WorkerAnnouncement.MAX_JOB_TYPES, jobType), lanes, inFlight, 1_000_000);

        byte[] json = largest.toJson();
        assertThat(json.length).isLessThanOrEqualTo(WorkerAnnouncement.MAX_VALUE_BYTES);
        assertThat(WorkerAnnouncement.parse(id, json)).isEqualTo(largest);
    }
}
