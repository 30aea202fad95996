package io.ax.app.internal.core;

import io.ax.schema.AtTrigger;
import io.ax.schema.Dependency;
import io.ax.schema.DependencyCondition;
import io.ax.schema.StoredTask;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Dependencies of a periodic task's occurrences (topology-docs/WORKFLOWS.md, "Periodic tasks that wait"): whether the
 * occurrence due at nominal time {@code t} runs, is SKIPPED or waits, judged on each upstream's latest outcome whose
 * nominal time falls in the occurrence's period {@code (p, t]}, {@code p} being the nominal time of the occurrence
 * before it (none for the first: every earlier outcome counts).
 *
 * <p>Worked example, "the 01:30 export must finish before the 02:00 report, every day": the report's occurrence due
 * 2026-12-02T02:00 has the period (2026-12-01T02:00, 2026-12-02T02:00]. The export's latest outcome recorded is
 * {@code SUCCESS} of its occurrence due 2026-12-02T01:30: in the period, met, the report runs. Had it been
 * {@code FAILED} (or {@code SKIPPED}), the report's occurrence is SKIPPED with the reason, unless {@code afterRunAnyway}.
 * Had the latest been the one due 2026-12-01T01:30 (the export of 12-02 still running), the report waits until the
 * export's outcome arrives, at most {@code afterTimeoutMs} after 02:00 and at the latest 1 ms before the report's
 * next occurrence, then it is SKIPPED naming what it waited for.
 *
 * <p>Pure: no clock, no Kafka, no store. {@link #record} keeps the latest outcome per upstream; {@link #judge} decides.
 * The rest of this class applies them to a stored task as the transitions need: the subscriptions at acceptance
 * ({@link #maybeSubscribe}), the verdict at the occurrence's fire ({@link #atFire}, from {@code FireTimer}), a new
 * outcome ({@link #recordOutcome}, then {@link #rejudge}), the end of the wait ({@link #rejudge}), a cancel or pause
 * ({@link #maybeEndHold}). It decides and records; it applies no verdict: a verdict that ends a wait is applied by
 * {@code FireTimer}, which calls this class at every fire, so this class never calls it back.
 * While an occurrence waits, {@code nextDueAtMs} is that occurrence (its timer has fired) and {@code waitTimeoutAtMs}
 * the end of its wait (a DEPENDENCY_WAIT timer); {@code previousDueAtMs} is the start of the next period.
 */
public final class OccurrenceDependencies {
    /** How many conditions a reason names before it says "and N more". */
    private static final int NAMED_IN_REASON = 10;
    /** The outcome an upstream's occurrence reports when it did not run (overlap, misfire, calendar, its own wait). */
    public static final String SKIPPED = "SKIPPED";

    private OccurrenceDependencies() {
    }

    /** An upstream's latest outcome: SUCCESS, FAILED, CANCELLED, SKIPPED or PURGED, with its occurrence's nominal time. */
    public record Latest(String outcome, long nominalAtMs) {
    }

    /** What becomes of the occurrence. */
    public sealed interface Verdict permits Run, Skip, Wait {
        String reason();
    }

    /** Every condition met (or settled, with afterRunAnyway): the occurrence runs. */
    public record Run(String reason) implements Verdict {
    }

    /** A condition not met in the period: the occurrence is SKIPPED. */
    public record Skip(String reason) implements Verdict {
    }

    /** Some upstream has no outcome in the period yet: the occurrence waits, until {@code untilMs} at the latest. */
    public record Wait(long untilMs, String reason) implements Verdict {
    }

    /**
     * The latest outcomes with {@code outcome} of {@code upstream}'s occurrence due {@code nominalAtMs} recorded, or
     * {@code latest} itself when it already holds a later one (an outcome arriving out of order changes nothing) or this
     * very one. An outcome of the same nominal time replaces the recorded one (a replay of that occurrence).
     */
    public static Map<String, Latest> record(Map<String, Latest> latest, String upstream, String outcome, long nominalAtMs) {
        Latest known = latest.get(upstream);
        if (known != null && (known.nominalAtMs() > nominalAtMs
                || known.nominalAtMs() == nominalAtMs && known.outcome().equals(outcome))) {
            return latest;
        }
        Map<String, Latest> updated = new HashMap<>(latest);
        updated.put(upstream, new Latest(outcome, nominalAtMs));
        return updated;
    }

    /**
     * The latest time the occurrence due {@code dueAtMs} may wait for its upstreams: {@code afterTimeoutMs} after its due
     * time, and 1 ms before the next occurrence ({@code nextDueAtMs}, null when there is none), whichever is earlier.
     */
    public static long waitUntilMs(long dueAtMs, long afterTimeoutMs, Long nextDueAtMs) {
        long byTimeout = dueAtMs > Long.MAX_VALUE - afterTimeoutMs ? Long.MAX_VALUE : dueAtMs + afterTimeoutMs;
        return nextDueAtMs == null ? byTimeout : Math.max(dueAtMs, Math.min(byTimeout, nextDueAtMs - 1));
    }

    /**
     * The verdict on the occurrence due {@code dueAtMs}, the one before it due {@code previousDueAtMs} (null: none),
     * at {@code nowMs}, given the latest outcome of each upstream. An outcome outside the period does not count: older
     * ones belong to an earlier occurrence; a later one (the upstream ran ahead) is not this period's either.
     *
     * @param waitUntilMs from {@link #waitUntilMs}: reached, a condition with no outcome in the period is not met
     */
    public static Verdict judge(List<Dependency> after, Map<String, Latest> latest, Long previousDueAtMs, long dueAtMs,
                                boolean runAnyway, long waitUntilMs, long nowMs) {
        List<String> waitingFor = new ArrayList<>();
        List<String> unmet = new ArrayList<>();
        for (Dependency dependency : after) {
            Latest outcome = latest.get(dependency.getTaskId());
            if (outcome == null || !inPeriod(outcome.nominalAtMs(), previousDueAtMs, dueAtMs)) {
                waitingFor.add(dependency.getTaskId() + " (" + dependency.getOn() + ")");
            } else if (!met(dependency.getOn(), outcome.outcome())) {
                unmet.add(dependency.getTaskId() + " " + outcome.outcome() + " (due " + Instant.ofEpochMilli(outcome.nominalAtMs())
                        + "), not " + dependency.getOn());
            }
        }
        String period = "period (" + (previousDueAtMs == null ? "start" : Instant.ofEpochMilli(previousDueAtMs)) + ", "
                + Instant.ofEpochMilli(dueAtMs) + "]";
        if (!unmet.isEmpty() && !runAnyway) {
            return new Skip("dependency not met in its " + period + ": " + name(unmet));
        }
        if (!waitingFor.isEmpty() && nowMs < waitUntilMs) {
            return new Wait(waitUntilMs, "waits for " + name(waitingFor) + " in its " + period + ", until "
                    + Instant.ofEpochMilli(waitUntilMs));
        }
        if (!waitingFor.isEmpty() && !runAnyway) {
            return new Skip("dependency wait ended at " + Instant.ofEpochMilli(waitUntilMs) + " with no outcome in its " + period
                    + " of " + name(waitingFor));
        }
        if (unmet.isEmpty() && waitingFor.isEmpty()) {
            return new Run("every condition met in its " + period + " (" + after.size() + ")");
        }
        List<String> settled = new ArrayList<>(unmet);
        waitingFor.forEach(w -> settled.add(w + " had no outcome"));
        return new Run("runs anyway (afterRunAnyway) although in its " + period + " " + name(settled));
    }

    // ---- applied to a stored task ----

    /** A periodic task that names {@code after}: its occurrences wait for their upstreams. */
    static boolean appliesTo(StoredTask task) {
        return !task.getRequest().getAfter().isEmpty() && !(task.getRequest().getTrigger() instanceof AtTrigger);
    }

    /** At acceptance: the task asks each upstream's partition for the outcome of each of its occurrences. */
    static void maybeSubscribe(Step step, StoredTask task) {
        if (appliesTo(task)) {
            for (Dependency dependency : task.getRequest().getAfter()) {
                step.subscribeEveryOccurrence(dependency.getTaskId());
            }
        }
    }

    /** The task times no further occurrence (cancelled, replaced, schedule ended): its subscriptions go. */
    static void maybeUnsubscribe(Step step, StoredTask task) {
        if (appliesTo(task)) {
            for (Dependency dependency : task.getRequest().getAfter()) {
                step.unsubscribeEveryOccurrence(dependency.getTaskId());
            }
        }
    }

    /**
     * The verdict on the occurrence due {@code dueAtMs} as its timer fires. A {@link Wait} has been applied (held, its
     * wait timer set, saved by the caller); the caller applies a {@link Skip} or goes on with a {@link Run}.
     */
    static Verdict atFire(Step step, StoredTask task, long dueAtMs) {
        Occurrences.Plan plan = Occurrences.afterFire(task.getTaskId(), task.getRequest(), task.getOccurrences() + 1, dueAtMs, dueAtMs);
        Long nextDueAtMs = plan.next().isPresent() ? plan.next().getAsLong() : null;
        long untilMs = waitUntilMs(dueAtMs, task.getRequest().getAfterTimeoutMs(), nextDueAtMs);
        Verdict verdict = judge(task.getRequest().getAfter(), latest(task), task.getPreviousDueAtMs(), dueAtMs,
                task.getRequest().getAfterRunAnyway(), untilMs, step.nowMs());
        if (verdict instanceof Wait wait) {
            task.setWaitTimeoutAtMs(wait.untilMs());
            step.setTimer(wait.untilMs(), 0, TimerKind.DEPENDENCY_WAIT);
            step.held(task, ExecutionIds.of(task.getTaskId(), task.getIncarnation(), dueAtMs), dueAtMs, "held: " + wait.reason());
        }
        return verdict;
    }

    /**
     * An upstream's occurrence ended ({@code outcome} of the one due {@code nominalAtMs}): recorded in {@code task} as
     * that upstream's latest outcome if it is later than the one recorded. False when it is not (older, or told twice):
     * nothing changed.
     */
    static boolean recordOutcome(StoredTask task, String upstream, String outcome, long nominalAtMs) {
        Map<String, Latest> latest = latest(task);
        Map<String, Latest> updated = record(latest, upstream, outcome, nominalAtMs);
        if (updated == latest) {
            return false;
        }
        Map<String, String> outcomes = new HashMap<>();
        Map<String, Long> nominal = new HashMap<>();
        updated.forEach((name, recorded) -> {
            outcomes.put(name, recorded.outcome());
            nominal.put(name, recorded.nominalAtMs());
        });
        task.setDependencyOutcomes(outcomes);
        task.setUpstreamNominalAtMs(nominal);
        return true;
    }

    /** Whether an occurrence of {@code task} waits for its upstreams (its timer fired, its wait timer set). */
    static boolean anyWaits(StoredTask task) {
        return task.getWaitTimeoutAtMs() != null && task.getNextDueAtMs() != null;
    }

    /** Whether the DEPENDENCY_WAIT timer due {@code dueAtMs} ends the wait of an occurrence that waits, not a stale copy. */
    static boolean endsTheWait(StoredTask task, long dueAtMs) {
        return anyWaits(task) && task.getWaitTimeoutAtMs() == dueAtMs;
    }

    /**
     * The occurrence that waits ({@link #anyWaits}) judged again: after a new outcome ({@code atWaitEnd} false), or at the
     * end of its wait, with no time left to wait ({@code atWaitEnd} true). A {@link Wait} leaves it waiting; any other
     * verdict ends the wait (its timer given up when it has not fired) and the caller applies it ({@code FireTimer}).
     */
    static Verdict rejudge(Step step, StoredTask task, boolean atWaitEnd) {
        long dueAtMs = task.getNextDueAtMs();
        long untilMs = task.getWaitTimeoutAtMs();
        Verdict verdict = judge(task.getRequest().getAfter(), latest(task), task.getPreviousDueAtMs(), dueAtMs,
                task.getRequest().getAfterRunAnyway(), untilMs, atWaitEnd ? Math.max(step.nowMs(), untilMs) : step.nowMs());
        if (verdict instanceof Wait) {
            return verdict;
        }
        if (!atWaitEnd) {
            step.unsetTimer(untilMs, TimerKind.DEPENDENCY_WAIT);
        }
        task.setWaitTimeoutAtMs(null);
        return verdict;
    }

    /**
     * A cancel, replace or pause meets an occurrence that waits: its wait timer is given up (the caller ends or keeps the
     * occurrence itself, as any pending one). True when one waited.
     */
    static boolean maybeEndHold(Step step, StoredTask task, StoredTask.Builder ended) {
        if (task.getWaitTimeoutAtMs() == null || !appliesTo(task)) {
            return false;
        }
        step.unsetTimer(task.getWaitTimeoutAtMs(), TimerKind.DEPENDENCY_WAIT);
        if (ended != null) {
            ended.setWaitTimeoutAtMs(null);
        } else {
            task.setWaitTimeoutAtMs(null);
        }
        return true;
    }

    /**
     * {@code ifExists=UPDATE} of a periodic task to {@code request}: an occurrence that waits gives its wait up (it is
     * not on the new schedule: the caller ends it); the tasks no longer named are unsubscribed and their outcomes
     * forgotten, the ones newly named subscribed.
     */
    static void onUpdate(Step step, StoredTask task, io.ax.schema.ScheduleRequest request) {
        maybeEndHold(step, task, null);
        java.util.Set<String> before = new java.util.LinkedHashSet<>();
        task.getRequest().getAfter().forEach(d -> before.add(d.getTaskId()));
        java.util.Set<String> after = new java.util.LinkedHashSet<>();
        request.getAfter().forEach(d -> after.add(d.getTaskId()));
        for (String upstream : before) {
            if (!after.contains(upstream)) {
                step.unsubscribeEveryOccurrence(upstream);
            }
        }
        for (String upstream : after) {
            if (!before.contains(upstream)) {
                step.subscribeEveryOccurrence(upstream);
            }
        }
        if (!after.containsAll(task.getDependencyOutcomes().keySet())) {
            Map<String, String> outcomes = new HashMap<>(task.getDependencyOutcomes());
            outcomes.keySet().retainAll(after);
            Map<String, Long> nominal = new HashMap<>(task.getUpstreamNominalAtMs());
            nominal.keySet().retainAll(after);
            task.setDependencyOutcomes(outcomes);
            task.setUpstreamNominalAtMs(nominal);
        }
    }

    /** The latest outcomes recorded in {@code task}, by upstream. */
    static Map<String, Latest> latest(StoredTask task) {
        Map<String, Latest> latest = new HashMap<>();
        task.getDependencyOutcomes().forEach((upstream, outcome) -> {
            Long nominalAtMs = task.getUpstreamNominalAtMs().get(upstream);
            if (nominalAtMs != null) {
                latest.put(upstream, new Latest(outcome, nominalAtMs));
            }
        });
        return latest;
    }

    /** The nominal time falls in (previous, due]. */
    static boolean inPeriod(long nominalAtMs, Long previousDueAtMs, long dueAtMs) {
        return nominalAtMs <= dueAtMs && (previousDueAtMs == null || nominalAtMs > previousDueAtMs);
    }

    /**
     * As for one-shot dependencies ({@link AwaitDependencies#met}), except that a SKIPPED occurrence did not run and so
     * meets no condition, COMPLETED included.
     */
    static boolean met(DependencyCondition on, String outcome) {
        return !SKIPPED.equals(outcome) && AwaitDependencies.met(on, outcome);
    }

    private static String name(List<String> items) {
        if (items.size() <= NAMED_IN_REASON) {
            return String.join(", ", items);
        }
        return String.join(", ", items.subList(0, NAMED_IN_REASON)) + " and " + (items.size() - NAMED_IN_REASON) + " more";
    }
}
