package io.ax.worker.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SlowRunsTest {
    private static final long MS = 1_000_000;

    private static SlowRuns warmed(double factor, String jobType, long nanos) {
        SlowRuns runs = new SlowRuns(factor, 0);
        for (int i = 0; i < SlowRuns.MIN_RUNS; i++) {
            assertThat(runs.record(jobType, nanos)).isEqualTo(-1);
        }
        return runs;
    }

    @Test
    void shouldNeverTellARunShorterThanTheFloorSlowHoweverFastItsJobTypeIs() {
        SlowRuns runs = new SlowRuns(3, SlowRuns.DEFAULT_MIN_NANOS);
        for (int i = 0; i < SlowRuns.MIN_RUNS; i++) {
            runs.record("noop", 1_000); // a microsecond
        }
        assertThat(runs.record("noop", 999 * MS)).as("999,000 x the p95, under a second").isEqualTo(-1);
        assertThat(runs.record("noop", 1_000 * MS)).isEqualTo(1_000);
        assertThatThrownBy(() -> new SlowRuns(3, -1)).hasMessageContaining("slowRunMin");
    }

    @Test
    void shouldTellARunSlowerThanTheFactorTimesItsJobTypesP95AndNotOneAtIt() {
        SlowRuns runs = warmed(3, "email", 10 * MS);
        assertThat(runs.record("email", 30 * MS)).as("exactly 3 x: not slower").isEqualTo(-1);
        assertThat(runs.record("email", 30 * MS + 1)).isEqualTo(10 * MS);
    }

    @Test
    void shouldTellNothingBeforeTheJobTypeHasEnoughRuns() {
        SlowRuns runs = new SlowRuns(3, 0);
        for (int i = 0; i < SlowRuns.MIN_RUNS - 1; i++) {
            runs.record("email", MS);
        }
        assertThat(runs.record("email", 1_000 * MS)).as("the 20th run: only 19 before it").isEqualTo(-1);
        assertThat(runs.record("email", 1_000 * MS)).as("the 21st: 20 before, their p95 is 1 ms").isEqualTo(MS);
    }

    @Test
    void shouldKeepEachJobTypesRunsApart() {
        SlowRuns runs = warmed(3, "email", 10 * MS);
        for (int i = 0; i < SlowRuns.MIN_RUNS; i++) {
            runs.record("report", 10_000 * MS);
        }
        assertThat(runs.record("report", 20_000 * MS)).as("slow for email, usual for report").isEqualTo(-1);
        assertThat(runs.record("email", 40 * MS)).isEqualTo(10 * MS);
        assertThat(runs.record("sync", 40_000 * MS)).as("a job type never seen").isEqualTo(-1);
    }

    @Test
    void shouldTakeTheP95OfTheLastHundredRunsOnly() {
        SlowRuns runs = new SlowRuns(2, 0);
        for (int i = 1; i <= 100; i++) {
            runs.record("etl", i * MS); // p95 of 1..100 ms: 95 ms
        }
        assertThat(runs.record("etl", 191 * MS)).isEqualTo(95 * MS);
        for (int i = 0; i < SlowRuns.WINDOW; i++) {
            runs.record("etl", 1_000 * MS); // the etl job slowed down for good: the window holds only the slow runs now
        }
        assertThat(runs.record("etl", 1_999 * MS)).isEqualTo(-1);
        assertThat(runs.record("etl", 2_001 * MS)).isEqualTo(1_000 * MS);
    }

    @Test
    void shouldTellNothingWhenOffAndRefuseAFactorBelowOne() {
        SlowRuns off = warmed(0, "email", MS);
        assertThat(off.record("email", 1_000_000 * MS)).isEqualTo(-1);
        assertThat(SlowRuns.off().factor()).isZero();
        assertThatThrownBy(() -> new SlowRuns(0.5, 0)).hasMessageContaining("slowRunFactor").hasMessageContaining("0.5");
        assertThatThrownBy(() -> new SlowRuns(-1, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SlowRuns(Double.NaN, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SlowRuns(Double.POSITIVE_INFINITY, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
