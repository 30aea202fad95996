package io.ax.app.internal.core;

import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;
import java.util.List;
import java.util.Objects;

/**
 * Owner live-task quotas ({@code maxLiveTasks}, topology-docs/FLOW-CONTROL.md), the task side. A new task of an owner
 * with a quota is stored provisionally and not armed (no occurrence timer, nothing dispatched): it awaits admission, in
 * PENDING (or WAITING, for a task with {@code after}) with the reason "awaiting admission: ...", while one ADMIT goes to
 * the owner's live gate {@code live:owner:<owner>}. The gate answers at once ({@link Input.Admission}, decided by
 * {@link ApplyAdmission}):
 * <ul>
 *   <li>ADMITTED: the task proceeds exactly as an accepted task does (its timer set, or its wait for {@code after}
 *   begun), announced {@code PENDING → PENDING} (or {@code WAITING → WAITING}) with the count;</li>
 *   <li>REFUSED: REJECTED with the quota in the reason, and the provisional task removed ({@link Decision.Store#DISCARD}),
 *   as if its request had been rejected on arrival.</li>
 * </ul>
 * An admitted task holds its slot ({@code admissionGate}, {@code admissionId}) until it stops being live: the decision
 * that finishes it (final state, periodic schedule ended, cancel) sends one RELEASE and clears the fields, in the same
 * transaction ({@link SettleSavedTask}), so a slot is released exactly once. A replace or update of a live task continues its
 * admission (no new ADMIT) while its owner's gate stays the same. Only tasks admitted through the gate count: tasks live
 * before the quota was set, replayed or adopted tasks hold no slot.
 */
final class Admission {
    /** The prefix of an owner's live gate key on the flow topic. */
    static final String GATE_PREFIX = "live:owner:";

    private Admission() {
    }

    static String gateOf(String owner) {
        return GATE_PREFIX + owner;
    }

    /** Whether the task is stored provisionally, waiting for its owner's live gate to answer. */
    static boolean isAwaiting(StoredTask task) {
        return task != null && task.getAdmissionSinceMs() != null;
    }

    /**
     * Decides whether {@code task}, just built from a request (not yet armed), must await admission; {@code replaced} is
     * the live task it replaces, or null. It continues the replaced task's admission (slot held, or answer awaited) when
     * both are counted at the same gate; otherwise the replaced task's slot is released, and a task whose owner has a
     * quota asks for a slot (one ADMIT), unless it replaces a task of the same owner that was live before the quota and so
     * holds none. Returns true when the task awaits admission (its fields are set).
     */
    static boolean maybeAwait(Step step, StoredTask replaced, StoredTask task) {
        String owner = task.getRequest().getOwner();
        Integer max = owner == null ? null : step.flowLimits().maxLiveTasks(owner);
        String needed = max == null ? null : gateOf(owner);
        String held = replaced == null ? null : replaced.getAdmissionGate();
        if (held != null && held.equals(needed)) {
            task.setAdmissionGate(held);
            task.setAdmissionId(replaced.getAdmissionId());
            task.setAdmissionSinceMs(replaced.getAdmissionSinceMs());
            return isAwaiting(task);
        }
        if (held != null) {
            release(step, replaced.getAdmissionGate(), replaced.getAdmissionId());
        }
        if (needed == null || replaced != null && held == null
                && Objects.equals(owner, replaced.getRequest().getOwner())) {
            return false;
        }
        String admissionId = task.getTaskId() + "#" + task.getIncarnation();
        task.setAdmissionGate(needed);
        task.setAdmissionId(admissionId);
        task.setAdmissionSinceMs(step.nowMs());
        long dueAtMs = task.getNextDueAtMs() == null ? step.nowMs() : task.getNextDueAtMs();
        step.flow(new FlowMessage(FlowMessage.Kind.ADMIT, task.getTaskId(), admissionId, 0, task.getRequest().getJobType(), owner,
                task.getRequest().getPriority(), dueAtMs, TaskState.PENDING, List.of(needed), 0, step.nowMs()));
        return true;
    }

    /** Stores the task awaiting admission: {@code (new) → PENDING} (WAITING with {@code after}), no timer. */
    static Decision awaiting(Step step, StoredTask task, boolean replacing) {
        String owner = task.getRequest().getOwner();
        Integer max = step.flowLimits().maxLiveTasks(owner);
        String reason = "awaiting admission: owner " + owner + " maxLiveTasks " + (max == null ? "(removed)" : max) + " ("
                + task.getAdmissionGate() + "); nothing is timed or dispatched until admitted"
                + (replacing ? "; replaces the live task (ifExists=REPLACE)" : "");
        if (!task.getRequest().getAfter().isEmpty()) {
            step.waiting(task, reason);
        } else {
            step.pending(task, executionIdOf(task), task.getNextDueAtMs(), reason);
        }
        return step.save(task);
    }

    /** Inputs an awaiting task does not take: nothing may run, pause or resume it before it is admitted. */
    static boolean heldBack(Input input) {
        return input instanceof Input.Trigger || input instanceof Input.Pause || input instanceof Input.Resume
                || input instanceof Input.TimerFired;
    }

    static Decision refuseWhileAwaiting(Step step, StoredTask task, Input input) {
        if (input instanceof Input.TimerFired) {
            return step.unchanged(); // an awaiting task has no timer of its own: one firing now is an earlier incarnation's
        }
        String kind = input instanceof Input.Trigger ? "trigger" : input instanceof Input.Pause ? "pause" : "resume";
        step.ignored(EventCode.REFUSED, task, null, null, kind + ": the task awaits admission at " + task.getAdmissionGate()
                + " (owner maxLiveTasks); nothing runs before it is admitted", input.source());
        return step.unchanged();
    }

    /**
     * Ends a task awaiting admission that is cancelled or replaced (called by {@link CancelTask#endLive}): its PENDING (or
     * WAITING) ends in {@code to}. It keeps its admission fields, so the save that finishes it releases the slot asked for.
     */
    static StoredTask endAwaiting(Step step, StoredTask task, TaskState to, String reason) {
        String why = reason + " (it was awaiting admission at " + task.getAdmissionGate() + ")";
        if (!task.getRequest().getAfter().isEmpty()) {
            step.waitEnded(task, null, null, to, why);
        } else {
            step.pendingEnded(task, executionIdOf(task), task.getNextDueAtMs(), to, why);
        }
        return StoredTask.newBuilder(task).setCancelled(true).setNextDueAtMs(null).setAdmissionSinceMs(null).build();
    }

    /** The task stops being live: its slot (held, or asked for) is released, once; the fields are cleared with it. */
    static void maybeRelease(Step step, StoredTask task) {
        if (task.getAdmissionGate() == null) {
            return;
        }
        release(step, task.getAdmissionGate(), task.getAdmissionId());
        task.setAdmissionGate(null);
        task.setAdmissionId(null);
        task.setAdmissionSinceMs(null);
    }

    private static void release(Step step, String gate, String admissionId) {
        step.flow(new FlowMessage(FlowMessage.Kind.RELEASE, step.taskId(), admissionId, 0, null, null, 0, 0, null, List.of(gate), 0, 0));
    }

    /** The executionId of the occurrence an awaiting task would run first. */
    static String executionIdOf(StoredTask task) {
        return ExecutionIds.of(task.getTaskId(), task.getIncarnation(), task.getNextDueAtMs());
    }
}
