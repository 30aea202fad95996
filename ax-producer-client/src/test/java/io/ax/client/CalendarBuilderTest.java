package io.ax.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ax.AxTopics;
import io.ax.InvalidRequestException;
import io.ax.codec.WireCodec;
import io.ax.schema.CalendarRequest;
import io.ax.schema.ScheduleRequest;
import io.ax.validation.ScheduleLimits;
import java.time.Clock;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

class CalendarBuilderTest {
    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    private final MockProducer<String, byte[]> producer =
            new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer());
    private final AxClient client = AxClient.create(producer, AxTopics.defaults(), Clock.fixed(NOW, ZoneOffset.UTC),
            ScheduleLimits.defaults());

    @Test
    void shouldSendACalendarKeyedByItsName() {
        client.calendar("berlin").zone(ZoneId.of("Europe/Berlin")).excludeDates(LocalDate.of(2026, 12, 25))
                .excludeRange(LocalDate.of(2026, 12, 24), LocalDate.of(2026, 12, 31))
                .excludeWeekdays(DayOfWeek.SATURDAY, DayOfWeek.SUNDAY)
                .excludeDaily(LocalTime.of(22, 0), LocalTime.of(6, 0, 30)).description("office").set().join();

        assertThat(producer.history()).singleElement().satisfies(record -> {
            assertThat(record.key()).isEqualTo("berlin");
            CalendarRequest sent = WireCodec.decodeBinary(record.value(), CalendarRequest.class);
            assertThat(sent.getZone()).isEqualTo("Europe/Berlin");
            assertThat(sent.getExcludeDates()).containsExactly("2026-12-25");
            assertThat(sent.getExcludeWeekdays()).containsExactly("SATURDAY", "SUNDAY");
            assertThat(sent.getExcludeDaily().get(0).getFrom()).isEqualTo("22:00");
            assertThat(sent.getExcludeDaily().get(0).getTo()).isEqualTo("06:00:30");
            assertThat(sent.getDelete()).isFalse();
        });
    }

    @Test
    void shouldRefuseACalendarThatExcludesEverythingWithoutSendingIt() {
        assertThatThrownBy(() -> client.calendar("never").excludeWeekdays(DayOfWeek.values()).set())
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("excludes all seven weekdays");
        assertThatThrownBy(() -> client.calendar("year").excludeRange(LocalDate.of(2025, 1, 1), LocalDate.of(2027, 6, 1)).set())
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("excludes every instant").hasMessageContaining("366 days");
        assertThatThrownBy(() -> client.calendar("empty").excludeDaily(LocalTime.NOON, LocalTime.NOON).set())
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("empty or the whole day");
        assertThatThrownBy(() -> client.calendar("back").excludeRange(LocalDate.of(2026, 2, 1), LocalDate.of(2026, 1, 1)).set())
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("is before from");
        assertThatThrownBy(() -> client.calendar("").set()).isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("missing calendar name");
        assertThat(producer.history()).isEmpty();
    }

    @Test
    void shouldDeleteACalendarAndNameOneInASchedule() {
        client.deleteCalendar("berlin").join();
        client.schedule("t").jobType("sync").every(Duration.ofMinutes(1)).calendar("berlin").submit().join();

        assertThat(WireCodec.decodeBinary(producer.history().get(0).value(), CalendarRequest.class).getDelete()).isTrue();
        assertThat(WireCodec.decodeBinary(producer.history().get(1).value(), ScheduleRequest.class).getCalendar()).isEqualTo("berlin");
        assertThatThrownBy(() -> client.schedule("o").jobType("sync").after(Duration.ZERO).calendar("berlin").submit())
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("calendar goes with a periodic trigger");
    }
}
