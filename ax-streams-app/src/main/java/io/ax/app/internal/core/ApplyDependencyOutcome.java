package io.ax.app.internal.core;

import io.ax.schema.Dependency;
import io.ax.schema.StoredTask;

/**
 * A task this one waits for reported an outcome ({@link Input.DependencyOutcome}; topology-docs/WORKFLOWS.md): the
 * transition for it. A one-shot task's wait is {@link AwaitDependencies}'s to decide; a periodic task's occurrence is
 * judged by {@link OccurrenceDependencies}, and a verdict that ends its wait is applied by {@link FireTimer}, as at the
 * occurrence's fire (run now, or SKIPPED). This class sits above all three: {@code FireTimer} asks
 * {@code OccurrenceDependencies} for a verdict at every fire, so the judge cannot also be the one that fires.
 */
final class ApplyDependencyOutcome {
    private ApplyDependencyOutcome() {
    }

    static Decision decide(Step step, StoredTask task, Input.DependencyOutcome input) {
        String about = input.upstream() + " ended " + input.outcome()
                + (input.executionId() == null ? "" : " (execution " + input.executionId() + ")");
        if (task == null) {
            step.ignored(EventCode.UNKNOWN_TASK, null, null, null, "dependency outcome: " + about + ", but no such task", input.source());
            return step.unchanged();
        }
        Dependency dependency = AwaitDependencies.dependencyOn(task, input.upstream());
        if (dependency == null) {
            step.ignored(EventCode.REFUSED, task, null, null, "dependency outcome: " + about + ", but this task does not wait for it",
                    input.source());
            return step.unchanged();
        }
        if (OccurrenceDependencies.appliesTo(task)) {
            return onOccurrenceOutcome(step, task, input);
        }
        return AwaitDependencies.onOutcome(step, task, input, dependency, about);
    }

    /**
     * An upstream's occurrence ended: recorded as its latest outcome if it is later than the one recorded; an
     * occurrence that waits is judged again. A final-state NOTIFY without a nominal time (PURGED) is IGNORED.
     */
    private static Decision onOccurrenceOutcome(Step step, StoredTask task, Input.DependencyOutcome input) {
        if (input.nominalAtMs() == null) {
            step.ignored(EventCode.REFUSED, task, null, null, "dependency outcome: " + input.upstream() + " " + input.outcome()
                    + " names no occurrence; a periodic task judges each occurrence on its upstreams' occurrences", input.source());
            return step.unchanged();
        }
        if (!OccurrenceDependencies.recordOutcome(task, input.upstream(), input.outcome(), input.nominalAtMs())) {
            return step.unchanged(); // older than the one recorded, or told twice
        }
        if (!OccurrenceDependencies.anyWaits(task)) {
            return step.save(task); // no occurrence waits: kept for the next one's verdict
        }
        long dueAtMs = task.getNextDueAtMs();
        return FireTimer.afterVerdict(step, task, dueAtMs, OccurrenceDependencies.rejudge(step, task, false));
    }
}
