package io.ax.app.internal.core;

import io.ax.FlowLimit;
import io.ax.fair.Rank;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Flow gates in memory for the core's tests, decided by the real {@link GateRules}: each gate's record, its slots and its
 * queues (each queue in the store's order: rank, then arrival), as {@code flow.GateStore} keeps them, and what the
 * effects did. A grant at a gate that is not the message's last goes on to the next gate at once, as the flow topic
 * would take it; a grant at the last gate, and a held notice, wait in {@link #toTask} and {@link #notices} for the test to
 * hand them to the task side when it likes. The record is kept as the object the rules changed, not as written: a
 * refill the rules do not hand over ({@link GateRules.Effects#stateChanged}) is kept here, where the store would refill
 * it again from the pair it holds. Not thread-safe.
 */
final class MemoryGates implements GateRules.Reads, GateRules.Effects {
    private final Map<String, FlowLimit> limits;
    private final Map<String, GateState> states = new HashMap<>();
    /** gate → executionId → slot. */
    private final Map<String, Map<String, GateState.Slot>> slots = new HashMap<>();
    /** gate and queue → rank key → message. */
    private final Map<String, TreeMap<String, FlowMessage>> queues = new HashMap<>();
    /** gate and executionId → its place in a queue. */
    private final Map<String, GateState.Waiting> waitingById = new HashMap<>();
    private final GateTurns turns;
    private final ArrayDeque<FlowMessage> outbox = new ArrayDeque<>();
    /** Every grant at any gate, by executionId, in order. */
    final List<String> granted = new ArrayList<>();
    /** Every held notice, "executionId: reason", in order. */
    final List<String> held = new ArrayList<>();
    /** Every admission answer, "slotId admitted: reason" or "slotId refused: reason", in order. */
    final List<String> answers = new ArrayList<>();
    /** Grants at the last gate of their chain, not yet handed to the task side. */
    final List<FlowMessage> toTask = new ArrayList<>();
    /** Held notices, not yet handed to the task side. */
    final List<FlowMessage> notices = new ArrayList<>();
    int stateWrites;

    /** @param limits each gate's limits (read as they stand at each decision), an owner's weight under {@code owner:<o>} */
    MemoryGates(Map<String, FlowLimit> limits) {
        this.limits = limits;
        this.turns = new GateTurns(owner -> {
            FlowLimit limit = limits.get("owner:" + owner);
            return limit == null || limit.weight() == null ? 1 : limit.weight();
        });
    }

    /** {@code gate}'s record (a new one for a gate not seen yet). */
    GateState state(String gate) {
        return states.computeIfAbsent(gate, g -> new GateState());
    }

    /** The slots {@code gate} holds. */
    int slotCount(String gate) {
        return slots.getOrDefault(gate, Map.of()).size();
    }

    /** The ACQUIREs waiting at {@code gate}. */
    long waitingCount(String gate) {
        return waitingById.values().stream().filter(waiting -> waiting.message().gate().equals(gate)).count();
    }

    /** {@code message} decided at its gate at {@code nowMs}, and every grant it passes on to a next gate. */
    void deliver(FlowMessage message, long nowMs) {
        outbox.add(message);
        while (!outbox.isEmpty()) {
            FlowMessage next = outbox.poll();
            String gate = next.gate();
            GateState state = state(gate);
            turns.begin(gate, state);
            GateRules.decide(gate, state, next, nowMs, this, this);
            turns.end(gate, state);
        }
    }

    @Override
    public FlowLimit limit(String gate) {
        return limits.get(gate);
    }

    @Override
    public GateState.Slot slot(String gate, String executionId) {
        return slots.getOrDefault(gate, Map.of()).get(executionId);
    }

    @Override
    public GateState.Waiting waiting(String gate, String executionId) {
        return waitingById.get(gate + '\0' + executionId);
    }

    @Override
    public GateState.Waiting first(String gate, String queue) {
        TreeMap<String, FlowMessage> waiting = queues.get(gate + '\0' + queue);
        return waiting == null || waiting.isEmpty() ? null : waiting(gate, waiting.firstEntry().getValue().executionId());
    }

    @Override
    public GateTurns turns() {
        return turns;
    }

    @Override
    public void putSlot(String gate, String executionId, GateState.Slot slot) {
        slots.computeIfAbsent(gate, g -> new HashMap<>()).put(executionId, slot);
    }

    @Override
    public void deleteSlot(String gate, String executionId) {
        slots.getOrDefault(gate, new HashMap<>()).remove(executionId);
    }

    @Override
    public void enqueue(String gate, String queue, FlowMessage message, long seq) {
        String key = String.format("%016x%016x", Rank.of(message.dueAtMs(), message.priority(), 1_000) + (1L << 40), seq);
        queues.computeIfAbsent(gate + '\0' + queue, q -> new TreeMap<>()).put(key, message);
        waitingById.put(gate + '\0' + message.executionId(), new GateState.Waiting(key, queue, message));
    }

    @Override
    public void dequeue(String gate, GateState.Waiting waiting) {
        queues.get(gate + '\0' + waiting.queue()).remove(waiting.key());
        waitingById.remove(gate + '\0' + waiting.message().executionId());
    }

    @Override
    public void granted(String gate, FlowMessage message, long nowMs) {
        granted.add(message.executionId());
        if (message.lastGate()) {
            toTask.add(message);
        } else {
            outbox.add(message.next());
        }
    }

    @Override
    public void held(String gate, FlowMessage message, String reason) {
        held.add(message.executionId() + ": " + reason);
        notices.add(message);
    }

    @Override
    public void admission(FlowMessage message, boolean admitted, String reason, long nowMs) {
        answers.add(message.executionId() + (admitted ? " admitted: " : " refused: ") + reason);
    }

    @Override
    public void stateChanged(String gate, GateState state) {
        if (state != states.get(gate)) {
            throw new AssertionError("the rules handed over another record than " + gate + "'s");
        }
        stateWrites++;
    }
}
