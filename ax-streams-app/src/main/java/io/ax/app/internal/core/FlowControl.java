package io.ax.app.internal.core;

import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;
import java.util.List;

/**
 * The task side of flow control (topology-docs/FLOW-CONTROL.md). An execution about to be dispatched whose job type or
 * owner is gated ({@link FlowLimits}) is held instead, in the state it is in (PENDING or RETRY_WAITING), with an ACQUIRE
 * to its first gate; the gates grant it in turn, and the grant ({@link Input.Granted}) dispatches it. Every end of a
 * gated execution's flight (success, failure, retry wait, timeout, cancel) releases its slots exactly once: the gates
 * are cleared from the stored execution when their RELEASE is emitted.
 */
final class FlowControl {
    private FlowControl() {
    }

    /** Whether the execution waits for a grant. */
    static boolean isHeld(StoredExecution execution) {
        return execution != null && execution.getHeldSinceMs() != null;
    }

    /** In flight, or held for a grant: in either case nothing else may run in its place. */
    static boolean isBusy(StoredExecution execution) {
        return execution != null && (StateMachine.isInFlight(execution.getState()) || isHeld(execution));
    }

    /**
     * Holds {@code execution} (in state {@code from}) for a grant from {@code gates}: one ACQUIRE to the first gate, and
     * a held event (from = to) saying which gates it waits for.
     */
    static StoredExecution hold(Step step, StoredTask task, StoredExecution execution, TaskState from, List<String> gates,
                                String reason) {
        StoredExecution held = StoredExecution.newBuilder(execution).setState(from).setHeldSinceMs(step.nowMs()).setGates(gates)
                .build();
        long dueAtMs = from == TaskState.RETRY_WAITING && execution.getRetryAtMs() != null ? execution.getRetryAtMs()
                : execution.getDueAtMs();
        step.flow(new FlowMessage(FlowMessage.Kind.ACQUIRE, task.getTaskId(), execution.getExecutionId(), execution.getAttempt(),
                task.getRequest().getJobType(), task.getRequest().getOwner(), task.getRequest().getPriority(), dueAtMs, from,
                gates, 0, step.nowMs()));
        step.flowHeld(task, held, "held: waiting for a slot at " + String.join(", ", gates) + " (flow control)"
                + (reason == null ? "" : "; " + reason));
        return held;
    }

    /** Releases every slot (or queue place) the execution has at its gates; returns it without gates. */
    static StoredExecution release(Step step, StoredExecution execution) {
        if (execution.getGates().isEmpty()) {
            return execution;
        }
        sendToAll(step, FlowMessage.Kind.RELEASE, execution.getExecutionId(), execution.getAttempt(), execution.getGates());
        return StoredExecution.newBuilder(execution).setGates(List.of()).setHeldSinceMs(null).build();
    }

    /** A worker started the execution: its gates count it as started (backpressure). */
    static void started(Step step, StoredExecution execution) {
        if (!execution.getGates().isEmpty() && !isHeld(execution)) {
            sendToAll(step, FlowMessage.Kind.STARTED, execution.getExecutionId(), execution.getAttempt(), execution.getGates());
        }
    }

    private static void sendToAll(Step step, FlowMessage.Kind kind, String executionId, int attempt, List<String> gates) {
        for (int i = 0; i < gates.size(); i++) {
            step.flow(new FlowMessage(kind, step.taskId(), executionId, attempt, null, null, 0, 0, null, gates, i, 0));
        }
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
        java.util.List<StoredExecution> executions = new java.util.ArrayList<>();
        if (task.getExecution() != null) {
            executions.add(task.getExecution());
        }
        executions.addAll(task.getAlongside());
        executions.addAll(task.getSlices());
        for (StoredExecution execution : executions) {
            if (execution.getExecutionId().equals(held.executionId()) && execution.getAttempt() == held.attempt()
                    && isHeld(execution) && execution.getGates().contains(held.gate())) {
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
        if (current && isHeld(execution) && !task.getCancelled()) {
            long waitedMs = step.nowMs() - execution.getHeldSinceMs();
            StoredExecution granted = StoredExecution.newBuilder(execution).setHeldSinceMs(null).setGates(grant.gates()).build();
            return step.saveExecution(task, Attempts.trigger(step, task, granted, execution.getState(),
                    "granted by " + String.join(", ", grant.gates()) + " after waiting " + waitedMs + " ms (flow control)"));
        }
        if (current && !execution.getGates().isEmpty() && !StateMachine.isFinal(execution.getState())) {
            // A copy of a grant already applied: the slots are the execution's own, in use.
            step.ignored(EventCode.STALE_GRANT, task, grant.executionId(), grant.attempt(),
                    "grant ignored: the execution already holds its slots", grant.source());
            return step.unchanged();
        }
        sendToAll(step, FlowMessage.Kind.RELEASE, grant.executionId(), grant.attempt(), grant.gates());
        step.ignored(EventCode.STALE_GRANT, task, grant.executionId(), grant.attempt(), "grant ignored: "
                + (task == null ? "no such task" : "the execution no longer waits for it (" + Liveness.endState(task) + ")")
                + "; its slots at " + String.join(", ", grant.gates()) + " are released", grant.source());
        return step.unchanged();
    }
}
