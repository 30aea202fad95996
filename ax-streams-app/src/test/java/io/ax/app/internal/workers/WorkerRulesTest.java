package io.ax.app.internal.workers;

import static org.assertj.core.api.Assertions.assertThat;

import io.ax.app.internal.workers.WorkerRules.Liveness;
import io.ax.app.internal.workers.WorkerRules.Verdict;
import org.junit.jupiter.api.Test;

class WorkerRulesTest {
    private static final long T0 = 1_000_000;
    private final WorkerRules rules = new WorkerRules(new WorkerRegistrySettings(2, 3, 1_000, 60_000));

    @Test
    void shouldDeclareAWorkerDeadAfterExactlyThreeOfItsHeartbeatsOfSilence() {
        Liveness worker = new Liveness(T0, 10_000, false, 0);

        assertThat(rules.check(worker, T0 + 29_999, 0)).isEqualTo(Verdict.NONE);
        assertThat(rules.check(worker, T0 + 30_000, 0)).isEqualTo(Verdict.DEAD);
        assertThat(rules.check(worker, T0 + 30_001, 0)).isEqualTo(Verdict.DEAD);
    }

    @Test
    void shouldCountSilenceInTheWorkersOwnHeartbeat() {
        assertThat(rules.check(new Liveness(T0, 500, false, 0), T0 + 1_499, 0)).isEqualTo(Verdict.NONE);
        assertThat(rules.check(new Liveness(T0, 500, false, 0), T0 + 1_500, 0)).isEqualTo(Verdict.DEAD);
        assertThat(rules.check(new Liveness(T0, 60_000, false, 0), T0 + 179_999, 0)).isEqualTo(Verdict.NONE);
    }

    @Test
    void shouldNotDeclareAnyoneDeadBeforeTheRegistryHasWatchedForThreeHeartbeats() {
        // a scheduler back after 10 minutes down: the announcements sent meanwhile may not be read yet
        long watchingSinceMs = T0 + 600_000;
        Liveness lastHeardLongAgo = new Liveness(T0, 10_000, false, 0);

        assertThat(rules.check(lastHeardLongAgo, watchingSinceMs + 29_999, watchingSinceMs)).isEqualTo(Verdict.NONE);
        assertThat(rules.check(lastHeardLongAgo, watchingSinceMs + 30_000, watchingSinceMs)).isEqualTo(Verdict.DEAD);
    }

    @Test
    void shouldForgetADeadWorkerAfterTheRetentionAndNotDeclareItTwice() {
        Liveness dead = new Liveness(T0, 10_000, true, T0 + 30_000);

        assertThat(rules.check(dead, T0 + 30_000 + 59_999, 0)).isEqualTo(Verdict.NONE);
        assertThat(rules.check(dead, T0 + 30_000 + 60_000, 0)).isEqualTo(Verdict.FORGET);
    }

    @Test
    void shouldAdmitNewWorkersUpToTheBound() {
        assertThat(rules.admits(0)).isTrue();
        assertThat(rules.admits(1)).isTrue();
        assertThat(rules.admits(2)).isFalse();
    }
}
