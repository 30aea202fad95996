package io.ax.app.internal.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ax.FlowLimit;
import io.ax.InvalidRequestException;
import io.ax.schema.TaskState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The gates' rules alone: an in-memory gate store ({@link MemoryGates}), no Kafka. */
class GateRulesTest {
    private static final String TYPE_GATE = "type:charge";

    private final Map<String, FlowLimit> limits = new HashMap<>();
    private final MemoryGates gate = new MemoryGates(limits);
    private final GateState state = gate.state(TYPE_GATE);
    private long nowMs = 1_000;

    @Test
    void shouldGrantUpToMaxInFlightHoldTheRestWithTheReasonAndGrantTheNextOnRelease() {
        limits.put(TYPE_GATE, FlowLimit.none().withMaxInFlight(2));

        for (int i = 0; i < 3; i++) {
            decide(acquire("e" + i, "acme", 4, 100 + i));
        }

        assertThat(gate.granted).containsExactly("e0", "e1");
        assertThat(gate.held).containsExactly("e2: held: type:charge has 2 of 2 executions in flight (cluster-wide maxInFlight)");
        assertThat(state.inFlight).isEqualTo(2);
        assertThat(state.waiting).isEqualTo(1);

        decide(message(FlowMessage.Kind.RELEASE, "e0", "acme", 4, 0));

        assertThat(gate.granted).containsExactly("e0", "e1", "e2");
        assertThat(state.inFlight).isEqualTo(2);
        assertThat(state.waiting).isZero();
        assertThat(state.owners).isEmpty();
    }

    @Test
    void shouldShareABusyGateByWeightAndOrderEachOwnersQueueByRank() {
        limits.put(TYPE_GATE, FlowLimit.none().withMaxInFlight(1));
        limits.put("owner:gold", new FlowLimit(null, null, null, 3));
        decide(acquire("blocker", "x", 4, 0));
        for (int i = 0; i < 6; i++) {
            decide(acquire("gold-" + i, "gold", 4, 100 + i));
            decide(acquire("plain-" + i, "plain", 4, 100 + i));
        }
        decide(acquire("plain-urgent", "plain", 9, 5_000)); // priority 9: 9 s of aging outweighs its lateness

        List<String> order = new ArrayList<>();
        String running = "blocker";
        for (int i = 0; i < 8; i++) {
            decide(message(FlowMessage.Kind.RELEASE, running, "?", 4, 0));
            running = gate.granted.get(gate.granted.size() - 1);
            order.add(running);
        }

        assertThat(order).as("3 : 1 between gold and plain, ties to the owner that started waiting first")
                .containsExactly("gold-0", "plain-urgent", "gold-1", "gold-2", "gold-3", "plain-0", "gold-4", "gold-5");
    }

    @Test
    void shouldAdmitBelowTheQuotaRefuseAtItAndAnswerACopyWithoutASecondSlot() {
        String live = GateRules.LIVE_GATE + "acme";
        limits.put(live, FlowLimit.none().withMaxLiveTasks(1));

        decide(admit(live, "t1#0"));
        decide(admit(live, "t1#0"));
        decide(admit(live, "t2#0"));

        assertThat(gate.answers).containsExactly(
                "t1#0 admitted: owner acme has 1 of 1 live tasks (maxLiveTasks)",
                "t1#0 admitted: owner acme has 1 of 1 live tasks (maxLiveTasks)",
                "t2#0 refused: owner acme has 1 of 1 live tasks (maxLiveTasks)");
        assertThat(gate.state(live).inFlight).isEqualTo(1);
    }

    @Test
    void shouldGrantAtMostTheBucketAndMoreAsItRefills() {
        limits.put(TYPE_GATE, FlowLimit.none().withMaxPerSecond(10.0)); // burst max(1, 10 / 10) = 1
        decide(acquire("e0", "acme", 4, 0));
        decide(acquire("e1", "acme", 4, 1));
        assertThat(gate.granted).containsExactly("e0");

        nowMs += 99;
        assertThat(GateRules.grantWhileAllowed(TYPE_GATE, state, nowMs, gate, gate)).isZero();
        nowMs += 1;
        assertThat(GateRules.grantWhileAllowed(TYPE_GATE, state, nowMs, gate, gate)).isEqualTo(1);
        assertThat(gate.granted).containsExactly("e0", "e1");
    }

    @Test
    void shouldHoldWhileWorkersHaveNotStartedMaxNotStartedAndGoOnWhenOneStarts() {
        limits.put(TYPE_GATE, new FlowLimit(null, null, 1, null));
        decide(acquire("e0", "acme", 4, 0));
        decide(acquire("e1", "acme", 4, 1));
        assertThat(gate.held).singleElement().asString().contains("maxNotStarted");

        decide(message(FlowMessage.Kind.STARTED, "e0", "acme", 4, 0));

        assertThat(gate.granted).containsExactly("e0", "e1");
        assertThat(state.inFlight).isEqualTo(2);
        assertThat(state.notStarted).isEqualTo(1);
    }

    @Test
    void shouldTakeAFlowRecordKeyedByItsGateAndAnAcquireWithItsTaskAndAHeldState() {
        FlowMessage acquire = acquire("e0", "acme", 4, 0);
        assertThatCode(() -> GateRules.requireValid(TYPE_GATE, acquire)).doesNotThrowAnyException();
        FlowMessage retrying = new FlowMessage(FlowMessage.Kind.ACQUIRE, "t", "e0", 2, "charge", "acme", 4, 0, TaskState.RETRY_WAITING,
                List.of(TYPE_GATE), 0, 1);
        assertThatCode(() -> GateRules.requireValid(TYPE_GATE, retrying)).doesNotThrowAnyException();
        FlowMessage release = new FlowMessage(FlowMessage.Kind.RELEASE, null, "e0", 1, "charge", null, 4, 0, null, List.of(TYPE_GATE), 0, 0);
        assertThatCode(() -> GateRules.requireValid(TYPE_GATE, release)).as("only an ACQUIRE needs its task and state")
                .doesNotThrowAnyException();

        assertThatThrownBy(() -> GateRules.requireValid("type:other", acquire)).isInstanceOf(InvalidRequestException.class)
                .hasMessage("flow record keyed by one gate names another: \"type:charge\"");
        FlowMessage noTask = new FlowMessage(FlowMessage.Kind.ACQUIRE, null, "e0", 1, "charge", "acme", 4, 0, TaskState.PENDING,
                List.of(TYPE_GATE), 0, 1);
        assertThatThrownBy(() -> GateRules.requireValid(TYPE_GATE, noTask)).isInstanceOf(InvalidRequestException.class)
                .hasMessage("ACQUIRE needs its taskId and a state PENDING or RETRY_WAITING: null, PENDING");
        FlowMessage running = new FlowMessage(FlowMessage.Kind.ACQUIRE, "t", "e0", 1, "charge", "acme", 4, 0, TaskState.RUNNING,
                List.of(TYPE_GATE), 0, 1);
        assertThatThrownBy(() -> GateRules.requireValid(TYPE_GATE, running)).isInstanceOf(InvalidRequestException.class)
                .hasMessage("ACQUIRE needs its taskId and a state PENDING or RETRY_WAITING: \"t\", RUNNING");
    }

    @Test
    void shouldHandOverTheRecordOnlyWhenADecisionChangedIt() {
        limits.put(TYPE_GATE, FlowLimit.none().withMaxInFlight(1).withMaxPerSecond(10.0));
        decide(acquire("e0", "acme", 4, 0));
        assertThat(gate.stateWrites).as("granted: a slot taken").isEqualTo(1);

        decide(acquire("e0", "acme", 4, 0)); // a copy of the ACQUIRE granted
        decide(message(FlowMessage.Kind.RELEASE, "unknown", "acme", 4, 0));
        decide(message(FlowMessage.Kind.STARTED, "unknown", "acme", 4, 0));
        assertThat(gate.stateWrites).as("copies and strangers change nothing").isEqualTo(1);

        decide(acquire("e1", "acme", 4, 1));
        assertThat(gate.held).hasSize(1);
        assertThat(gate.stateWrites).as("held: queued").isEqualTo(2);

        nowMs += 1_000; // the bucket refills; the slot is still taken
        assertThat(GateRules.grantWhileAllowed(TYPE_GATE, state, nowMs, gate, gate)).isZero();
        assertThat(gate.stateWrites).as("a refill alone is not written").isEqualTo(2);

        decide(message(FlowMessage.Kind.RELEASE, "e0", "acme", 4, 0));
        assertThat(gate.granted).containsExactly("e0", "e1");
        assertThat(gate.stateWrites).as("released and granted: one write for the record").isEqualTo(3);
    }

    @Test
    void shouldAdmitAndRefuseWritingTheRecordOnlyForASlotGiven() {
        String live = GateRules.LIVE_GATE + "acme";
        limits.put(live, FlowLimit.none().withMaxLiveTasks(1));
        decide(admit(live, "t1#0"));
        decide(admit(live, "t1#0"));
        decide(admit(live, "t2#0"));
        assertThat(gate.answers).hasSize(3);
        assertThat(gate.stateWrites).isEqualTo(1);
    }

    private void decide(FlowMessage message) {
        gate.deliver(message, nowMs);
    }

    private static FlowMessage acquire(String executionId, String owner, int priority, long dueAtMs) {
        return message(FlowMessage.Kind.ACQUIRE, executionId, owner, priority, dueAtMs);
    }

    private static FlowMessage message(FlowMessage.Kind kind, String executionId, String owner, int priority, long dueAtMs) {
        return new FlowMessage(kind, "task-" + executionId, executionId, 1, "charge", owner, priority, dueAtMs,
                TaskState.PENDING, List.of(TYPE_GATE), 0, 1);
    }

    private static FlowMessage admit(String gate, String slotId) {
        return new FlowMessage(FlowMessage.Kind.ADMIT, slotId.substring(0, slotId.indexOf('#')), slotId, 0, "charge", "acme", 4,
                0, TaskState.PENDING, List.of(gate), 0, 1);
    }
}
