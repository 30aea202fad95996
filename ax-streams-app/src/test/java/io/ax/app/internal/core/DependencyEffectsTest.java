package io.ax.app.internal.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.ax.app.internal.core.Sweep.Mode;
import io.ax.schema.ReportStatus;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What the task rules decide on the dependency side of their own task, as they decide its input ({@link DependencyRules}
 * called by {@link Step}, on the partition's dependency side read as it stands): an accepted schedule request forgets a
 * purged task's tombstone under its id ({@link Effect.ForgetTombstone}), a purge leaves one ({@link Effect.LeaveTombstone})
 * and lets the subscribers go ({@link Effect.OweSweep} DROP), an end is owed to the subscribers ({@link Effect.OweSweep}
 * NOTIFY); a task nobody waits for gets none of these. No Kafka.
 */
class DependencyEffectsTest {
    private static final String ONCE = "{\"jobType\":\"j\",\"delayMs\":0,\"timeoutMs\":60000}";
    private static final String KEEP = "{\"jobType\":\"j\",\"delayMs\":0,\"timeoutMs\":60000,\"ifExists\":\"KEEP\"}";
    private static final String REPLACE = "{\"jobType\":\"j\",\"delayMs\":0,\"timeoutMs\":60000,\"ifExists\":\"REPLACE\"}";

    private final Map<String, io.ax.schema.StoredTask> tasks = new HashMap<>();
    private final MemoryDependencies deps = new MemoryDependencies(tasks::get);
    private final CoreDriver ax = new CoreDriver(CoreDriver.TASK, FlowLimits.NONE, deps);

    /** A decision of the driver, its dependency effects applied as the adapter applies them. */
    private Decision applied(Decision decision) {
        deps.apply(decision);
        return decision;
    }

    @Test
    void shouldForgetAPurgedTasksTombstoneWhenAScheduleRequestIsAcceptedUnderItsId() {
        deps.tombstone(CoreDriver.TASK, CoreDriver.T0 - 1_000);
        assertThat(applied(ax.schedule(ONCE)).effects()).contains(new Effect.ForgetTombstone(CoreDriver.TASK, CoreDriver.T0 - 1_000));
        assertThat(deps.tombstones).isEmpty();
        assertThat(applied(ax.schedule(REPLACE)).effects()).as("no tombstone left to forget")
                .noneMatch(effect -> effect instanceof Effect.ForgetTombstone);
    }

    @Test
    void shouldNotTouchTheTombstonesWhenAScheduleRequestIsIgnored() {
        applied(ax.schedule(ONCE));
        deps.tombstone(CoreDriver.TASK, CoreDriver.T0 - 1_000);
        Decision duplicate = ax.schedule(KEEP);
        assertThat(duplicate.store()).isEqualTo(Decision.Store.UNCHANGED);
        assertThat(duplicate.effects()).noneMatch(effect -> effect instanceof Effect.ForgetTombstone);
    }

    @Test
    void shouldLeaveATombstoneWhenTheTaskIsPurgedAndOnlyThen() {
        applied(ax.schedule(ONCE));
        assertThat(applied(ax.fire(TimerKind.OCCURRENCE).orElseThrow()).effects()).noneMatch(effect -> effect instanceof Effect.LeaveTombstone);
        applied(ax.report(ReportStatus.STARTED, false));
        assertThat(applied(ax.report(ReportStatus.SUCCEEDED, false)).effects()).noneMatch(effect -> effect instanceof Effect.LeaveTombstone);
        Decision purged = applied(ax.fire(TimerKind.PURGE).orElseThrow());
        assertThat(purged.store()).isEqualTo(Decision.Store.DELETE);
        assertThat(purged.effects()).containsExactly(new Effect.LeaveTombstone(CoreDriver.TASK, ax.nowMs()));
        assertThat(deps.tombstones).containsEntry(CoreDriver.TASK, ax.nowMs());
    }

    @Test
    void shouldOweNothingOnTheDependencySideForATaskNobodyWaitsFor() {
        assertThat(applied(ax.schedule(ONCE)).effects()).noneMatch(DependencyEffectsTest::isDependencyEffect);
        assertThat(applied(ax.fire(TimerKind.OCCURRENCE).orElseThrow()).effects()).noneMatch(DependencyEffectsTest::isDependencyEffect);
        assertThat(applied(ax.report(ReportStatus.STARTED, false)).effects()).noneMatch(DependencyEffectsTest::isDependencyEffect);
        assertThat(applied(ax.report(ReportStatus.SUCCEEDED, false)).effects()).noneMatch(DependencyEffectsTest::isDependencyEffect);
    }

    @Test
    void shouldOweTheEndToTheSubscribersInTheDecisionThatEndsTheTask() {
        deps.keepSubscriber(CoreDriver.TASK, "d", false);
        applied(ax.schedule(ONCE));
        applied(ax.fire(TimerKind.OCCURRENCE).orElseThrow());
        applied(ax.report(ReportStatus.STARTED, false));
        String executionId = ax.task().getExecution().getExecutionId();
        assertThat(applied(ax.report(ReportStatus.SUCCEEDED, false)).effects())
                .contains(new Effect.OweSweep(CoreDriver.TASK, new Sweep(Mode.NOTIFY, "SUCCESS", executionId, "")));
        assertThat(deps.sweeps).containsKey(CoreDriver.TASK);
        Decision purged = ax.fire(TimerKind.PURGE).orElseThrow();
        assertThat(purged.effects()).as("the notifications still owed go first; that sweep then drops the subscriptions")
                .containsExactly(new Effect.LeaveTombstone(CoreDriver.TASK, ax.nowMs()));
    }

    @Test
    void shouldLetTheSubscribersGoWhenATaskIsPurgedWithNoSweepOwed() {
        deps.keepSubscriber(CoreDriver.TASK, "d", false);
        applied(ax.schedule(ONCE));
        applied(ax.cancel());
        deps.sweepStep(CoreDriver.TASK, 10, ax.nowMs()); // the end told, its sweep done
        assertThat(deps.sweeps).isEmpty();
        Decision purged = ax.fire(TimerKind.PURGE).orElseThrow();
        assertThat(purged.effects()).containsExactly(new Effect.OweSweep(CoreDriver.TASK, new Sweep(Mode.DROP, "", null, "")),
                new Effect.LeaveTombstone(CoreDriver.TASK, ax.nowMs()));
    }

    private static boolean isDependencyEffect(Effect effect) {
        return effect instanceof Effect.OweSweep || effect instanceof Effect.OweOccurrenceSweep
                || effect instanceof Effect.LeaveTombstone || effect instanceof Effect.ForgetTombstone
                || effect instanceof Effect.KeepSubscriber || effect instanceof Effect.ForgetSubscriber
                || effect instanceof Effect.Signal;
    }
}
