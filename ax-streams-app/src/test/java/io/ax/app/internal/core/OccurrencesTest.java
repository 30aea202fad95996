package io.ax.app.internal.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ax.InvalidRequestException;
import io.ax.schema.AtTrigger;
import io.ax.schema.CronTrigger;
import io.ax.schema.DelayTrigger;
import io.ax.schema.IntervalTrigger;
import io.ax.schema.ScheduleRequest;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class OccurrencesTest {
    private static final long T0 = Instant.parse("2026-12-01T00:00:00Z").toEpochMilli();

    private static ScheduleRequest request(Object trigger) {
        return ScheduleRequest.newBuilder().setJobType("j").setTrigger(trigger).build();
    }

    @Test
    void shouldTimeTheFirstOccurrenceOfEachTrigger() {
        assertThat(Occurrences.firstDue(request(new AtTrigger(T0 + 5)), -1)).isEqualTo(T0 + 5);
        assertThat(Occurrences.firstDue(request(new DelayTrigger(5_000L)), T0)).isEqualTo(T0 + 5_000);
        assertThat(Occurrences.firstDue(request(new IntervalTrigger(60_000L, null)), T0)).isEqualTo(T0 + 60_000);
        assertThat(Occurrences.firstDue(request(new IntervalTrigger(60_000L, T0 + 7L)), -1)).isEqualTo(T0 + 7);
        assertThat(Occurrences.firstDue(request(new CronTrigger("0 2 * * *", "Asia/Shanghai")), T0))
                .isEqualTo(Instant.parse("2026-12-01T18:00:00Z").toEpochMilli());
    }

    @Test
    void shouldRefuseARecordTimestampOutOfRangeWhereATriggerCountsFromIt() {
        assertThatThrownBy(() -> Occurrences.firstDue(request(new DelayTrigger(5L)), -1))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("record timestamp");
        assertThatThrownBy(() -> Occurrences.firstDue(request(new IntervalTrigger(100L, null)), Long.MAX_VALUE - 1))
                .isInstanceOf(InvalidRequestException.class);
    }

    @Test
    void shouldKeepAnIntervalOnItsGridAndCountTheOccurrencesMissedWhileLate() {
        ScheduleRequest every = request(new IntervalTrigger(1_000L, T0));
        assertThat(Occurrences.next(every, T0, T0 + 3)).contains(new Occurrences.Next(T0 + 1_000, 0));
        assertThat(Occurrences.next(every, T0, T0 + 1_000)).as("exactly at the next one")
                .contains(new Occurrences.Next(T0 + 2_000, 1));
        assertThat(Occurrences.next(every, T0, T0 + 4_500)).contains(new Occurrences.Next(T0 + 5_000, 4));
    }

    @Test
    void shouldTakeTheNextCronOccurrenceAfterNowWhenLateAndNothingForAOneShot() {
        ScheduleRequest hourly = request(new CronTrigger("0 * * * *", "UTC"));
        assertThat(Occurrences.next(hourly, T0, T0 + 10)).contains(new Occurrences.Next(T0 + 3_600_000, 0));
        assertThat(Occurrences.next(hourly, T0, T0 + 3 * 3_600_000 + 5)).contains(new Occurrences.Next(T0 + 4 * 3_600_000, 0));
        assertThat(Occurrences.next(request(new AtTrigger(T0)), T0, T0)).isEmpty();
    }
}
