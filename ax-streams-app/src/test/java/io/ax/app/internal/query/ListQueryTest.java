package io.ax.app.internal.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ax.schema.TaskState;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ListQueryTest {
    private static ListQuery parse(Map<String, String> params) {
        return ListQuery.parse(params::get);
    }

    @Test
    void shouldDefaultToTwentyTasksFromTheStart() {
        ListQuery query = parse(Map.of());
        assertThat(query.limit()).isEqualTo(20);
        assertThat(query.after()).isNull();
        assertThat(query.state()).isNull();
    }

    @Test
    void shouldRejectBadParametersWithA400NamingThem() {
        assertThatThrownBy(() -> parse(Map.of("state", "DONE"))).isInstanceOf(HttpError.class)
                .hasMessageStartingWith("state must be one of").satisfies(e -> assertThat(((HttpError) e).status()).isEqualTo(400));
        assertThatThrownBy(() -> parse(Map.of("limit", "1001"))).hasMessage("limit must be 1-1000: \"1001\"");
        assertThatThrownBy(() -> parse(Map.of("limit", "x"))).hasMessage("limit must be 1-1000: \"x\"");
        assertThatThrownBy(() -> parse(Map.of("dueBefore", "soon"))).hasMessageStartingWith("dueBefore must be an ISO-8601");
        assertThatThrownBy(() -> parse(Map.of("cursor", "%%%"))).hasMessageStartingWith("cursor is not one this API gave out");
    }

    @Test
    void shouldTakeDueBeforeAsAnInstantOrEpochMillis() {
        assertThat(parse(Map.of("dueBefore", "2026-12-01T00:00:00Z")).dueBeforeMs()).isEqualTo(1_796_083_200_000L);
        assertThat(parse(Map.of("dueBefore", "1796083200000")).dueBeforeMs()).isEqualTo(1_796_083_200_000L);
    }

    @Test
    void shouldSurviveTheTripToAnotherInstance() {
        ListQuery query = new ListQuery(TaskState.FAILED, "email", "team a&b", 5L, 7, "task-é/1");
        Map<String, String> params = new HashMap<>();
        for (String pair : query.toQueryString().split("&")) {
            String[] kv = pair.split("=", 2);
            params.put(kv[0], URLDecoder.decode(kv[1], StandardCharsets.UTF_8));
        }
        assertThat(parse(params)).isEqualTo(query);
    }

    @Test
    void shouldMatchEveryFilterGiven() {
        ListQuery query = new ListQuery(TaskState.PENDING, "email", null, 100L, 20, null);
        assertThat(query.matches(TaskState.PENDING, "email", "x", 99L)).isTrue();
        assertThat(query.matches(TaskState.PENDING, "email", "x", 100L)).as("before, not at").isFalse();
        assertThat(query.matches(TaskState.PENDING, "email", "x", null)).isFalse();
        assertThat(query.matches(TaskState.FAILED, "email", "x", 99L)).isFalse();
        assertThat(query.matches(TaskState.PENDING, "sync", "x", 99L)).isFalse();
    }
}
