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
        StoredExecution held = Executions.copyOf(execution).setState(from).setHeldSinceMs(step.nowMs()).setGates(gates)
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
        return Executions.copyOf(execution).setGates(List.of()).setHeldSinceMs(null).build();
    }

    /** A worker started the execution: its gates count it as started (backpressure). */
    static void started(Step step, StoredExecution execution) {
        if (!execution.getGates().isEmpty() && !isHeld(execution)) {
            sendToAll(step, FlowMessage.Kind.STARTED, execution.getExecutionId(), execution.getAttempt(), execution.getGates());
        }
    }

    /** One {@code kind} message to each of {@code gates}, in their order (also a stale grant's release, {@link ApplyGrant}). */
    static void sendToAll(Step step, FlowMessage.Kind kind, String executionId, int attempt, List<String> gates) {
        for (int i = 0; i < gates.size(); i++) {
            step.flow(new FlowMessage(kind, step.taskId(), executionId, attempt, null, null, 0, 0, null, gates, i, 0));
        }
    }
}
