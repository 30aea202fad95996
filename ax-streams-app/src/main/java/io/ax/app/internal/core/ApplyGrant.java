package io.ax.app.internal.core;

import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import java.util.ArrayList;
import java.util.List;

/**
 * What a flow gate says about an execution it holds (topology-docs/FLOW-CONTROL.md): a grant dispatches it, a notice
 * that it is still held enters its history. The transition for {@link Input.Granted} and {@link Input.GateHeld}; the
 * holding and releasing it answers is {@link FlowControl}'s, below it.
 */
final class ApplyGrant {
    private ApplyGrant() {
    }

    /**
     * A gate holds the execution: its held event (from = to, its state) with the gate's reason, when the execution (the
     * current one, one alongside or a slice) still waits at its gates with that attempt. A notice that comes after the
     * grant, or about an execution that no longer waits, says nothing new: no event. One notice per gate and hold, so
     * one rewrite of the task record each.
     */
    static Decision gateHeld(Step step, StoredTask task, Input.GateHeld held) {
        if (task == null) {
            return step.unchanged();
        }
        List<StoredExecution> executions = new ArrayList<>();
        if (task.getExecution() != null) {
            executions.add(task.getExecution());
        }
        executions.addAll(task.getAlongside());
        executions.addAll(task.getSlices());
        for (StoredExecution execution : executions) {
            if (execution.getExecutionId().equals(held.executionId()) && execution.getAttempt() == held.attempt()
                    && FlowControl.isHeld(execution) && execution.getGates().contains(held.gate())) {
                step.flowHeld(task, execution, held.reason());
                return step.save(task); // unchanged, but saved so that the event enters the task's history
            }
        }
        return step.unchanged();
    }

    /**
     * A grant from the last gate: the execution it names is dispatched if it still waits for it (PENDING or RETRY_WAITING
     * → TRIGGERED, saying how long it waited); otherwise (cancelled, replaced, finished meanwhile) the slots are released
     * at once, and the grant is recorded as IGNORED.
     */
    static Decision grant(Step step, StoredTask task, Input.Granted grant) {
        StoredExecution execution = task == null ? null : task.getExecution();
        boolean current = execution != null && execution.getExecutionId().equals(grant.executionId())
                && execution.getAttempt() == grant.attempt();
        if (current && FlowControl.isHeld(execution) && !task.getCancelled()) {
            long waitedMs = step.nowMs() - execution.getHeldSinceMs();
            StoredExecution granted = Executions.copyOf(execution).setHeldSinceMs(null).setGates(grant.gates()).build();
            return step.saveExecution(task, Attempts.trigger(step, task, granted, execution.getState(),
                    "granted by " + String.join(", ", grant.gates()) + " after waiting " + waitedMs + " ms (flow control)"));
        }
        if (current && !execution.getGates().isEmpty() && !StateMachine.isFinal(execution.getState())) {
            // A copy of a grant already applied: the slots are the execution's own, in use.
            step.ignored(EventCode.STALE_GRANT, task, grant.executionId(), grant.attempt(),
                    "grant ignored: the execution already holds its slots", grant.source());
            return step.unchanged();
        }
        FlowControl.sendToAll(step, FlowMessage.Kind.RELEASE, grant.executionId(), grant.attempt(), grant.gates());
        step.ignored(EventCode.STALE_GRANT, task, grant.executionId(), grant.attempt(), "grant ignored: "
                + (task == null ? "no such task" : "the execution no longer waits for it (" + Liveness.endState(task) + ")")
                + "; its slots at " + String.join(", ", grant.gates()) + " are released", grant.source());
        return step.unchanged();
    }
}
