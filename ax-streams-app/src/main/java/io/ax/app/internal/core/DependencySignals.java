package io.ax.app.internal.core;

import io.ax.schema.DependencySignal;
import io.ax.schema.DependencySignalKind;

/**
 * The records of ax.deps (topology-docs/WORKFLOWS.md), built in one place for both sides of a dependency: the
 * dependent's SUBSCRIBE and UNSUBSCRIBE, which its decisions hand to the adapter as whole records keyed by the upstream
 * ({@link Effect.Signal}: the adapter writes them as they are and decides nothing), and the upstream's NOTIFY ({@link DependencyRules}). A leaf of the core: the transitions and the upstream's rules use it, and
 * it uses no rule back.
 */
final class DependencySignals {
    private DependencySignals() {
    }

    /**
     * The dependent asks {@code upstream}'s partition for its final state, or, {@code everyOccurrence}, for each of its
     * occurrences' outcomes.
     */
    static Effect.Signal subscribe(String upstream, String dependent, boolean everyOccurrence, long nowMs) {
        return new Effect.Signal(upstream, signal(DependencySignalKind.SUBSCRIBE, upstream, dependent, null, null, nowMs,
                everyOccurrence, null));
    }

    /** The dependent waits for {@code upstream} no more. */
    static Effect.Signal unsubscribe(String upstream, String dependent, boolean everyOccurrence, long nowMs) {
        return new Effect.Signal(upstream, signal(DependencySignalKind.UNSUBSCRIBE, upstream, dependent, null, null, nowMs,
                everyOccurrence, null));
    }

    /**
     * {@code upstream} tells {@code dependent} its {@code outcome}: its final state, or, with {@code nominalAtMs}, the
     * outcome of its occurrence nominally due then.
     */
    static DependencySignal notify(String upstream, String dependent, String outcome, String executionId, long nowMs,
                                   Long nominalAtMs) {
        return signal(DependencySignalKind.NOTIFY, upstream, dependent, outcome, executionId, nowMs, false, nominalAtMs);
    }

    private static DependencySignal signal(DependencySignalKind kind, String upstream, String dependent, String outcome,
                                           String executionId, long nowMs, boolean everyOccurrence, Long nominalAtMs) {
        return DependencySignal.newBuilder().setKind(kind).setUpstream(upstream).setDependent(dependent).setOutcome(outcome)
                .setExecutionId(executionId).setAtMs(nowMs).setEveryOccurrence(everyOccurrence).setNominalAtMs(nominalAtMs).build();
    }
}
