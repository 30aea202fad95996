package io.ax.app.internal.core;

/**
 * A sweep owed over an upstream's (final-state) subscribers ({@link DependencyRules}): {@code outcome} and
 * {@code executionId} to tell (NOTIFY), from after {@code cursor} (the last subscriber handled; empty: from the first).
 * A value of its own, not nested in the rules, as a task's decision carries one ({@link Effect.OweSweep}).
 */
public record Sweep(Mode mode, String outcome, String executionId, String cursor) {
    /** What an owed sweep over an upstream's subscribers does to each of them. */
    public enum Mode {
        /** Tell each subscriber the upstream's final state. */
        NOTIFY,
        /** The upstream was purged: drop each subscription. */
        DROP
    }

    static Sweep drop() {
        return new Sweep(Mode.DROP, "", null, "");
    }
}
