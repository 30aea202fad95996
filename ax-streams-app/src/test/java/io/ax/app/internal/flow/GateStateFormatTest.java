package io.ax.app.internal.flow;

import io.ax.app.internal.core.GateRules;
import io.ax.app.internal.core.GateState;
import io.ax.app.internal.core.GateTurns;
import static org.assertj.core.api.Assertions.assertThat;

import io.ax.fair.FairTurns;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A gate's stored record: what gates stored before the fair share moved to {@code io.ax.fair} still reads, and resumes. */
class GateStateFormatTest {
    /** A gate record as the gates have written it since fair share began (owners in the order they were stored). */
    private static final String STORED = "{\"inFlight\":2,\"notStarted\":1,\"tokens\":-1.0,\"refillMs\":0,\"seq\":7,"
            + "\"waiting\":4,\"vclock\":2.5,\"owners\":{\"b\":{\"vt\":3.0,\"waiting\":1},\"a\":{\"vt\":3.0,\"waiting\":2},"
            + "\"c\":{\"vt\":2.5,\"waiting\":1},\"gone\":{\"vt\":0.5,\"waiting\":0}}}";

    @Test
    void shouldReadAStoredGateAndWriteItBackTheSame() throws Exception {
        GateState state = FlowCodec.MAPPER.readValue(STORED.getBytes(StandardCharsets.UTF_8), GateState.class);

        assertThat(state.vclock).isEqualTo(2.5);
        assertThat(state.owners).containsKeys("a", "b", "c");
        assertThat(state.owners.get("a").vt).isEqualTo(3.0);
        assertThat(new String(FlowCodec.MAPPER.writeValueAsBytes(state), StandardCharsets.UTF_8)).isEqualTo(STORED);
    }

    @Test
    void shouldResumeTheStoredTurnsLeastVirtualTimeFirstTiesToTheOwnerStoredFirstIgnoringOwnersWithNothingWaiting() throws Exception {
        GateState state = FlowCodec.MAPPER.readValue(STORED.getBytes(StandardCharsets.UTF_8), GateState.class);
        FairTurns<String> turns = GateTurns.restore(state, owner -> owner.equals("a") ? 2 : 1);

        assertThat(turns.peek()).isEqualTo("c");
        turns.servedLast("c");
        assertThat(turns.virtualNow()).isEqualTo(2.5);
        assertThat(turns.peek()).as("b and a tie at 3.0: b is stored first").isEqualTo("b");
        turns.servedLast("b");
        assertThat(turns.peek()).isEqualTo("a");
        assertThat(turns.served("a", 0, 0)).as("weight 2: half a turn").isEqualTo(3.5);
        assertThat(turns.isWaiting("gone")).isFalse();
        assertThat(turns.virtualTime("new")).as("a newcomer joins at the last grant's start").isEqualTo(3.0);
    }
}
