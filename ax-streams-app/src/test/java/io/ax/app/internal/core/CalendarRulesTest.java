package io.ax.app.internal.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.ax.codec.JsonForms;
import io.ax.schema.CalendarRequest;
import io.ax.schema.SourceRecord;
import io.ax.schema.StateChange;
import io.ax.schema.TaskState;
import io.ax.validation.ScheduleLimits;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Calendar requests decided by the rules alone: the calendars as a lookup, no Kafka, no task read. */
class CalendarRulesTest {
    private static final long NOW = 1_796_083_200_000L; // 2026-12-01T00:00:00Z
    private static final SourceRecord SOURCE = new SourceRecord("ax.requests", 0, 7L);

    private final Set<String> stored = new HashSet<>();
    private final Rules rules = new Rules(new RuleSettings(300_000, 1_000, 600_000, 604_800_000, 0, 60_000,
            ScheduleLimits.defaults(), true, true), new CalendarLookup() {
        @Override
        public io.ax.calendar.ExclusionCalendar find(String name) {
            throw new AssertionError("a calendar request compiles no stored calendar");
        }

        @Override
        public boolean exists(String name) {
            return stored.contains(name);
        }
    }, FlowLimits.NONE);

    @Test
    void shouldPublishAValidCalendarWithItsAcceptedLineAndLeaveTheTaskStoreAlone() {
        Decision decision = decide("holidays", "{\"calendar\":{\"excludeDates\":[\"2026-12-25\"],\"description\":\"Xmas\"}}");

        assertThat(decision.store()).isEqualTo(Decision.Store.UNCHANGED);
        assertThat(decision.effects()).hasSize(2);
        Effect.PublishCalendar published = (Effect.PublishCalendar) decision.effects().get(0);
        assertThat(published.name()).isEqualTo("holidays");
        assertThat(published.request().getExcludeDates()).hasSize(1);
        Effect.CalendarAccepted accepted = (Effect.CalendarAccepted) decision.effects().get(1);
        assertThat(accepted.name()).isEqualTo("holidays");
        assertThat(accepted.reason()).startsWith("calendar set: excludes ").contains("(Xmas)")
                .endsWith("; applies to the next occurrences of every task naming it");
        assertThat(accepted.source()).isEqualTo(SOURCE);
    }

    @Test
    void shouldPublishATombstoneForTheDeleteOfAStoredCalendar() {
        stored.add("holidays");

        Decision decision = decide("holidays", "{\"deleteCalendar\":true}");

        assertThat(((Effect.PublishCalendar) decision.effects().get(0)).request()).isNull();
        assertThat(((Effect.CalendarAccepted) decision.effects().get(1)).reason())
                .isEqualTo("calendar deleted: tasks naming it run unexcluded from their next occurrence on");
    }

    @Test
    void shouldIgnoreTheDeleteOfACalendarThatDoesNotExist() {
        Decision decision = decide("nope", "{\"deleteCalendar\":true}");

        assertThat(decision.effects()).hasSize(1);
        Effect.Event event = (Effect.Event) decision.effects().get(0);
        assertThat(event.code()).isEqualTo(EventCode.UNKNOWN_TASK);
        StateChange change = event.change();
        assertThat(change.getTaskId()).isEqualTo("nope");
        assertThat(change.getCalendar()).isEqualTo("nope");
        assertThat(change.getTo()).isEqualTo(TaskState.IGNORED);
        assertThat(change.getReason()).isEqualTo("delete of calendar \"nope\", which does not exist");
        assertThat(change.getAtMs()).isEqualTo(NOW);
        assertThat(change.getSource()).isEqualTo(SOURCE);
    }

    @Test
    void shouldRejectAnInvalidCalendarNamingItInTheEventAndTheReason() {
        Decision decision = decide("c", "{\"calendar\":{\"zone\":\"Mars/Olympus\"}}");

        assertThat(decision.store()).isEqualTo(Decision.Store.UNCHANGED);
        assertThat(decision.effects()).hasSize(1);
        Effect.Event event = (Effect.Event) decision.effects().get(0);
        assertThat(event.code()).isEqualTo(EventCode.INVALID_FIELD);
        assertThat(event.change().getTo()).isEqualTo(TaskState.REJECTED);
        assertThat(event.change().getTaskId()).isEqualTo("c");
        assertThat(event.change().getCalendar()).isEqualTo("c");
        assertThat(event.change().getReason()).startsWith("calendar \"c\" rejected: ");
        assertThat(event.change().getSource()).isEqualTo(SOURCE);
    }

    private Decision decide(String name, String json) {
        CalendarRequest request = (CalendarRequest) JsonForms.parseRequest(json.getBytes(StandardCharsets.UTF_8));
        return rules.decide(null, new Input.Calendar(name, request, SOURCE), NOW);
    }
}
