package io.ax.app.internal.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.ax.schema.DispatchKind;
import io.ax.schema.DispatchTask;
import io.ax.schema.ReportStatus;
import io.ax.schema.StoredTask;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * Periodic tasks that wait ({@code everyMs} with {@code after}; topology-docs/WORKFLOWS.md) under random sequences of
 * timers, time passing, reports and upstream occurrence outcomes (any order, any nominal time, told twice), with strict
 * settings (an illegal transition throws). Whatever the order:
 * <ol>
 *   <li>an occurrence runs only when each upstream's latest outcome told so far, counted only if its nominal time is in
 *       the occurrence's period (the previous occurrence's due time, its due time], meets the condition (any outcome,
 *       with afterRunAnyway), and never before its due time;</li>
 *   <li>a live task that is not paused always has a timer that will decide it: its occurrence's, or the wait's of an
 *       occurrence that is held, and that wait ends before the next occurrence is due.</li>
 * </ol>
 */
class PeriodicDependentsPropertiesTest {
    private static final long EVERY_MS = 1_000;
    private static final List<String> OUTCOMES = List.of("SUCCESS", "FAILED", "CANCELLED", "SKIPPED");

    record Move(int action, int pick) {
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
        return Combinators.combine(Arbitraries.integers().between(0, 9), Arbitraries.integers().between(0, 63)).as(Move::new)
                .list().ofMinSize(1).ofMaxSize(80);
    }

    @Property(tries = 300)
    void shouldRunAnOccurrenceOnlyOnItsPeriodsOutcomesAndAlwaysDecideIt(@ForAll("shapes") Shape shape,
                                                                       @ForAll("moves") List<Move> moves) {
        CoreDriver ax = new CoreDriver();
        ax.schedule(shape.json());
        assertThat(ax.task()).as("accepted: %s", shape.json()).isNotNull();
        Map<String, OccurrenceDependencies.Latest> told = new HashMap<>();
        int runs = 0;
        int held = 0;
        for (Move move : moves) {
            StoredTask before = ax.task();
            Decision decision = switch (move.action()) {
                case 0, 1, 2 -> ax.fireEarliest().orElse(null);
                case 3 -> {
                    ax.advanceMs(300);
                    yield null;
                }
                case 4 -> ax.report(ReportStatus.SUCCEEDED, true);
                case 5 -> ax.report(ReportStatus.FAILED, move.pick() % 2 == 0);
                case 6 -> ax.deliverRetry().orElse(null);
                default -> {
                    String upstream = move.pick() % 2 == 0 ? "a" : "b";
                    String outcome = OUTCOMES.get(move.pick() / 2 % OUTCOMES.size());
                    long nominalAtMs = Math.max(CoreDriver.T0, ax.nowMs() - (move.pick() / 8 % 4) * EVERY_MS);
                    told = OccurrenceDependencies.record(told, upstream, outcome, nominalAtMs);
                    yield ax.occurrenceOutcome(upstream, outcome, nominalAtMs);
                }
            };
            if (decision == null) {
                continue;
            }
            for (Effect effect : decision.effects()) {
                if (effect instanceof Effect.Dispatch dispatch && dispatch.task().getKind() == DispatchKind.RUN
                        && dispatch.task().getAttempt() == 1) {
                    runs++;
                    assertRunAllowed(shape, told, before, dispatch.task(), ax.nowMs());
                }
            }
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
        Statistics.label("ran").collect(runs > 0);
        Statistics.label("held").collect(held > 0);
        Statistics.label("ran").coverage(c -> c.check(true).percentage(p -> p >= 10));
        Statistics.label("held").coverage(c -> c.check(true).percentage(p -> p >= 10));
    }

    private static void assertRunAllowed(Shape shape, Map<String, OccurrenceDependencies.Latest> told, StoredTask before,
                                         DispatchTask run, long nowMs) {
        long dueAtMs = run.getDueAtMs();
        assertThat(dueAtMs).as("never early").isLessThanOrEqualTo(nowMs);
        if (shape.runAnyway()) {
            return;
        }
        Long previous = before.getPreviousDueAtMs();
        Map<String, String> on = Map.of("a", shape.onA(), "b", shape.onB());
        on.forEach((upstream, condition) -> {
            OccurrenceDependencies.Latest latest = told.get(upstream);
            assertThat(latest).as("%s told before the run due %s", upstream, dueAtMs).isNotNull();
            assertThat(OccurrenceDependencies.inPeriod(latest.nominalAtMs(), previous, dueAtMs))
                    .as("%s's latest (%s) in the period (%s, %s]", upstream, latest, previous, dueAtMs).isTrue();
            assertThat(OccurrenceDependencies.met(io.ax.schema.DependencyCondition.valueOf(condition), latest.outcome()))
                    .as("%s's latest (%s) meets %s", upstream, latest, condition).isTrue();
        });
    }
}
