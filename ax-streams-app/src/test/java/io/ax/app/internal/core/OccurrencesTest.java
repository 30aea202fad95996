package io.ax.app.internal.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ax.InvalidRequestException;
import io.ax.schema.AtTrigger;
import io.ax.schema.CronTrigger;
import io.ax.schema.DelayTrigger;
import io.ax.schema.IntervalTrigger;
import io.ax.schema.MisfirePolicy;
import io.ax.schema.ScheduleRequest;
import io.ax.trigger.CronSchedules;
import java.time.Instant;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class OccurrencesTest {
    private static final long T0 = Instant.parse("2026-12-01T00:00:00Z").toEpochMilli();
    private static final long HOUR = 3_600_000;

    private static ScheduleRequest request(Object trigger) {
        return ScheduleRequest.newBuilder().setJobType("j").setTrigger(trigger).build();
    }

    private static ScheduleRequest.Builder builder(Object trigger) {
        return ScheduleRequest.newBuilder().setJobType("j").setTrigger(trigger);
    }

    private static Occurrences.Plan plan(long skipped, long first, long last, long next, boolean catchUp) {
        return new Occurrences.Plan(skipped, first, last, false, OptionalLong.of(next), catchUp);
    }

    @Test
    void shouldTimeTheFirstOccurrenceOfEachTrigger() {
        assertThat(Occurrences.firstDue("t", request(new AtTrigger(T0 + 5)), -1)).isEqualTo(T0 + 5);
        assertThat(Occurrences.firstDue("t", request(new DelayTrigger(5_000L)), T0)).isEqualTo(T0 + 5_000);
        assertThat(Occurrences.firstDue("t", request(new IntervalTrigger(60_000L, null)), T0)).isEqualTo(T0 + 60_000);
        assertThat(Occurrences.firstDue("t", request(new IntervalTrigger(60_000L, T0 + 7L)), -1)).isEqualTo(T0 + 7);
        assertThat(Occurrences.firstDue("t", request(new CronTrigger("0 2 * * *", "Asia/Shanghai")), T0))
                .isEqualTo(Instant.parse("2026-12-01T18:00:00Z").toEpochMilli());
    }

    @Test
    void shouldRefuseARecordTimestampOutOfRangeWhereATriggerCountsFromIt() {
        assertThatThrownBy(() -> Occurrences.firstDue("t", request(new DelayTrigger(5L)), -1))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("record timestamp");
        assertThatThrownBy(() -> Occurrences.firstDue("t", request(new IntervalTrigger(100L, null)), Long.MAX_VALUE - 1))
                .isInstanceOf(InvalidRequestException.class);
    }

    @Test
    void shouldRefuseAnEndBeforeTheFirstOccurrence() {
        assertThatThrownBy(() -> Occurrences.firstDue("t", builder(new CronTrigger("0 2 * * *", "UTC")).setEndAtMs(T0 + HOUR).build(), T0))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessage("endAt 2026-12-01T01:00:00Z is before the first occurrence, 2026-12-01T02:00:00Z: the task would never run");
        assertThatThrownBy(() -> Occurrences.firstDue("t", builder(new IntervalTrigger(60_000L, null)).setEndAtMs(T0 + 1).build(), T0))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("endAt");
    }

    @Test
    void shouldKeepAnIntervalOnItsGridAndCoalesceTheOccurrencesMissedWhileLate() {
        ScheduleRequest every = request(new IntervalTrigger(1_000L, T0));
        assertThat(Occurrences.afterFire("t", every, 1, T0, T0 + 3)).isEqualTo(plan(0, 0, 0, T0 + 1_000, false));
        assertThat(Occurrences.afterFire("t", every, 1, T0, T0 + 1_000)).as("exactly at the next one")
                .isEqualTo(plan(1, T0 + 1_000, T0 + 1_000, T0 + 2_000, false));
        assertThat(Occurrences.afterFire("t", every, 1, T0, T0 + 4_500)).isEqualTo(plan(4, T0 + 1_000, T0 + 4_000, T0 + 5_000, false));
    }

    @Test
    void shouldCatchUpOldestFirstBoundedByMaxCatchUpUnderFireAll() {
        ScheduleRequest all = builder(new IntervalTrigger(1_000L, T0)).setMisfire(MisfirePolicy.FIRE_ALL).setMaxCatchUp(3).build();
        assertThat(Occurrences.afterFire("t", all, 1, T0, T0 + 2_500)).as("two behind: the first of them next")
                .isEqualTo(plan(0, 0, 0, T0 + 1_000, true));
        assertThat(Occurrences.afterFire("t", all, 1, T0, T0 + 10_500)).as("ten behind: seven skipped, three wait")
                .isEqualTo(plan(7, T0 + 1_000, T0 + 7_000, T0 + 8_000, true));
        assertThat(Occurrences.afterFire("t", all, 1, T0, T0 + 500)).isEqualTo(plan(0, 0, 0, T0 + 1_000, false));
    }

    @Test
    void shouldSkipEveryMissedOccurrenceUnderSkip() {
        ScheduleRequest skip = builder(new CronTrigger("0 * * * *", "UTC")).setMisfire(MisfirePolicy.SKIP).build();
        assertThat(Occurrences.afterFire("t", skip, 1, T0, T0 + 3 * HOUR + 5))
                .isEqualTo(plan(3, T0 + HOUR, T0 + 3 * HOUR, T0 + 4 * HOUR, false));
    }

    @Test
    void shouldCountMissedCronOccurrencesAcrossADaylightSavingChange() {
        // New York, 2026-11-01 01:00-02:00 happens twice; */30 fires 01:00, 01:30 EDT, then 02:00 EST.
        ScheduleRequest halfHourly = request(new CronTrigger("*/30 * * * *", "America/New_York"));
        long due = Instant.parse("2026-11-01T04:30:00Z").toEpochMilli(); // 00:30 EDT
        long now = Instant.parse("2026-11-01T07:10:00Z").toEpochMilli(); // 02:10 EST
        assertThat(Occurrences.afterFire("t", halfHourly, 1, due, now)).isEqualTo(plan(3,
                Instant.parse("2026-11-01T05:00:00Z").toEpochMilli(), Instant.parse("2026-11-01T07:00:00Z").toEpochMilli(),
                Instant.parse("2026-11-01T07:30:00Z").toEpochMilli(), false));
    }

    @Test
    void shouldEndAtTheEndOrAfterTheMaximumCountSkippedOnesIncluded() {
        ScheduleRequest ending = builder(new IntervalTrigger(1_000L, T0)).setEndAtMs(T0 + 2_000).build();
        assertThat(Occurrences.afterFire("t", ending, 2, T0 + 1_000, T0 + 1_001).next()).hasValue(T0 + 2_000);
        assertThat(Occurrences.afterFire("t", ending, 3, T0 + 2_000, T0 + 2_001).next()).isEmpty();
        assertThat(Occurrences.afterFire("t", ending, 1, T0, T0 + 9_000)).as("missed up to the end only")
                .isEqualTo(new Occurrences.Plan(2, T0 + 1_000, T0 + 2_000, false, OptionalLong.empty(), false));

        ScheduleRequest three = builder(new IntervalTrigger(1_000L, T0)).setMaxOccurrences(3L).build();
        assertThat(Occurrences.afterFire("t", three, 2, T0 + 1_000, T0 + 1_001).next()).hasValue(T0 + 2_000);
        assertThat(Occurrences.afterFire("t", three, 3, T0 + 2_000, T0 + 2_001).next()).isEmpty();
        assertThat(Occurrences.afterFire("t", three, 1, T0, T0 + 9_000))
                .isEqualTo(new Occurrences.Plan(2, T0 + 1_000, T0 + 2_000, false, OptionalLong.empty(), false));
    }

    @Test
    void shouldMoveEveryOccurrenceByTheTasksFixedJitterOffsetAndNeverBeforeItsNominalTime() {
        long jitterMs = 30_000;
        long offsetA = Periodic.offsetMs("task-a", jitterMs);
        assertThat(Periodic.offsetMs("task-a", jitterMs)).as("deterministic").isEqualTo(offsetA);
        assertThat(offsetA).isBetween(0L, jitterMs);
        java.util.Set<Long> offsets = new java.util.HashSet<>();
        for (int i = 0; i < 1_000; i++) {
            long offset = Periodic.offsetMs("task-" + i, jitterMs);
            assertThat(offset).isBetween(0L, jitterMs);
            offsets.add(Math.min(offset / 1_000, 29));
        }
        assertThat(offsets).as("1,000 tasks spread over every second of the window").hasSize(30);

        ScheduleRequest minutely = builder(new CronTrigger("* * * * *", "UTC")).setOccurrenceJitterMs(jitterMs).build();
        long first = Occurrences.firstDue("task-a", minutely, T0);
        assertThat(first).isEqualTo(T0 + 60_000 + offsetA);
        assertThat(Occurrences.afterFire("task-a", minutely, 1, first, first + 5).next()).hasValue(first + 60_000);
        ScheduleRequest every = builder(new IntervalTrigger(60_000L, T0)).setOccurrenceJitterMs(jitterMs).build();
        assertThat(Occurrences.firstDue("task-a", every, T0)).isEqualTo(T0 + offsetA);
        assertThat(Occurrences.afterFire("task-a", every, 1, T0 + offsetA, T0 + offsetA + 5).next()).hasValue(T0 + 60_000 + offsetA);
    }

    @Test
    void shouldParseACronExpressionOnceAndFindItInTheCacheAtEveryFire() {
        ScheduleRequest cron = request(new CronTrigger("7 3 * * *", "Europe/Berlin"));
        Occurrences.firstDue("t", cron, T0);
        assertThat(CronSchedules.get("7 3 * * *", "Europe/Berlin")).isSameAs(CronSchedules.get("7 3 * * *", "Europe/Berlin"));
        int cached = CronSchedules.size();
        for (int i = 0; i < 100; i++) {
            Occurrences.afterFire("t", cron, i + 1, T0 + i * 24 * HOUR, T0 + i * 24 * HOUR + 1);
        }
        assertThat(CronSchedules.size()).isEqualTo(cached);
    }

    @Test
    void shouldTimeNothingAfterAOneShot() {
        assertThat(Occurrences.afterFire("t", request(new AtTrigger(T0)), 1, T0, T0).next()).isEmpty();
    }
}
