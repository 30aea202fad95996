package io.ax.app.internal.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ax.validation.ScheduleLimits;
import io.ax.app.internal.core.Sweep.Mode;
import io.ax.schema.AtTrigger;
import io.ax.schema.DependencySignal;
import io.ax.schema.DependencySignalKind;
import io.ax.schema.ScheduleRequest;
import io.ax.schema.SourceRecord;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The upstream side of dependencies alone: the in-memory store of subscribers, sweeps and tombstones the property tests
 * use too ({@link MemoryDependencies}), no Kafka.
 */
class DependencyRulesTest {
    private static final long NOW = 1_796_083_200_000L;
    private static final long RETENTION_MS = 86_400_000L;

    private final Map<String, StoredTask> tasks = new HashMap<>();
    private final MemoryDependencies deps = new MemoryDependencies(tasks::get);
    /** The task rules on this partition's dependency side, as the adapter's read its store. */
    private final Rules rules = new Rules(new RuleSettings(300_000, 1_000, 600_000, RETENTION_MS, 0, 60_000,
            ScheduleLimits.defaults(), true, true), CalendarLookup.NONE, FlowLimits.NONE, deps);

    @Test
    void shouldSendSubscribeAndUnsubscribeKeyedByTheUpstream() {
        Effect.Signal subscribe = DependencySignals.subscribe("up", "down", false, NOW);
        Effect.Signal unsubscribe = DependencySignals.unsubscribe("up", "down", true, NOW);

        // the effects carry the whole record: the adapter writes it as it is, keyed by the upstream
        deps.send(subscribe.key(), subscribe.signal());
        deps.send(unsubscribe.key(), unsubscribe.signal());
        assertThat(deps.sentLines()).containsExactly("up SUBSCRIBE up->down", "up UNSUBSCRIBE up->down every");
        assertThat(subscribe.signal().getAtMs()).isEqualTo(NOW);
        assertThat(unsubscribe.signal().getAtMs()).isEqualTo(NOW);
    }

    @Test
    void shouldKeepASubscriberAndAnswerAtOnceWhenTheUpstreamHasEnded() {
        onSignal(DependencySignalKind.SUBSCRIBE, "up", "a", false);
        assertThat(deps.subscribers).containsEntry("up", new TreeSet<>(List.of("a")));
        assertThat(deps.sentLines()).isEmpty(); // no task yet: it may come

        tasks.put("up", finished("up", TaskState.SUCCESS));
        onSignal(DependencySignalKind.SUBSCRIBE, "up", "b", false);

        assertThat(deps.subscribers.get("up")).containsExactly("a", "b");
        assertThat(deps.sentLines()).containsExactly("b NOTIFY up->b SUCCESS e-up");
    }

    @Test
    void shouldAnswerASubscriberOfAPurgedTaskPurgedWithoutKeepingIt() {
        deps.tombstones.put("up", NOW - 5);

        onSignal(DependencySignalKind.SUBSCRIBE, "up", "a", false);

        assertThat(deps.sentLines()).containsExactly("a NOTIFY up->a PURGED");
        assertThat(deps.subscribers).isEmpty();
    }

    @Test
    void shouldOweNothingWhenNobodyWaitsAndASweepWhenSomeoneDoes() {
        DependencyRules.finished("up", "SUCCESS", "e-1", deps, deps);
        assertThat(deps.sweeps).isEmpty();

        subscribe("up", "a", "b", "c");
        DependencyRules.finished("up", "FAILED", "e-1", deps, deps);

        assertThat(deps.sweeps).containsEntry("up", new Sweep(Mode.NOTIFY, "FAILED", "e-1", ""));
        assertThat(deps.sweeps.keySet()).as("in the order owed").containsExactly("up");
    }

    @Test
    void shouldSweepABatchAtATimeFromTheCursorThenBeDone() {
        subscribe("up", "a", "b", "c");
        DependencyRules.finished("up", "SUCCESS", "e-1", deps, deps);

        assertThat(deps.sweepStep("up", 2, NOW)).isEqualTo(2);
        assertThat(deps.sentLines()).containsExactly("a NOTIFY up->a SUCCESS e-1", "b NOTIFY up->b SUCCESS e-1");
        assertThat(deps.sweeps).containsEntry("up", new Sweep(Mode.NOTIFY, "SUCCESS", "e-1", "b"));

        assertThat(deps.sweepStep("up", 2, NOW)).isEqualTo(1);
        assertThat(deps.sentLines()).hasSize(3).endsWith("c NOTIFY up->c SUCCESS e-1");
        assertThat(deps.sweeps).isEmpty();
        assertThat(deps.done).containsExactly("up");
        assertThat(deps.subscribers.get("up")).containsExactly("a", "b", "c"); // kept until the upstream is purged
    }

    @Test
    void shouldDropTheSubscriptionsOfAPurgedTaskAndLeaveATombstone() {
        subscribe("up", "a", "b");

        DependencyRules.purged("up", NOW, deps, deps);

        assertThat(deps.sweeps).containsEntry("up", new Sweep(Mode.DROP, "", null, ""));
        assertThat(deps.tombstones).containsEntry("up", NOW);
        assertThat(deps.sweepStep("up", 10, NOW)).isEqualTo(2);
        assertThat(deps.subscribers).isEmpty();
        assertThat(deps.sentLines()).isEmpty();
        assertThat(deps.sweeps).isEmpty();
    }

    @Test
    void shouldFinishTellingBeforeDroppingWhenPurgedWhileNotificationsGoOut() {
        subscribe("up", "a", "b");
        DependencyRules.finished("up", "SUCCESS", "e-1", deps, deps);
        deps.sweepStep("up", 1, NOW);

        DependencyRules.purged("up", NOW, deps, deps);
        assertThat(deps.sweeps).containsEntry("up", new Sweep(Mode.NOTIFY, "SUCCESS", "e-1", "a")); // unchanged

        deps.sweepStep("up", 10, NOW);
        assertThat(deps.sentLines()).containsExactly("a NOTIFY up->a SUCCESS e-1", "b NOTIFY up->b SUCCESS e-1");
        assertThat(deps.sweeps).containsEntry("up", new Sweep(Mode.DROP, "", null, "")); // now the subscriptions go
        assertThat(deps.done).isEmpty();

        deps.sweepStep("up", 10, NOW);
        assertThat(deps.subscribers).isEmpty();
        assertThat(deps.done).containsExactly("up");
    }

    @Test
    void shouldForgetTheTombstoneOfATaskScheduledAgain() {
        DependencyRules.scheduledAgain("up", deps, deps);
        assertThat(deps.forgotten).isEmpty();

        deps.tombstones.put("up", NOW - 7);
        DependencyRules.scheduledAgain("up", deps, deps);

        assertThat(deps.tombstones).isEmpty();
        assertThat(deps.forgotten).containsExactly("up@" + (NOW - 7));
    }

    @Test
    void shouldExpireATombstoneOnlyAfterItsRetentionThenKeepALaterSubscriberInsteadOfAnsweringPurged() {
        deps.tombstones.put("up", NOW);

        assertThat(DependencyRules.expireTombstones(NOW + RETENTION_MS, RETENTION_MS, 10, deps, deps)).isZero();
        assertThat(deps.tombstones).containsEntry("up", NOW);
        onSignal(DependencySignalKind.SUBSCRIBE, "up", "a", false);
        assertThat(deps.sentLines()).containsExactly("a NOTIFY up->a PURGED"); // still answered from the tombstone

        assertThat(DependencyRules.expireTombstones(NOW + RETENTION_MS + 1, RETENTION_MS, 10, deps, deps)).isEqualTo(1);
        assertThat(deps.forgotten).containsExactly("up@" + NOW);
        onSignal(DependencySignalKind.SUBSCRIBE, "up", "b", false);
        assertThat(deps.sentLines()).hasSize(1); // no answer: the id is free again, so b waits for a task that may come
        assertThat(deps.subscribers).containsEntry("up", new TreeSet<>(List.of("b")));
    }

    @Test
    void shouldExpireTheOldestTombstonesFirstABatchAStep() {
        deps.tombstones.put("b", NOW - 10);
        deps.tombstones.put("a", NOW - 30);
        deps.tombstones.put("young", NOW + 5);
        deps.tombstones.put("c", NOW - 20);
        long nowMs = NOW + RETENTION_MS + 1;

        assertThat(DependencyRules.expireTombstones(nowMs, RETENTION_MS, 2, deps, deps)).isEqualTo(2);
        assertThat(deps.forgotten).containsExactly("a@" + (NOW - 30), "c@" + (NOW - 20));
        assertThat(DependencyRules.expireTombstones(nowMs, RETENTION_MS, 2, deps, deps)).isEqualTo(1);
        assertThat(DependencyRules.expireTombstones(nowMs, RETENTION_MS, 2, deps, deps)).isZero();

        assertThat(deps.forgotten).endsWith("b@" + (NOW - 10));
        assertThat(deps.tombstones).containsOnlyKeys("young");
    }

    @Test
    void shouldSweepOccurrencesFirstThenFinalStatesTheOldestOwedFirstWithinOneBudget() {
        onSignal(DependencySignalKind.SUBSCRIBE, "old", "a", false);
        onSignal(DependencySignalKind.SUBSCRIBE, "old", "b", false);
        onSignal(DependencySignalKind.SUBSCRIBE, "new", "c", false);
        onSignal(DependencySignalKind.SUBSCRIBE, "periodic", "p", true);
        DependencyRules.finished("old", "SUCCESS", "e-old", deps, deps);
        DependencyRules.finished("new", "FAILED", "e-new", deps, deps);
        DependencyRules.occurrenceEnded("periodic", "SUCCESS", "e-p", 100, deps, deps);

        assertThat(deps.sweep(NOW, 2)).isEqualTo(2);
        assertThat(deps.sentLines()).containsExactly("p NOTIFY periodic->p SUCCESS e-p @100", "a NOTIFY old->a SUCCESS e-old");
        assertThat(deps.occurrenceSweeps).as("done: off the list").isEmpty();
        assertThat(deps.sweeps).as("cut short: goes on from its cursor, still first").containsOnlyKeys("old", "new");
        assertThat(deps.sweeps.get("old").cursor()).isEqualTo("a");

        assertThat(deps.sweep(NOW, 10)).isEqualTo(2);
        assertThat(deps.sentLines()).endsWith("b NOTIFY old->b SUCCESS e-old", "c NOTIFY new->c FAILED e-new");
        assertThat(deps.done).containsExactly("old", "new");
        assertThat(deps.sweepOwed()).isFalse();
        assertThat(deps.sweep(NOW, 10)).isZero();
    }

    @Test
    void shouldTellPeriodicSubscribersEachOccurrenceAndANewOneItsLatest() {
        DependencyRules.occurrenceEnded("up", "SUCCESS", "e-1", 100, deps, deps);
        assertThat(deps.occurrenceSweeps).isEmpty(); // nobody waits

        onSignal(DependencySignalKind.SUBSCRIBE, "up", "p1", true);
        onSignal(DependencySignalKind.SUBSCRIBE, "up", "p2", true);
        assertThat(deps.sentLines()).isEmpty(); // no occurrence ended yet

        DependencyRules.occurrenceEnded("up", "FAILED", "e-2", 200, deps, deps);
        assertThat(deps.occurrenceSweepStep("up", 1, NOW)).isEqualTo(1);
        assertThat(deps.occurrenceSweeps).containsEntry("up", new OccurrenceSweep("FAILED", "e-2", 200, "p1"));
        assertThat(deps.occurrenceSweepStep("up", 1, NOW)).isEqualTo(1);
        assertThat(deps.occurrenceSweeps).isEmpty();
        assertThat(deps.sentLines()).containsExactly("p1 NOTIFY up->p1 FAILED e-2 @200", "p2 NOTIFY up->p2 FAILED e-2 @200");

        StoredTask task = finished("up", TaskState.SUCCESS);
        task.getExecution().setDueAtMs(300L);
        tasks.put("up", task);
        onSignal(DependencySignalKind.SUBSCRIBE, "up", "p3", true);
        assertThat(deps.sentLines()).endsWith("p3 NOTIFY up->p3 SUCCESS e-up @300");

        onSignal(DependencySignalKind.UNSUBSCRIBE, "up", "p1", true);
        assertThat(deps.occurrenceSubscribers.get("up")).containsExactly("p2", "p3");
    }

    @Test
    void shouldDecideASubscriptionThroughTheRulesAsEffectsOnTheUpstreamsSideThatChangeNoTask() {
        StoredTask up = finished("up", TaskState.SUCCESS);

        Decision subscribed = rules.decide(up, subscription(DependencySignalKind.SUBSCRIBE, "up", "a", false), NOW);
        assertThat(subscribed.store()).isEqualTo(Decision.Store.UNCHANGED);
        assertThat(subscribed.effects()).hasSize(2);
        assertThat(subscribed.effects().get(0)).isEqualTo(new Effect.KeepSubscriber("up", "a", false));
        assertThat(subscribed.effects().get(1)).isInstanceOfSatisfying(Effect.Signal.class, signal -> {
            assertThat(signal.key()).isEqualTo("a");
            assertThat(signal.signal().getKind()).isEqualTo(DependencySignalKind.NOTIFY);
            assertThat(signal.signal().getOutcome()).isEqualTo("SUCCESS");
        });

        assertThat(rules.decide(up, subscription(DependencySignalKind.UNSUBSCRIBE, "up", "p", true), NOW).effects())
                .containsExactly(new Effect.ForgetSubscriber("up", "p", true));

        deps.tombstones.put("gone", NOW - 1);
        Decision purged = rules.decide(null, subscription(DependencySignalKind.SUBSCRIBE, "gone", "b", false), NOW);
        assertThat(purged.effects()).as("answered PURGED from the tombstone, not kept").singleElement()
                .isInstanceOfSatisfying(Effect.Signal.class, signal -> assertThat(signal.signal().getOutcome()).isEqualTo("PURGED"));
        assertThat(deps.sentLines()).as("nothing applied by the rules themselves").isEmpty();
        assertThat(deps.subscribers).isEmpty();
    }

    @Test
    void shouldRefuseANotifyWhichIsTheDependentsInput() {
        assertThatThrownBy(() -> onSignal(DependencySignalKind.NOTIFY, "up", "a", false))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** A SUBSCRIBE or UNSUBSCRIBE read from ax.deps: decided by the task rules, its effects applied, as the adapter does. */
    private void onSignal(DependencySignalKind kind, String upstream, String dependent, boolean everyOccurrence) {
        deps.apply(rules.decide(deps.task(upstream), subscription(kind, upstream, dependent, everyOccurrence), NOW));
    }

    private static Input.Subscription subscription(DependencySignalKind kind, String upstream, String dependent, boolean everyOccurrence) {
        return new Input.Subscription(upstream, DependencySignal.newBuilder().setKind(kind).setUpstream(upstream).setDependent(dependent)
                .setAtMs(NOW).setEveryOccurrence(everyOccurrence).build(), new SourceRecord("ax.deps", 0, 1L));
    }

    private void subscribe(String upstream, String... dependents) {
        for (String dependent : dependents) {
            onSignal(DependencySignalKind.SUBSCRIBE, upstream, dependent, false);
        }
        deps.sent.clear();
    }

    private static StoredTask finished(String taskId, TaskState state) {
        ScheduleRequest request = ScheduleRequest.newBuilder().setJobType("job").setTrigger(new AtTrigger(NOW - 1_000)).build();
        StoredTask task = Executions.newTask(taskId, 1, request, NOW - 2_000, null);
        StoredExecution execution = Executions.first("e-" + taskId, NOW - 1_000, NOW - 1_000);
        execution.setState(state);
        task.setExecution(execution);
        task.setFinishedAtMs(NOW - 500);
        return task;
    }
}
