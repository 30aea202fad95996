package io.ax.fair;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FairQueueTest {
    private static final long TURN = 1_000;

    private long sequence;

    @Test
    void shouldKeepTheRankOrderWithOneOwner() {
        FairQueue<String> queue = new FairQueue<>(FairTurns.equal(TURN, TURN));
        add(queue, "old-p0", "acme", 0, 0);
        add(queue, "urgent-p9", "acme", 9, 500);
        add(queue, "mid-p4", "acme", 4, 500);
        add(queue, "late-p9", "acme", 9, 9_500);

        assertThat(drain(queue)).containsExactly("urgent-p9", "mid-p4", "old-p0", "late-p9");
    }

    @Test
    void shouldStartASmallOwnersFewWithinATurnOfABigOwnersThousands() {
        FairQueue<String> queue = new FairQueue<>(FairTurns.equal(TURN, TURN));
        for (int i = 0; i < 1_000; i++) {
            add(queue, "big-" + i, "big", 0, i);
        }
        assertThat(queue.poll().element()).isEqualTo("big-0");
        assertThat(queue.poll().element()).isEqualTo("big-1");
        for (int i = 0; i < 3; i++) {
            add(queue, "small-" + i, "small", 0, 5_000 + i); // queued long after the big ones
        }

        List<String> next = drain(queue).subList(0, 6);

        assertThat(next).as("turns alternate; the small owner does not wait behind 998 queued before it")
                .containsExactly("small-0", "big-2", "small-1", "big-3", "small-2", "big-4");
        assertThat(queue.isEmpty()).isTrue();
    }

    @Test
    void shouldGiveAnOwnerOfWeightThreeThreeStartsForOne() {
        FairQueue<String> queue = new FairQueue<>(FairTurns.weighted(TURN, TURN, owner -> Map.of("gold", 3).getOrDefault(owner, 1)));
        for (int i = 0; i < 8; i++) {
            add(queue, "gold-" + i, "gold", 0, i);
            add(queue, "plain-" + i, "plain", 0, i);
        }

        List<String> order = drain(queue).subList(0, 8);

        assertThat(order.stream().filter(s -> s.startsWith("gold")).count()).isEqualTo(6);
        assertThat(order.stream().filter(s -> s.startsWith("plain")).count()).isEqualTo(2);
    }

    @Test
    void shouldLetPriorityOutweighTurnsByOneTurnPerLevelSoThatPriorityZeroIsNeverStarved() {
        FairQueue<String> queue = new FairQueue<>(FairTurns.equal(TURN, TURN));
        for (int i = 0; i < 20; i++) {
            add(queue, "hot-" + i, "hot", 3, i);
        }
        add(queue, "cold-0", "cold", 0, 0);

        List<String> order = drain(queue);

        assertThat(order.indexOf("cold-0")).as("after 3 turns of the priority-3 owner, not after all 20").isEqualTo(3);
    }

    @Test
    void shouldForgetAnOwnerWithNothingWaitingAndLetItJoinAtTheCurrentTurn() {
        FairQueue<String> queue = new FairQueue<>(FairTurns.equal(TURN, TURN));
        add(queue, "a-0", "a", 0, 0);
        assertThat(queue.poll().element()).isEqualTo("a-0");
        for (int i = 0; i < 5; i++) {
            add(queue, "b-" + i, "b", 0, 10 + i);
        }
        add(queue, "a-1", "a", 0, 20);

        assertThat(drain(queue)).as("a gains nothing for having started one before b came").startsWith("b-0", "a-1", "b-1");
    }

    @Test
    void shouldRemoveWhatMatchesAndKeepTheTurns() {
        FairQueue<String> queue = new FairQueue<>(FairTurns.equal(TURN, TURN));
        add(queue, "a-0", "a", 0, 0);
        add(queue, "a-1", "a", 0, 1);
        add(queue, "b-0", null, 0, 2);
        add(queue, "b-1", null, 0, 3);

        assertThat(queue.removeIf(s -> s.endsWith("-0"))).containsExactlyInAnyOrder("a-0", "b-0");

        assertThat(queue.size()).isEqualTo(2);
        List<String> all = new ArrayList<>();
        queue.forEach(all::add);
        assertThat(all).containsExactlyInAnyOrder("a-1", "b-1");
        assertThat(drain(queue)).containsExactlyInAnyOrder("a-1", "b-1");
        assertThat(queue.poll()).isNull();
    }

    private void add(FairQueue<String> queue, String name, String owner, int priority, long queuedAtMs) {
        queue.add(new FairQueue.Entry<>(name, owner, priority, Rank.of(queuedAtMs, priority, TURN), sequence++));
    }

    private static List<String> drain(FairQueue<String> queue) {
        List<String> order = new ArrayList<>();
        for (FairQueue.Entry<String> next = queue.poll(); next != null; next = queue.poll()) {
            order.add(next.element());
        }
        return order;
    }
}
