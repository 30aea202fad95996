package io.ax.fair;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** The properties every caller of {@link FairTurns} relies on, over random owners, weights and priorities. */
class FairTurnsProperties {
    /**
     * While every owner has a backlog, each owner's share of any prefix of the service is its weight's share, within
     * one turn: {@code |served(o) − n × w(o) / Σw| ≤ owners} (the start-time bound, one turn per owner).
     */
    @Property(tries = 200)
    void shouldServeBackloggedOwnersInProportionToTheirWeights(
            @ForAll @Size(min = 1, max = 12) List<@IntRange(min = 1, max = 20) Integer> weights,
            @ForAll @IntRange(min = 1, max = 2_000) int n) {
        FairTurns<Integer> turns = FairTurns.weighted(1, 0, weights::get);
        for (int o = 0; o < weights.size(); o++) {
            turns.offer(o, 0, 0);
        }
        int[] served = new int[weights.size()];
        double total = weights.stream().mapToInt(Integer::intValue).sum();
        for (int i = 1; i <= n; i++) {
            Integer owner = turns.peek();
            served[owner]++;
            turns.served(owner, 0, 0);
            for (int o = 0; o < weights.size(); o++) {
                assertThat(Math.abs(served[o] - i * weights.get(o) / total)).as("owner %s after %s", o, i)
                        .isLessThanOrEqualTo(weights.size());
            }
        }
    }

    /**
     * Nobody starves: with priorities 0–9 worth a turn each, an owner that starts waiting is served within
     * {@code Σ over the others of (its weight × (9 + 1) + 1)} servings: it joins at the virtual time of the owner served
     * last, which was at most 9 levels ahead of any other, and each of them is served at most once per
     * {@code 1 / weight} turn until it passes the newcomer.
     */
    @Property(tries = 200)
    void shouldServeANewcomerWithinABoundedNumberOfTurns(
            @ForAll @Size(min = 1, max = 10) List<@IntRange(min = 1, max = 20) Integer> weights,
            @ForAll @Size(min = 10, max = 10) List<@IntRange(min = 0, max = 9) Integer> priorities,
            @ForAll @IntRange(min = 0, max = 500) int warmUp) {
        FairTurns<Integer> turns = FairTurns.weighted(1_000, 1_000, o -> o < weights.size() ? weights.get(o) : 1);
        for (int o = 0; o < weights.size(); o++) {
            turns.offer(o, priorities.get(o), 0);
        }
        for (int i = 0; i < warmUp; i++) {
            Integer owner = turns.peek();
            turns.served(owner, priorities.get(owner), 0);
        }
        int newcomer = weights.size();
        turns.offer(newcomer, 0, 0);
        int bound = 0;
        for (int o = 0; o < weights.size(); o++) {
            bound += weights.get(o) * (Rank.MAX_PRIORITY + 1) + 1;
        }
        for (int i = 0; i <= bound; i++) {
            Integer owner = turns.peek();
            if (owner == newcomer) {
                return;
            }
            turns.served(owner, priorities.get(owner), 0);
        }
        throw new AssertionError("newcomer not served within " + bound);
    }

    /** The same offers in the same order give the same service, whatever the hash codes of the owners. */
    @Property(tries = 100)
    void shouldResolveTiesDeterministically(@ForAll @Size(min = 1, max = 30) List<@IntRange(min = 0, max = 5) Integer> script) {
        assertThat(run(script, "x")).isEqualTo(run(script, "y"));
    }

    private static List<Integer> run(List<Integer> script, String salt) {
        FairTurns<String> turns = FairTurns.equal(1, 1);
        Map<String, Integer> index = new HashMap<>();
        List<Integer> order = new ArrayList<>();
        for (int step : script) {
            String owner = salt + step; // different names, so different hash orders
            index.put(owner, step);
            turns.offer(owner, step % 3, 0);
            String next = turns.peek();
            order.add(index.get(next));
            turns.served(next, step % 3, 0);
        }
        return order;
    }
}
