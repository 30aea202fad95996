package io.ax.app.internal.core;

import io.ax.schema.StoredTask;

/**
 * An owner's live gate answered a task awaiting admission (owner {@code maxLiveTasks}, topology-docs/FLOW-CONTROL.md):
 * the transition for {@link Input.Admission}. Apart from {@link Admission}, which asks and releases, because an
 * admitted task goes on as an accepted one does (a wait for its upstreams begun, {@link AwaitDependencies}), and the
 * classes that do that ask whether a task awaits admission ({@link Liveness}): the calls go one way.
 */
final class ApplyAdmission {
    private ApplyAdmission() {
    }

    /** The gate's answer: an awaiting task is armed (ADMITTED) or rejected and removed (REFUSED). */
    static Decision answer(Step step, StoredTask task, Input.Admission input) {
        boolean current = Admission.isAwaiting(task) && !task.getCancelled() && input.admissionId().equals(task.getAdmissionId())
                && input.gate().equals(task.getAdmissionGate());
        if (!current) {
            // Whoever stopped awaiting this slot sent its RELEASE then (after the ADMIT, at the same gate): nothing to give back.
            step.ignored(EventCode.STALE_GRANT, task, null, null, "admission answer ignored (" + (input.admitted() ? "admitted" : "refused")
                    + " at " + input.gate() + "): " + (task == null ? "no such task" : isAdmitted(task, input)
                    ? "the task is admitted already" : "the task no longer awaits it; a slot given was released when it stopped waiting"),
                    input.source());
            return step.unchanged();
        }
        long waitedMs = step.nowMs() - task.getAdmissionSinceMs();
        if (!input.admitted()) {
            step.rejected(EventCode.OVER_QUOTA, input.reason() + ": the task is rejected (its request at offset " + task.getIncarnation()
                    + " awaited admission " + waitedMs + " ms) and not kept", input.source());
            return step.discard();
        }
        task.setAdmissionSinceMs(null);
        String reason = "admitted by " + input.gate() + " after waiting " + waitedMs + " ms: " + input.reason();
        if (!task.getRequest().getAfter().isEmpty() && !OccurrenceDependencies.appliesTo(task)) {
            return AwaitDependencies.accept(step, task, false, reason);
        }
        step.setTimer(task.getNextDueAtMs(), task.getRequest().getPriority(), TimerKind.OCCURRENCE);
        step.held(task, Admission.executionIdOf(task), task.getNextDueAtMs(), reason);
        OccurrenceDependencies.maybeSubscribe(step, task);
        return step.save(task);
    }

    private static boolean isAdmitted(StoredTask task, Input.Admission input) {
        return !Admission.isAwaiting(task) && input.admissionId().equals(task.getAdmissionId());
    }
}
