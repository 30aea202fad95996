package io.ax.app.internal.core;

import io.ax.schema.TaskState;
import java.util.List;

/**
 * One message to a flow-control gate (the internal {@code ax.flow} topic, keyed by {@code gates.get(gateIndex)}):
 * <ul>
 *   <li>ACQUIRE: the execution asks the gate for a slot (its attempt, owner, priority and due time order it in the
 *   gate's queue); once granted, the gate passes it on to the next gate of {@code gates}, or grants it to the task;</li>
 *   <li>RELEASE: the execution (attempt up to {@code attempt}) left flight, or gave up waiting: its slot, or its place in
 *   the queue, is freed;</li>
 *   <li>STARTED: a worker reported STARTED (backpressure: the gate counts granted executions not yet started);</li>
 *   <li>ADMIT: a new task asks its owner's live gate ({@code live:owner:<owner>}) for an admission slot
 *   ({@code executionId} is then the slot's id, taskId#incarnation, and {@code attempt} 0); the gate answers ADMITTED or
 *   REFUSED at once (refuse-if-full, no queue). Its RELEASE frees the slot when the task stops being live.</li>
 * </ul>
 *
 * @param state         PENDING or RETRY_WAITING: the state the execution is held in (ACQUIRE only)
 * @param heldSinceMs   when the task side started waiting (ACQUIRE only)
 */
public record FlowMessage(Kind kind, String taskId, String executionId, int attempt, String jobType, String owner,
                          int priority, long dueAtMs, TaskState state, List<String> gates, int gateIndex, long heldSinceMs) {
    public enum Kind {
        ACQUIRE, RELEASE, STARTED, ADMIT
    }

    public FlowMessage {
        gates = List.copyOf(gates);
    }

    /** The gate this message is for. */
    public String gate() {
        return gates.get(gateIndex);
    }

    /** The same message for the next gate of the chain. */
    public FlowMessage next() {
        return new FlowMessage(kind, taskId, executionId, attempt, jobType, owner, priority, dueAtMs, state, gates, gateIndex + 1,
                heldSinceMs);
    }

    /** Whether this gate is the last one of the chain. */
    public boolean lastGate() {
        return gateIndex == gates.size() - 1;
    }
}
