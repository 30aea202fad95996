package io.ax.fair;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FairTurnsTest {
    @Test
    void shouldServeEqualOwnersInTurnsTiesToTheOwnerThatJoinedFirst() {
        FairTurns<String> turns = FairTurns.equal(1, 0);
        turns.offer("b", 0, 0);
        turns.offer("a", 0, 0);

        assertThat(serve(turns, 4, 10)).containsExactly("b", "a", "b", "a");
    }

    @Test
    void shouldServeByWeight() {
        FairTurns<String> turns = FairTurns.weighted(1, 0, owner -> Map.of("gold", 3).getOrDefault(owner, 1));
        turns.offer("gold", 0, 0);
        turns.offer("plain", 0, 0);

        List<String> order = serve(turns, 8, 100);

        assertThat(order.stream().filter("gold"::equals).count()).isEqualTo(6);
    }

    @Test
    void shouldLetAnOwnerThatStartsWaitingJoinAtTheVirtualTimeOfTheLastServed() {
        FairTurns<String> turns = FairTurns.equal(1, 0);
        turns.offer("big", 0, 0);
        serve(turns, 100, 1_000);
        turns.offer("small", 0, 0);

        assertThat(serve(turns, 4, 1_000)).as("it joins at the big owner's last start: no credit for its idling, no wait"
                + " behind the big owner's backlog").containsExactly("small", "big", "small", "big");
    }

    @Test
    void shouldLetAPriorityLevelOutweighOneTurnWhenThePriorityStepIsTheTurn() {
        FairTurns<String> turns = FairTurns.equal(1_000, 1_000);
        turns.offer("hot", 3, 0);
        turns.offer("cold", 0, 1);

        List<String> order = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            String owner = turns.peek();
            order.add(owner);
            turns.served(owner, owner.equals("hot") ? 3 : 0, i);
        }

        assertThat(order).as("three levels are worth three turns; then the tie goes to the lower virtual time")
                .containsExactly("hot", "hot", "hot", "cold", "hot");
    }

    @Test
    void shouldRestoreStoredVirtualTimesAndReadThemBack() {
        FairTurns<String> turns = FairTurns.equal(1, 0);
        turns.restoreVirtualNow(7.5);
        turns.restore("a", 9, 0, 0);
        turns.restore("b", 8, 0, 0);

        assertThat(turns.peek()).isEqualTo("b");
        assertThat(turns.served("b", 0, 0)).isEqualTo(9.0);
        assertThat(turns.virtualNow()).isEqualTo(8.0);
        assertThat(turns.virtualTime("c")).as("where a new owner would join").isEqualTo(8.0);
        turns.servedLast("a");
        assertThat(turns.isWaiting("a")).isFalse();
        assertThat(turns.virtualNow()).isEqualTo(9.0);
    }

    @Test
    void shouldTreatNullAsAnOwnerAndRefuseToChargeOneNotWaiting() {
        FairTurns<String> turns = FairTurns.equal(1, 0);
        turns.offer(null, 0, 0);
        assertThat(turns.isWaiting(null)).isTrue();
        assertThat(turns.peek()).isNull();
        turns.servedLast(null);
        assertThat(turns.isEmpty()).isTrue();

        assertThatThrownBy(() -> turns.served("x", 0, 0)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> FairTurns.equal(0, 0)).hasMessageContaining("turn must be > 0");
    }

    /** Serves {@code n} in turn, each owner keeping {@code backlog} waiting. */
    private static List<String> serve(FairTurns<String> turns, int n, int backlog) {
        List<String> order = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String owner = turns.peek();
            order.add(owner);
            turns.served(owner, 0, 0);
        }
        return order;
    }
}
