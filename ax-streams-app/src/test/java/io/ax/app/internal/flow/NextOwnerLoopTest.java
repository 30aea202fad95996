package io.ax.app.internal.flow;

import io.ax.app.internal.core.GateRules;
import io.ax.app.internal.core.GateState;
import io.ax.app.internal.core.GateTurns;
import static org.assertj.core.api.Assertions.assertThat;

import io.ax.fair.FairTurns;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A JMH-free loop that prints what a gate's next-owner choice costs with 5,000 owners waiting (the most a gate keeps
 * apart): the scan the gate did before (every owner, per grant) beside {@link GateTurns} (kept between records, O(log
 * n) per grant), for a record that grants the most a record may and for one that grants one (a release freeing one
 * slot: the common case). Printed, not asserted: a shared 2-core machine is no place for timing assertions. Only the
 * choice is timed, not the store reads and writes around it.
 */
class NextOwnerLoopTest {
    private static final int OWNERS = GateRules.MAX_OWNERS;
    private static final String GATE = "type:loop";

    @Test
    void shouldPrintTheCostOfChoosingTheNextOwnerAmongFiveThousand() {
        for (int grantsPerRecord : new int[] {FlowGate.GRANT_BATCH, 1}) {
            int records = 10_000 / grantsPerRecord;
            double[] ns = new double[2];
            for (int round = 0; round < 2; round++) { // the first rounds warm up
                GateState scanned = gate();
                GateState kept = gate();
                long start = System.nanoTime();
                for (int r = 0; r < records; r++) {
                    for (int g = 0; g < grantsPerRecord; g++) {
                        String owner = scan(scanned);
                        GateState.OwnerQueue queue = scanned.owners.get(owner);
                        scanned.vclock = queue.vt;
                        queue.vt += 1.0;
                        queue.waiting--;
                        scanned.waiting--;
                    }
                }
                long mid = System.nanoTime();
                GateTurns fairShare = new GateTurns(owner -> 1);
                for (int r = 0; r < records; r++) {
                    fairShare.begin(GATE, kept);
                    FairTurns<String> turns = fairShare.of(GATE, kept);
                    for (int g = 0; g < grantsPerRecord; g++) {
                        String owner = turns.peek();
                        GateState.OwnerQueue queue = kept.owners.get(owner);
                        queue.vt = turns.served(owner, 0, 0);
                        kept.vclock = turns.virtualNow();
                        queue.waiting--;
                        kept.waiting--;
                    }
                    fairShare.end(GATE, kept);
                }
                long end = System.nanoTime();
                ns[0] = (mid - start) / (double) (records * grantsPerRecord);
                ns[1] = (end - mid) / (double) (records * grantsPerRecord);
                assertThat(kept.vclock).as("both chose the same owners").isEqualTo(scanned.vclock);
            }
            System.out.printf("RESULT gate-next-owner owners=%d grants/record=%d: scan %.0f ns/grant, GateTurns %.0f ns/grant"
                    + " (its one build of %d owners included)%n", OWNERS, grantsPerRecord, ns[0], ns[1], OWNERS);
        }
    }

    private static GateState gate() {
        GateState state = new GateState();
        for (int o = 0; o < OWNERS; o++) {
            GateState.OwnerQueue queue = new GateState.OwnerQueue();
            queue.vt = (o * 7919) % 97 / 10.0;
            queue.waiting = 1_000_000;
            state.owners.put(String.format("owner-%05d", o), queue);
            state.waiting += queue.waiting;
        }
        state.seq = state.waiting;
        return state;
    }

    /** The gate's choice before: the waiting owner with the least virtual time, the first in the record on a tie. */
    private static String scan(GateState state) {
        String best = null;
        double bestVt = Double.MAX_VALUE;
        for (Map.Entry<String, GateState.OwnerQueue> owner : state.owners.entrySet()) {
            if (owner.getValue().waiting > 0 && owner.getValue().vt < bestVt) {
                best = owner.getKey();
                bestVt = owner.getValue().vt;
            }
        }
        return best;
    }
}
