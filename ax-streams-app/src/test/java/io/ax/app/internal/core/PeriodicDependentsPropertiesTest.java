package io.ax.app.internal.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.ax.app.internal.core.OccurrenceDependencies.Latest;
import io.ax.schema.DependencyCondition;
import io.ax.schema.DependencySignal;
import io.ax.schema.DependencySignalKind;
import io.ax.schema.DispatchKind;
import io.ax.schema.DispatchTask;
import io.ax.schema.ReportStatus;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

/**
 * Periodic tasks that wait ({@code everyMs} with {@code after}; topology-docs/WORKFLOWS.md) under random sequences of
 * timers, time passing, reports and the dependency protocol's steps, with strict settings (an illegal transition throws).
 * The tasks waited for, {@code a} and {@code b}, are real periodic tasks decided by the same rules ({@link CoreDriver}),
 * run, failed, timed out, cancelled, purged and scheduled again by the moves ({@code b} is first scheduled by a move, so
 * the dependent may ask for it before it exists), on one clock with the dependent. The upstream side of the protocol is
 * the real {@link DependencyRules} over an in-memory store ({@link MemoryDependencies}), as in
 * {@code WorkflowRulesPropertiesTest}: the dependent's SUBSCRIBE for every occurrence reaches its upstream's rules, which
 * keep it and answer it with the upstream's last occurrence that ended; each occurrence an upstream ends owes a sweep over
 * its periodic subscribers, stepped by a move; each signal waits on ax.deps, in its key's order, until a move hands it to
 * its task; a purge leaves a tombstone, which an expiry step ({@link DependencyRules#expireTombstones}) forgets once its
 * retention has passed and a schedule request under the id forgets at once. So the dependent hears only outcomes its
 * upstreams' own decisions reached, never one the test made up. Whatever the order:
 * <ol>
 *   <li>an occurrence runs only when each upstream's latest outcome told so far, counted only if its nominal time is in
 *       the occurrence's period (the previous occurrence's due time, its due time], meets the condition (any outcome,
 *       with afterRunAnyway), and never before its due time;</li>
 *   <li>a live task that is not paused always has a timer that will decide it: its occurrence's, or the wait's of an
 *       occurrence that is held, and that wait ends before the next occurrence is due;</li>
 *   <li>every NOTIFY the rules send is keyed by the dependent and tells an occurrence outcome, with its nominal time, that
 *       its upstream's decisions ended; once the protocol is drained (every sweep stepped, every signal read), the
 *       dependent has been told each upstream's last occurrence outcome that ended while it was subscribed;</li>
 *   <li>a tombstone is kept exactly while its upstream is purged and not scheduled again, with its purge time; an expiry
 *       step forgets none before its retention, and, forgetting fewer than its batch, leaves no expired one behind.</li>
 * </ol>
 */
class PeriodicDependentsPropertiesTest {
    private static final long EVERY_MS = 1_000;
    /** The upstreams' retention: short, so that a cancelled upstream is purged, and its tombstone expires, within a sequence. */
    private static final long RETENTION_MS = 2_000;
    private static final String UPSTREAM_JSON = "{\"jobType\":\"u\",\"everyMs\":" + EVERY_MS + ",\"timeoutMs\":700,\"maxRetries\":0}";
    private static final List<String> UPSTREAMS = List.of("a", "b");

    enum Action {
        FIRE, ADVANCE, SUCCEEDED, FAILED, DELIVER_RETRY,
        /** An upstream's move: scheduled or its timer fired, succeeded, failed, cancelled or purged. */
        UPSTREAM,
        /** One step of the sweeps owed to subscribers. */
        SWEEP,
        /** The oldest signal of one key of ax.deps read by its task's rules. */
        DELIVER,
        /** Time passing (0 to 2 s), then one step of the tombstones' expiry. */
        EXPIRE
    }

    /** One input; {@code pick} chooses what it concerns (which upstream and move, which key, which batch and when). */
    record Move(Action action, int pick) {
    }

    record Shape(String onA, String onB, boolean runAnyway, long afterTimeoutMs) {
        String json() {
            return "{\"jobType\":\"j\",\"everyMs\":" + EVERY_MS + ",\"maxRetries\":1,\"timeoutMs\":700,\"after\":[{\"taskId\":\"a\",\"on\":\""
                    + onA + "\"},{\"taskId\":\"b\",\"on\":\"" + onB + "\"}],\"afterRunAnyway\":" + runAnyway
                    + ",\"afterTimeoutMs\":" + afterTimeoutMs + "}";
        }
    }

    @Provide
    Arbitrary<Shape> shapes() {
        Arbitrary<String> on = Arbitraries.of("SUCCESS", "FAILURE", "COMPLETED");
        return Combinators.combine(on, on, Arbitraries.of(true, false), Arbitraries.of(300L, 60_000L)).as(Shape::new);
    }

    @Provide
    Arbitrary<List<Move>> moves() {
        Arbitrary<Action> action = Arbitraries.frequency(
                Tuple.of(6, Action.FIRE), Tuple.of(2, Action.ADVANCE), Tuple.of(2, Action.SUCCEEDED), Tuple.of(2, Action.FAILED),
                Tuple.of(2, Action.DELIVER_RETRY), Tuple.of(10, Action.UPSTREAM), Tuple.of(4, Action.SWEEP),
                Tuple.of(6, Action.DELIVER), Tuple.of(3, Action.EXPIRE));
        return Combinators.combine(action, Arbitraries.integers().between(0, 63)).as(Move::new).list().ofMinSize(40).ofMaxSize(120);
    }

    // The property also checks that its sequences reach what it is about (Statistics coverage), so that a generator that
    // stopped reaching it would fail rather than pass for want of trying. The floors sit about half way below what the
    // generators reach in 300 tries (ran ~45-50 %, held ~99 %, told at its subscription ~25 %, told by a sweep ~98 %,
    // owed an upstream's last outcome at the end ~97 %, an upstream purged ~20-28 %, a tombstone expired ~8-13 %; one
    // standard deviation is 2-3 points). The sequences are long (40 to 120 moves): an upstream needs a few moves of its
    // own to end an occurrence, and a NOTIFY a sweep and a delivery to arrive; a tombstone expires only after a cancel, a
    // purge and its retention.

    @Property(tries = 300)
    void shouldRunAnOccurrenceOnlyOnItsPeriodsOutcomesAndAlwaysDecideIt(@ForAll("shapes") Shape shape,
                                                                       @ForAll("moves") List<Move> moves) {
        Checker check = new Checker(shape);
        for (Move move : moves) {
            check.move(move);
        }
        check.drain();
        Statistics.label("ran").collect(check.runs > 0);
        Statistics.label("held").collect(check.held > 0);
        Statistics.label("told at its subscription").collect(check.answeredAtSubscription);
        Statistics.label("told by a sweep").collect(check.toldBySweep);
        Statistics.label("owed an upstream's last outcome at the end").collect(!check.owed.isEmpty());
        Statistics.label("an upstream purged").collect(check.purges > 0);
        Statistics.label("a tombstone expired").collect(check.expired);
        Statistics.label("scheduled again while purged").collect(check.scheduledAgain);
        Statistics.label("ran").coverage(c -> c.check(true).percentage(p -> p >= 20));
        Statistics.label("held").coverage(c -> c.check(true).percentage(p -> p >= 50));
        Statistics.label("told at its subscription").coverage(c -> c.check(true).percentage(p -> p >= 10));
        Statistics.label("told by a sweep").coverage(c -> c.check(true).percentage(p -> p >= 50));
        Statistics.label("owed an upstream's last outcome at the end").coverage(c -> c.check(true).percentage(p -> p >= 50));
        Statistics.label("an upstream purged").coverage(c -> c.check(true).percentage(p -> p >= 12));
        Statistics.label("a tombstone expired").coverage(c -> c.check(true).percentage(p -> p >= 4));
    }

    /**
     * The dependent, its upstreams and the protocol between them, on one clock: plays the moves, follows every decision's
     * effects, and checks each invariant as it goes.
     */
    private static final class Checker {
        private final Shape shape;
        private final CoreDriver ax;
        private final Map<String, CoreDriver> upstreams = new LinkedHashMap<>();
        private final MemoryDependencies deps;
        /** The latest outcome, by nominal time, each upstream told the dependent (as WORKFLOWS.md says, not by the rules' code). */
        private final Map<String, Latest> told = new HashMap<>();
        /** Every outcome each upstream told the dependent. */
        private final Map<String, Set<Latest>> heard = new HashMap<>();
        /** Each upstream's occurrence outcomes, as its decisions ended them. */
        private final Map<String, Set<Latest>> ended = new HashMap<>();
        /** Each upstream's last occurrence that ended while the dependent was its periodic subscriber. */
        private final Map<String, Latest> owed = new HashMap<>();
        /** When each upstream was purged, while it is neither scheduled again nor its tombstone expired. */
        private final Map<String, Long> purgedAt = new HashMap<>();
        private int sentChecked;
        // what the sequence reached, for the property's coverage
        private int runs;
        private int held;
        private boolean answeredAtSubscription;
        private boolean toldBySweep;
        private boolean expired;
        private int purges;
        private boolean scheduledAgain;

        Checker(Shape shape) {
            this.shape = shape;
            this.deps = new MemoryDependencies(upstream -> upstreams.containsKey(upstream) ? upstreams.get(upstream).task() : null);
            this.ax = new CoreDriver(CoreDriver.TASK, FlowLimits.NONE, deps); // one partition's dependency side, as in the adapter
            UPSTREAMS.forEach(upstream -> upstreams.put(upstream, new CoreDriver(upstream, FlowLimits.NONE, deps, RETENTION_MS)));
            decided(null, ax.schedule(shape.json()));
            assertThat(ax.task()).as("accepted: %s", shape.json()).isNotNull();
            CoreDriver a = upstreams.get("a");
            applyUpstream("a", Optional.of(a.schedule(UPSTREAM_JSON)));
        }

        void move(Move move) {
            sync();
            int pick = move.pick();
            StoredTask before = ax.task();
            switch (move.action()) {
                case FIRE -> ax.fireEarliest().ifPresent(decision -> decided(before, decision));
                case ADVANCE -> ax.advanceMs(300);
                case SUCCEEDED -> decided(before, ax.report(ReportStatus.SUCCEEDED, true));
                case FAILED -> decided(before, ax.report(ReportStatus.FAILED, pick % 2 == 0));
                case DELIVER_RETRY -> ax.deliverRetry().ifPresent(decision -> decided(before, decision));
                case UPSTREAM -> upstreamMove(pick);
                case SWEEP -> sweep(1 + pick % 2);
                case DELIVER -> deliver(pick);
                case EXPIRE -> {
                    ax.advanceMs(pick / 2 % 3 * 1_000); // the expiry's punctuation comes when it comes
                    sync();
                    expire(1 + pick % 2);
                }
            }
        }

        /** Every driver's clock moved to the latest of them: one clock for the dependent and its upstreams. */
        private void sync() {
            long nowMs = ax.nowMs();
            for (CoreDriver upstream : upstreams.values()) {
                nowMs = Math.max(nowMs, upstream.nowMs());
            }
            ax.advanceToMs(nowMs);
            for (CoreDriver upstream : upstreams.values()) {
                upstream.advanceToMs(nowMs);
            }
        }

        // ---- the upstreams ----

        /**
         * One move of an upstream ({@code pick}: which, and what): mostly a step of its life (scheduled when it has no task
         * and no tombstone, its execution's success or failure reported while it runs, else its earliest timer but its purge
         * fired); now and then a cancel (when it is live), its purge timer fired, or a schedule request when it has no task
         * (so, after a purge, under its tombstone).
         */
        private void upstreamMove(int pick) {
            String id = UPSTREAMS.get(pick % UPSTREAMS.size());
            CoreDriver upstream = upstreams.get(id);
            int what = pick / UPSTREAMS.size() % 16;
            applyUpstream(id, switch (what) {
                case 9, 10, 11 -> upstream.task() != null && Liveness.isLive(upstream.task()) ? Optional.of(upstream.cancel())
                        : Optional.empty();
                case 12, 13, 14 -> upstream.fire(TimerKind.PURGE);
                case 15 -> upstream.task() == null ? Optional.of(upstream.schedule(UPSTREAM_JSON)) : Optional.empty();
                default -> purgedAt.containsKey(id) ? Optional.empty() // its tombstone waits for an expiry step or move 15
                        : step(upstream, what < 7 ? ReportStatus.SUCCEEDED : ReportStatus.FAILED);
            });
        }

        private static Optional<Decision> step(CoreDriver upstream, ReportStatus end) {
            StoredTask task = upstream.task();
            if (task == null) {
                return Optional.of(upstream.schedule(UPSTREAM_JSON));
            }
            if (task.getExecution() != null && (task.getExecution().getState() == TaskState.TRIGGERED
                    || task.getExecution().getState() == TaskState.RUNNING)) {
                return Optional.of(upstream.report(end, false));
            }
            return upstream.timers().stream().filter(t -> t.kind() != TimerKind.PURGE).findFirst().flatMap(t -> upstream.fire(t.kind()));
        }

        /**
         * An upstream's decision: the occurrences it ended (from its events) and its purges (from its task) noted, its
         * dependency effects checked against them and applied.
         */
        private void applyUpstream(String id, Optional<Decision> decision) {
            decision.ifPresent(d -> {
                CoreDriver upstream = upstreams.get(id);
                boolean subscribed = deps.occurrenceSubscribers.containsKey(id)
                        && deps.occurrenceSubscribers.get(id).contains(CoreDriver.TASK);
                List<Latest> owedNow = d.effects().stream().filter(effect -> effect instanceof Effect.OweOccurrenceSweep)
                        .map(effect -> ((Effect.OweOccurrenceSweep) effect).sweep())
                        .map(sweep -> new Latest(sweep.outcome(), sweep.nominalAtMs())).toList();
                List<Latest> endedNow = occurrencesEnded(d);
                assertThat(owedNow).as("each occurrence %s ended is owed to its periodic subscribers, when it has any", id)
                        .isEqualTo(deps.occurrenceSubscribers.containsKey(id) ? endedNow : List.of());
                for (Latest outcome : endedNow) {
                    ended.computeIfAbsent(id, u -> new HashSet<>()).add(outcome);
                    if (subscribed) {
                        owed.put(id, outcome);
                    }
                }
                if (upstream.purgedByLast()) {
                    purgedAt.put(id, upstream.nowMs());
                    purges++;
                } else if (upstream.acceptedByLast()) {
                    scheduledAgain |= purgedAt.remove(id) != null;
                }
                deps.apply(d);
                checkSent();
                checkTombstones();
            });
        }

        /**
         * The occurrences {@code decision} ended, as WORKFLOWS.md tells them from the events: an execution's (not a slice's)
         * event to SUCCESS, FAILED, CANCELLED or SKIPPED from another state, at its nominal time (a run of skipped ones at
         * the last), in the order written.
         */
        private static List<Latest> occurrencesEnded(Decision decision) {
            Set<TaskState> ends = Set.of(TaskState.SUCCESS, TaskState.FAILED, TaskState.CANCELLED, TaskState.SKIPPED);
            return CoreDriver.events(decision).stream()
                    .filter(change -> change.getShard() == null && change.getDueAtMs() != null && ends.contains(change.getTo())
                            && !change.getTo().name().equals(change.getFrom()))
                    .map(change -> new Latest(change.getTo().name(),
                            change.getLastDueAtMs() != null ? change.getLastDueAtMs() : change.getDueAtMs()))
                    .toList();
        }

        // ---- the protocol ----

        /** One punctuation's step of the sweeps owed, with a budget of {@code budget} subscribers. */
        private void sweep(int budget) {
            int before = deps.sent.size();
            deps.sweep(ax.nowMs(), budget);
            toldBySweep |= deps.sent.size() > before;
            checkSent();
        }

        /**
         * The oldest signal of one key of ax.deps ({@code pick} chooses which), read by its task's rules: a SUBSCRIBE or
         * UNSUBSCRIBE by its upstream's, a NOTIFY by the dependent's. Returns whether there was one.
         */
        private boolean deliver(int pick) {
            Optional<MemoryDependencies.Signal> next = deps.take(pick);
            if (next.isEmpty()) {
                return false;
            }
            DependencySignal signal = next.get().signal();
            if (signal.getKind() != DependencySignalKind.NOTIFY) {
                CoreDriver upstream = upstreams.get(next.get().key());
                assertThat(upstream).as("a subscription goes to a task waited for: %s", signal).isNotNull();
                Decision decided = upstream.signal(signal);
                answeredAtSubscription |= decided.effects().stream().anyMatch(effect -> effect instanceof Effect.Signal answer && answer.is(DependencySignalKind.NOTIFY));
                deps.apply(decided);
                checkSent();
                return true;
            }
            Latest outcome = new Latest(signal.getOutcome(), signal.getNominalAtMs());
            told.merge(signal.getUpstream(), outcome, (known, now) -> now.nominalAtMs() >= known.nominalAtMs() ? now : known);
            heard.computeIfAbsent(signal.getUpstream(), u -> new HashSet<>()).add(outcome);
            StoredTask before = ax.task();
            decided(before, ax.signal(signal));
            return true;
        }

        /** One step of the tombstones' expiry, at most {@code batch} of them. */
        private void expire(int batch) {
            long nowMs = ax.nowMs();
            Map<String, Long> before = new HashMap<>(deps.tombstones);
            int went = deps.expireTombstones(nowMs, RETENTION_MS, batch);
            Map<String, Long> forgotten = new HashMap<>(before);
            forgotten.keySet().removeAll(deps.tombstones.keySet());
            assertThat(went).as("the tombstones that went").isEqualTo(forgotten.size()).isLessThanOrEqualTo(batch);
            forgotten.forEach((upstream, purgedAtMs) -> assertThat(purgedAtMs)
                    .as("%s's tombstone went no sooner than its retention (now %s)", upstream, nowMs).isLessThan(nowMs - RETENTION_MS));
            if (went < batch) {
                assertThat(deps.tombstones.values()).as("a step that forgot fewer than its batch left no expired tombstone")
                        .allSatisfy(purgedAtMs -> assertThat(purgedAtMs).isGreaterThanOrEqualTo(nowMs - RETENTION_MS));
            }
            purgedAt.keySet().removeAll(forgotten.keySet());
            expired |= went > 0;
            checkTombstones();
        }

        /**
         * The end of the story: every sweep stepped and every signal read until nothing is owed or in flight; then the
         * dependent has heard each upstream's last occurrence that ended while it was subscribed.
         */
        void drain() {
            sync();
            for (int round = 0; deps.sweepOwed() || deliver(0); round++) {
                assertThat(round).as("the protocol drains").isLessThan(10_000);
                sweep(1_000);
            }
            owed.forEach((upstream, last) -> assertThat(heard.getOrDefault(upstream, Set.of()))
                    .as("the dependent heard %s's last occurrence that ended while it was subscribed", upstream).contains(last));
        }

        // ---- the invariants ----

        /** The dependent decided: its runs checked, its dependency effects applied, its timers checked. */
        private void decided(StoredTask before, Decision decision) {
            for (Effect effect : decision.effects()) {
                if (effect instanceof Effect.Dispatch dispatch && dispatch.task().getKind() == DispatchKind.RUN
                        && dispatch.task().getAttempt() == 1) {
                    runs++;
                    assertRunAllowed(before, dispatch.task());
                }
            }
            deps.apply(decision);
            checkSent();
            StoredTask task = ax.task();
            if (task != null && task.getWaitTimeoutAtMs() != null) {
                held++;
                assertThat(ax.timers()).as("a held occurrence's wait has its timer")
                        .contains(new CoreDriver.Timer(TimerKind.DEPENDENCY_WAIT, task.getWaitTimeoutAtMs()));
                assertThat(task.getWaitTimeoutAtMs()).as("the wait ends before the next occurrence")
                        .isLessThan(task.getNextDueAtMs() + EVERY_MS);
            } else if (task != null && task.getNextDueAtMs() != null && task.getPausedAtMs() == null && !task.getCatchUpHeld()) {
                assertThat(ax.timers()).as("the next occurrence has its timer")
                        .contains(new CoreDriver.Timer(TimerKind.OCCURRENCE, task.getNextDueAtMs()));
            }
        }

        private void assertRunAllowed(StoredTask before, DispatchTask run) {
            long dueAtMs = run.getDueAtMs();
            assertThat(dueAtMs).as("never early").isLessThanOrEqualTo(ax.nowMs());
            if (shape.runAnyway()) {
                return;
            }
            Long previous = before.getPreviousDueAtMs();
            Map<String, String> on = Map.of("a", shape.onA(), "b", shape.onB());
            on.forEach((upstream, condition) -> {
                Latest latest = told.get(upstream);
                assertThat(latest).as("%s told before the run due %s", upstream, dueAtMs).isNotNull();
                assertThat(OccurrenceDependencies.inPeriod(latest.nominalAtMs(), previous, dueAtMs))
                        .as("%s's latest (%s) in the period (%s, %s]", upstream, latest, previous, dueAtMs).isTrue();
                assertThat(OccurrenceDependencies.met(DependencyCondition.valueOf(condition), latest.outcome()))
                        .as("%s's latest (%s) meets %s", upstream, latest, condition).isTrue();
            });
        }

        /** Every signal the rules sent since the last look. */
        private void checkSent() {
            for (; sentChecked < deps.sent.size(); sentChecked++) {
                MemoryDependencies.Signal sent = deps.sent.get(sentChecked);
                DependencySignal signal = sent.signal();
                if (signal.getKind() == DependencySignalKind.NOTIFY) {
                    assertThat(sent.key()).as("a NOTIFY is keyed by its dependent").isEqualTo(CoreDriver.TASK);
                    assertThat(signal.getNominalAtMs()).as("a periodic subscriber is told an occurrence: %s", signal).isNotNull();
                    assertThat(ended.getOrDefault(signal.getUpstream(), Set.of()))
                            .as("the rules told %s that %s's occurrence due %s ended %s", signal.getDependent(), signal.getUpstream(),
                                    signal.getNominalAtMs(), signal.getOutcome())
                            .contains(new Latest(signal.getOutcome(), signal.getNominalAtMs()));
                } else {
                    assertThat(sent.key()).as("a subscription is keyed by its upstream").isEqualTo(signal.getUpstream());
                    assertThat(signal.getEveryOccurrence()).as("a periodic task subscribes for every occurrence").isTrue();
                }
            }
        }

        /** The tombstones are the purged upstreams that were neither scheduled again nor expired, with their purge times. */
        private void checkTombstones() {
            assertThat(deps.tombstones).as("the tombstones").isEqualTo(purgedAt);
        }
    }
}
