package io.ax.app.internal.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.ax.schema.ReportStatus;
import org.junit.jupiter.api.Test;

/**
 * What the rules tell the dependency side about a taskId itself: an accepted schedule request forgets a purged task's
 * tombstone under its id ({@link Effect.Scheduled}), a purge leaves one ({@link Effect.Purged}); no Kafka.
 */
class DependencyEffectsTest {
    private static final String ONCE = "{\"jobType\":\"j\",\"delayMs\":0,\"timeoutMs\":60000}";
    private static final String KEEP = "{\"jobType\":\"j\",\"delayMs\":0,\"timeoutMs\":60000,\"ifExists\":\"KEEP\"}";
    private static final String REPLACE = "{\"jobType\":\"j\",\"delayMs\":0,\"timeoutMs\":60000,\"ifExists\":\"REPLACE\"}";

    @Test
    void shouldForgetAPurgedTasksTombstoneWhenAScheduleRequestIsAcceptedUnderItsId() {
        CoreDriver ax = new CoreDriver();
        assertThat(ax.schedule(ONCE).effects()).contains(new Effect.Scheduled(CoreDriver.TASK));
        assertThat(ax.schedule(REPLACE).effects()).contains(new Effect.Scheduled(CoreDriver.TASK));
    }

    @Test
    void shouldNotTouchTheTombstonesWhenAScheduleRequestIsIgnored() {
        CoreDriver ax = new CoreDriver();
        ax.schedule(ONCE);
        Decision duplicate = ax.schedule(KEEP);
        assertThat(duplicate.store()).isEqualTo(Decision.Store.UNCHANGED);
        assertThat(duplicate.effects()).noneMatch(effect -> effect instanceof Effect.Scheduled);
    }

    @Test
    void shouldLeaveATombstoneWhenTheTaskIsPurgedAndOnlyThen() {
        CoreDriver ax = new CoreDriver();
        ax.schedule(ONCE);
        assertThat(ax.fire(TimerKind.OCCURRENCE).orElseThrow().effects()).noneMatch(effect -> effect instanceof Effect.Purged);
        ax.report(ReportStatus.STARTED, false);
        assertThat(ax.report(ReportStatus.SUCCEEDED, false).effects()).noneMatch(effect -> effect instanceof Effect.Purged);
        Decision purged = ax.fire(TimerKind.PURGE).orElseThrow();
        assertThat(purged.store()).isEqualTo(Decision.Store.DELETE);
        assertThat(purged.effects()).containsExactly(new Effect.Purged(CoreDriver.TASK, ax.nowMs()));
    }
}
