package io.ax.app.internal.flow;

import io.ax.app.internal.core.GateRules;
import io.ax.app.internal.core.GateState;
import io.ax.app.internal.core.GateTurns;
import static org.assertj.core.api.Assertions.assertThat;

import io.ax.fair.FairTurns;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * A gate's turns kept between records choose exactly as turns built afresh from its stored record would, through
 * owners joining, leaving without a grant and being granted, and through records rolled back (an aborted transaction).
 */
class GateTurnsProperties {
    @Property(tries = 300)
    void shouldChooseAsTheStoredRecordWouldWhetherKeptOrBuilt(
            @ForAll @Size(min = 1, max = 200) List<@IntRange(min = 0, max = 39) Integer> script) throws Exception {
        String gate = "type:t";
        GateTurns kept = new GateTurns(GateTurnsProperties::weight);
        byte[] stored = FlowCodec.MAPPER.writeValueAsBytes(new GateState());
        for (int step : script) {
            GateState state = FlowCodec.MAPPER.readValue(stored, GateState.class);
            kept.begin(gate, state);
            String owner = "o" + (step % 6);
            switch (step / 6 % 4) {
                case 0, 1 -> { // an ACQUIRE that waits
                    GateState.OwnerQueue queue = state.owners.get(owner);
                    if (queue == null) {
                        queue = new GateState.OwnerQueue();
                        queue.vt = state.vclock;
                        state.owners.put(owner, queue);
                        kept.joined(gate, owner);
                    }
                    queue.waiting++;
                    state.waiting++;
                    state.seq++;
                }
                case 2 -> { // a RELEASE of a waiting ACQUIRE
                    GateState.OwnerQueue queue = state.owners.get(owner);
                    if (queue != null) {
                        state.waiting--;
                        if (--queue.waiting == 0) {
                            state.owners.remove(owner);
                            kept.left(gate, owner);
                        }
                    }
                }
                default -> { // a grant, as FlowGate makes it
                    if (state.waiting > 0) {
                        String expected = GateTurns.restore(state, GateTurnsProperties::weight).peek();
                        FairTurns<String> turns = kept.of(gate, state);
                        String next = turns.peek();
                        assertThat(next).isEqualTo(expected);
                        GateState.OwnerQueue queue = state.owners.get(next);
                        state.waiting--;
                        if (--queue.waiting == 0) {
                            state.owners.remove(next);
                            turns.servedLast(next);
                        } else {
                            queue.vt = turns.served(next, 0, 0);
                        }
                        state.vclock = turns.virtualNow();
                    }
                }
            }
            kept.end(gate, state);
            if (step < 36) { // else the record is rolled back: the transaction aborted, the store keeps the last one
                stored = FlowCodec.MAPPER.writeValueAsBytes(state);
            }
        }
    }

    private static int weight(String owner) {
        return owner.equals("o1") ? 3 : owner.equals("o2") ? 2 : 1;
    }
}
