package io.ax.fair;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * A JMH-free loop that prints what a worker lane's queue costs per add and poll: 100 owners, 10,000 waiting, each round
 * adds one and starts one. Printed, not asserted: a shared 2-core machine is no place for timing assertions.
 */
class FairQueueLoopTest {
    private static final int OWNERS = 100;
    private static final int WAITING = 10_000;
    private static final int ROUNDS = 400_000;

    @Test
    void shouldPrintTheCostOfAnAddAndAPoll() {
        double ns = 0;
        for (int round = 0; round < 3; round++) { // the first rounds warm up
            FairQueue<Integer> queue = new FairQueue<>(FairTurns.weighted(1_000, 1_000, owner -> owner.hashCode() % 3 + 1));
            String[] owners = new String[OWNERS];
            for (int o = 0; o < OWNERS; o++) {
                owners[o] = "owner-" + o;
            }
            long sequence = 0;
            for (int i = 0; i < WAITING; i++) {
                queue.add(new FairQueue.Entry<>(i, owners[i % OWNERS], i % 10, Rank.of(i, i % 10, 1_000), sequence++));
            }
            long checksum = 0;
            long start = System.nanoTime();
            for (int i = 0; i < ROUNDS; i++) {
                int owner = (int) ((i * 2_654_435_761L) % OWNERS);
                queue.add(new FairQueue.Entry<>(i, owners[owner], i % 10, Rank.of(WAITING + i, i % 10, 1_000), sequence++));
                checksum += queue.poll().element();
            }
            ns = (System.nanoTime() - start) / (double) ROUNDS;
            assertThat(queue.size()).isEqualTo(WAITING);
            assertThat(checksum).isPositive();
        }
        System.out.printf("RESULT lane-add-poll owners=%d waiting=%d: %.0f ns per add + poll%n", OWNERS, WAITING, ns);
    }
}
