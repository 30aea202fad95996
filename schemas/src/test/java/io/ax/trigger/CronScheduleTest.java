package io.ax.trigger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ax.InvalidRequestException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The cron rules over real daylight-saving transitions (tzdata of the JDK): a local time in a gap fires once at the
 * first instant after it, one that happens twice fires once at the first. cron-utils alone drops the first and
 * doubles the second for sub-hourly expressions (see {@link CronSchedule}); these cases fail against it.
 */
class CronScheduleTest {

    /** The next {@code n} fire instants after {@code from}, as offset date-times in the schedule's zone. */
    private static List<String> next(String expression, String zone, String from, int n) {
        CronSchedule cron = CronSchedule.parse(expression, zone);
        List<String> out = new ArrayList<>();
        long t = Instant.parse(from).toEpochMilli();
        for (int i = 0; i < n; i++) {
            OptionalLong next = cron.nextAfter(t);
            if (next.isEmpty()) {
                break;
            }
            t = next.getAsLong();
            out.add(OffsetDateTime.ofInstant(Instant.ofEpochMilli(t), cron.zone()).toString());
        }
        return out;
    }

    @Test
    void shouldFireADailyJobInTheSpringForwardGapAtTheFirstInstantAfterIt() {
        // New York, 2026-03-08: 02:00 EST -> 03:00 EDT.
        assertThat(next("30 2 * * *", "America/New_York", "2026-03-07T12:00:00Z", 3))
                .containsExactly("2026-03-08T03:00-04:00",
                        "2026-03-09T02:30-04:00", "2026-03-10T02:30-04:00");
        // Berlin, 2026-03-29: 02:00 CET -> 03:00 CEST.
        assertThat(next("30 2 * * *", "Europe/Berlin", "2026-03-28T12:00:00Z", 2))
                .containsExactly("2026-03-29T03:00+02:00", "2026-03-30T02:30+02:00");
        // Lord Howe, 2026-10-04: 02:00 +10:30 -> 02:30 +11:00 (a 30-minute shift).
        assertThat(next("15 2 * * *", "Australia/Lord_Howe", "2026-10-03T00:00:00Z", 2))
                .containsExactly("2026-10-04T02:30+11:00", "2026-10-05T02:15+11:00");
    }

    @Test
    void shouldFireEveryLocalTimeOfAGapOnceTogetherWithTheOccurrenceThatEndsIt() {
        assertThat(next("*/20 * * * *", "America/New_York", "2026-03-08T06:30:00Z", 4))
                .containsExactly("2026-03-08T01:40-05:00", "2026-03-08T03:00-04:00", "2026-03-08T03:20-04:00",
                        "2026-03-08T03:40-04:00");
        assertThat(next("10,40 2 * * *", "Australia/Lord_Howe", "2026-10-03T00:00:00Z", 3))
                .as("02:10 is in the gap, 02:40 is not").containsExactly("2026-10-04T02:30+11:00", "2026-10-04T02:40+11:00",
                        "2026-10-05T02:10+11:00");
    }

    @Test
    void shouldFireALocalTimeThatHappensTwiceOnlyAtTheFirst() {
        // New York, 2026-11-01: 02:00 EDT -> 01:00 EST.
        assertThat(next("30 1 * * *", "America/New_York", "2026-10-31T12:00:00Z", 2))
                .containsExactly("2026-11-01T01:30-04:00", "2026-11-02T01:30-05:00");
        assertThat(next("*/30 * * * *", "America/New_York", "2026-11-01T04:45:00Z", 4))
                .containsExactly("2026-11-01T01:00-04:00", "2026-11-01T01:30-04:00", "2026-11-01T02:00-05:00",
                        "2026-11-01T02:30-05:00");
        // Berlin, 2026-10-25: 03:00 CEST -> 02:00 CET.
        assertThat(next("0,30 2 * * *", "Europe/Berlin", "2026-10-24T12:00:00Z", 3))
                .containsExactly("2026-10-25T02:00+02:00", "2026-10-25T02:30+02:00", "2026-10-26T02:00+01:00");
        // Lord Howe, 2026-04-05: 02:00 +11:00 -> 01:30 +10:30.
        assertThat(next("45 1 * * *", "Australia/Lord_Howe", "2026-04-04T00:00:00Z", 2))
                .containsExactly("2026-04-05T01:45+11:00", "2026-04-06T01:45+10:30");
        assertThat(next("*/15 1 * * *", "Australia/Lord_Howe", "2026-04-04T14:20:00Z", 3))
                .containsExactly("2026-04-05T01:30+11:00", "2026-04-05T01:45+11:00", "2026-04-06T01:00+10:30");
    }

    @Test
    void shouldNotRepeatTheRepeatedHourWhenAskedFromInsideItsSecondPass() {
        // 01:10 EST is the second 01:10 of the day: the 01:15 and 01:45 matches already fired in the first pass.
        assertThat(next("15,45 * * * *", "America/New_York", "2026-11-01T06:10:00Z", 2))
                .containsExactly("2026-11-01T02:15-05:00", "2026-11-01T02:45-05:00");
    }

    @Test
    void shouldReadQuartzExpressionsWithSecondsLastDayNearestWeekdayAndNth() {
        assertThat(next("*/15 * * * * ?", "UTC", "2026-12-01T00:00:00Z", 2))
                .containsExactly("2026-12-01T00:00:15Z", "2026-12-01T00:00:30Z");
        assertThat(next("0 0 12 L * ?", "UTC", "2026-01-01T00:00:00Z", 2))
                .containsExactly("2026-01-31T12:00Z", "2026-02-28T12:00Z");
        assertThat(next("0 0 12 ? * 6#3", "UTC", "2026-01-01T00:00:00Z", 2)).as("third Friday (Quartz: 1 = Sunday)")
                .containsExactly("2026-01-16T12:00Z", "2026-02-20T12:00Z");
        assertThat(next("0 0 9 15W * ? 2026", "Europe/Berlin", "2026-08-01T00:00:00Z", 2))
                .as("15 Aug 2026 is a Saturday: the nearest weekday is Friday 14th")
                .containsExactly("2026-08-14T09:00+02:00", "2026-09-15T09:00+02:00");
    }

    @Test
    void shouldTakeTheNextOccurrenceStrictlyAfterAnInstantWithMilliseconds() {
        CronSchedule everyMinute = CronSchedule.parse("* * * * *", "UTC");
        long t = Instant.parse("2026-12-01T00:01:00Z").toEpochMilli();
        assertThat(everyMinute.nextAfter(t - 1)).hasValue(t);
        assertThat(everyMinute.nextAfter(t)).hasValue(t + 60_000);
        assertThat(everyMinute.nextAfter(t + 500)).hasValue(t + 60_000);
        CronSchedule everySecond = CronSchedule.parse("* * * * * ?", "Europe/Berlin");
        assertThat(everySecond.nextAfter(t + 86)).as("on the whole second, not a second after the instant").hasValue(t + 1_000);
        assertThat(everySecond.nextAfter(t + 999)).hasValue(t + 1_000);
        assertThat(everySecond.nextAfter(t + 1_000)).hasValue(t + 2_000);
    }

    @Test
    void shouldHaveNoNextOccurrenceForADateThatNeverComesOrIsPast() {
        assertThat(CronSchedule.parse("0 0 30 2 *", "UTC").nextAfter(0)).isEmpty();
        assertThat(CronSchedule.parse("0 0 12 * * ? 2020", "UTC").nextAfter(Instant.parse("2026-01-01T00:00:00Z").toEpochMilli()))
                .isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "61 * * * *          | UTC        | bad cron expression",
            "every day           | UTC        | it has 2 fields",
            "0 0 12 * * * * * *  | UTC        | it has 9 fields",
            "0 0 12 L * 5        | UTC        | bad cron expression",
            "0 2 * * *           | Mars/Base  | unknown time zone \"Mars/Base\"",
    })
    void shouldRefuseABadExpressionOrZoneNamingIt(String expression, String zone, String message) {
        assertThatThrownBy(() -> CronSchedule.parse(expression, zone)).isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining(message);
    }
}
