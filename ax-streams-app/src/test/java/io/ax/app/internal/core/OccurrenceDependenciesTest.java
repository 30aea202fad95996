package io.ax.app.internal.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.ax.app.internal.core.OccurrenceDependencies.Latest;
import io.ax.app.internal.core.OccurrenceDependencies.Run;
import io.ax.app.internal.core.OccurrenceDependencies.Skip;
import io.ax.app.internal.core.OccurrenceDependencies.Verdict;
import io.ax.app.internal.core.OccurrenceDependencies.Wait;
import io.ax.schema.Dependency;
import io.ax.schema.DependencyCondition;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** "The 01:30 export must finish before the 02:00 report, every day", day by day and across daylight-saving changes. */
class OccurrenceDependenciesTest {
    private static final String BERLIN = "Europe/Berlin";
    private static final long DAY_MS = 86_400_000L;
    private static final long TIMEOUT_MS = DAY_MS;
    private static final List<Dependency> AFTER_EXPORT = List.of(new Dependency("export", DependencyCondition.SUCCESS));

    private static long at(String instant) {
        return Instant.parse(instant).toEpochMilli();
    }

    /** The report's and the export's nominal times from {@code fromMs} on, by the cron path tasks take. */
    private static List<Long> report(long fromMs, int days) {
        return Occurrences.nextCronTimes("0 2 * * *", BERLIN, fromMs, days);
    }

    private static List<Long> export(long fromMs, int days) {
        return Occurrences.nextCronTimes("30 1 * * *", BERLIN, fromMs, days);
    }

    private static Verdict judge(Map<String, Latest> latest, Long previous, long due, Long next, long nowMs) {
        return OccurrenceDependencies.judge(AFTER_EXPORT, latest, previous, due, false,
                OccurrenceDependencies.waitUntilMs(due, TIMEOUT_MS, next), nowMs);
    }

    @Test
    void shouldRunEachDayAfterThatDaysExportAndSkipTheDayItFailedAcrossTheSpringChange() {
        // 2027-03-28: Berlin skips 02:00-03:00; the report's 02:00 fires at the first instant after the gap (03:00 CEST).
        long start = at("2027-03-25T00:00:00Z");
        List<Long> reports = report(start, 6);
        List<Long> exports = export(start, 6);
        assertThat(ZonedDateTime.ofInstant(Instant.ofEpochMilli(reports.get(3)), ZoneId.of(BERLIN)).getHour()).isEqualTo(3);
        assertThat(reports.get(4) - reports.get(3)).isEqualTo(DAY_MS - 3_600_000L);
        Map<String, Latest> latest = new HashMap<>();
        Long previous = null;
        for (int day = 0; day < reports.size(); day++) {
            long due = reports.get(day);
            long exportDue = exports.get(day);
            assertThat(exportDue).isLessThan(due);
            String outcome = day == 2 ? "FAILED" : "SUCCESS";
            latest = OccurrenceDependencies.record(latest, "export", outcome, exportDue);
            Long next = day + 1 < reports.size() ? reports.get(day + 1) : null;
            Verdict verdict = judge(latest, previous, due, next, due);
            if (day == 2) {
                assertThat(verdict).isInstanceOf(Skip.class);
                assertThat(verdict.reason()).contains("export FAILED", "not SUCCESS", Instant.ofEpochMilli(exportDue).toString());
            } else {
                assertThat(verdict).as("day %d", day).isInstanceOf(Run.class);
            }
            previous = due;
        }
    }

    @Test
    void shouldWaitForALateExportAndRunWhenItsOutcomeArrivesAcrossTheAutumnChange() {
        // 2027-10-31: Berlin's 02:00-03:00 happens twice; the report fires once, at the first 02:00 (CEST).
        long start = at("2027-10-29T00:00:00Z");
        List<Long> reports = report(start, 3);
        List<Long> exports = export(start, 3);
        assertThat(reports.get(2) - reports.get(1)).isEqualTo(DAY_MS + 3_600_000L);
        // Day 1 (the change): the report is due before the export's outcome arrived; only yesterday's is known.
        Map<String, Latest> latest = OccurrenceDependencies.record(Map.of(), "export", "SUCCESS", exports.get(0));
        long due = reports.get(1);
        Verdict verdict = judge(latest, reports.get(0), due, reports.get(2), due);
        assertThat(verdict).isInstanceOf(Wait.class);
        // The next report is 25 hours later (the hour repeated): the one-day timeout ends the wait first.
        assertThat(((Wait) verdict).untilMs()).isEqualTo(due + TIMEOUT_MS).isLessThan(reports.get(2) - 1);
        assertThat(verdict.reason()).contains("waits for export (SUCCESS)");
        latest = OccurrenceDependencies.record(latest, "export", "SUCCESS", exports.get(1));
        assertThat(judge(latest, reports.get(0), due, reports.get(2), due + 600_000)).isInstanceOf(Run.class);
    }

    @Test
    void shouldSkipWhenTheWaitEndsWithoutAnOutcomeInThePeriod() {
        long due = at("2026-12-02T01:00:00Z");
        long previous = due - DAY_MS;
        Map<String, Latest> latest = OccurrenceDependencies.record(Map.of(), "export", "SUCCESS", previous - 1_800_000);
        long until = OccurrenceDependencies.waitUntilMs(due, 3_600_000, due + DAY_MS);
        assertThat(until).isEqualTo(due + 3_600_000);
        assertThat(OccurrenceDependencies.judge(AFTER_EXPORT, latest, previous, due, false, until, until - 1)).isInstanceOf(Wait.class);
        Verdict ended = OccurrenceDependencies.judge(AFTER_EXPORT, latest, previous, due, false, until, until);
        assertThat(ended).isInstanceOf(Skip.class);
        assertThat(ended.reason()).contains("no outcome", "export (SUCCESS)");
        assertThat(OccurrenceDependencies.judge(AFTER_EXPORT, latest, previous, due, true, until, until)).isInstanceOf(Run.class);
    }

    @Test
    void shouldJudgeOnlyTheLatestOutcomeInThePeriod() {
        long due = at("2026-12-02T02:00:00Z");
        long previous = due - DAY_MS;
        Map<String, Latest> latest = OccurrenceDependencies.record(Map.of(), "export", "FAILED", due - 7_200_000);
        latest = OccurrenceDependencies.record(latest, "export", "SUCCESS", due - 3_600_000); // a later run that day
        assertThat(judge(latest, previous, due, due + DAY_MS, due)).isInstanceOf(Run.class);
        // An older outcome arriving late changes nothing; a replay of the same occurrence replaces it.
        assertThat(OccurrenceDependencies.record(latest, "export", "FAILED", due - 7_200_000)).isSameAs(latest);
        Map<String, Latest> replayed = OccurrenceDependencies.record(latest, "export", "FAILED", due - 3_600_000);
        assertThat(judge(replayed, previous, due, due + DAY_MS, due)).isInstanceOf(Skip.class);
        // An outcome after the due time (the upstream ran ahead) is the next period's: not this one's.
        Map<String, Latest> ahead = OccurrenceDependencies.record(Map.of(), "export", "SUCCESS", due + 1);
        assertThat(judge(ahead, previous, due, due + DAY_MS, due)).isInstanceOf(Wait.class);
        // The boundaries: (previous, due].
        assertThat(OccurrenceDependencies.inPeriod(previous, previous, due)).isFalse();
        assertThat(OccurrenceDependencies.inPeriod(previous + 1, previous, due)).isTrue();
        assertThat(OccurrenceDependencies.inPeriod(due, previous, due)).isTrue();
        assertThat(OccurrenceDependencies.inPeriod(Long.MIN_VALUE + 1, null, due)).isTrue();
    }

    @Test
    void shouldTreatASkippedUpstreamOccurrenceAsNotRunForEveryCondition() {
        long due = at("2026-12-02T02:00:00Z");
        Map<String, Latest> latest = OccurrenceDependencies.record(Map.of(), "export", "SKIPPED", due - 1_800_000);
        for (DependencyCondition on : DependencyCondition.values()) {
            Verdict verdict = OccurrenceDependencies.judge(List.of(new Dependency("export", on)), latest, due - DAY_MS, due, false,
                    due + 1, due);
            assertThat(verdict).as("on %s", on).isInstanceOf(Skip.class);
            assertThat(verdict.reason()).contains("export SKIPPED");
        }
        Map<String, Latest> failed = OccurrenceDependencies.record(Map.of(), "export", "FAILED", due - 1_800_000);
        assertThat(OccurrenceDependencies.judge(List.of(new Dependency("export", DependencyCondition.COMPLETED)), failed,
                due - DAY_MS, due, false, due + 1, due)).isInstanceOf(Run.class);
        assertThat(OccurrenceDependencies.judge(List.of(new Dependency("export", DependencyCondition.FAILURE)), failed,
                due - DAY_MS, due, false, due + 1, due)).isInstanceOf(Run.class);
    }

    @Test
    void shouldNeverWaitPastTheNextOccurrence() {
        long due = 10_000;
        assertThat(OccurrenceDependencies.waitUntilMs(due, 60_000, 12_000L)).isEqualTo(11_999);
        assertThat(OccurrenceDependencies.waitUntilMs(due, 500, 12_000L)).isEqualTo(10_500);
        assertThat(OccurrenceDependencies.waitUntilMs(due, 500, null)).isEqualTo(10_500);
        assertThat(OccurrenceDependencies.waitUntilMs(due, Long.MAX_VALUE, null)).isEqualTo(Long.MAX_VALUE);
    }

    /**
     * Random outcomes of two upstreams in random order, against a model: the verdict follows each upstream's outcome with
     * the latest nominal time (the last told, on a tie), counted only inside (previous, due]; never runs on an unmet one
     * without afterRunAnyway, never waits once the wait is over.
     */
    @Test
    void shouldFollowTheLatestOutcomeInThePeriodWhateverTheOrderTheyArriveIn() {
        java.util.SplittableRandom random = new java.util.SplittableRandom(20261204L);
        List<String> outcomes = List.of("SUCCESS", "FAILED", "CANCELLED", "SKIPPED");
        List<Dependency> after = List.of(new Dependency("x", DependencyCondition.SUCCESS), new Dependency("y", DependencyCondition.COMPLETED));
        for (int run = 0; run < 2_000; run++) {
            Map<String, Latest> latest = Map.of();
            Map<String, Latest> model = new HashMap<>();
            for (int n = random.nextInt(8); n > 0; n--) {
                String upstream = random.nextBoolean() ? "x" : "y";
                String outcome = outcomes.get(random.nextInt(outcomes.size()));
                long nominalAtMs = 1_000L * random.nextInt(10);
                latest = OccurrenceDependencies.record(latest, upstream, outcome, nominalAtMs);
                Latest known = model.get(upstream);
                if (known == null || known.nominalAtMs() <= nominalAtMs) {
                    model.put(upstream, new Latest(outcome, nominalAtMs));
                }
            }
            assertThat(latest).isEqualTo(model);
            Long previous = random.nextInt(4) == 0 ? null : 1_000L * random.nextInt(5);
            long due = (previous == null ? 0 : previous) + 1_000L * (1 + random.nextInt(5));
            boolean runAnyway = random.nextBoolean();
            long nowMs = due + random.nextInt(3_000);
            long until = due + 2_000;
            Verdict verdict = OccurrenceDependencies.judge(after, latest, previous, due, runAnyway, until, nowMs);
            boolean unmet = false;
            boolean missing = false;
            for (Dependency dependency : after) {
                Latest outcome = model.get(dependency.getTaskId());
                if (outcome == null || outcome.nominalAtMs() > due || previous != null && outcome.nominalAtMs() <= previous) {
                    missing = true;
                } else if (outcome.outcome().equals("SKIPPED")
                        || dependency.getOn() == DependencyCondition.SUCCESS && !outcome.outcome().equals("SUCCESS")) {
                    unmet = true;
                }
            }
            Class<?> expected = unmet && !runAnyway ? Skip.class
                    : missing && nowMs < until ? Wait.class
                    : missing && !runAnyway ? Skip.class
                    : Run.class;
            assertThat(verdict).as("run %d: %s, period (%s, %d], now %d, runAnyway %s", run, model, previous, due, nowMs, runAnyway)
                    .isInstanceOf(expected);
        }
    }
}
