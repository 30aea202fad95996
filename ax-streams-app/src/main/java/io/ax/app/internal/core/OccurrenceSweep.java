package io.ax.app.internal.core;

/**
 * A sweep owed over an upstream's periodic subscribers ({@link DependencyRules}): one occurrence's outcome, from after
 * {@code cursor}. A value of its own, as a task's decision carries one ({@link Effect.OweOccurrenceSweep}).
 */
public record OccurrenceSweep(String outcome, String executionId, long nominalAtMs, String cursor) {
}
