package io.ax.app.bench;

import java.util.List;

/**
 * What the command line asked for. Sizes left {@code null} take the scenario's default.
 *
 * @param bootstrap    an existing Kafka cluster, or {@code null} for an embedded broker in this process
 * @param n            tasks or records to measure (raw, ingest, burst)
 * @param ratePerS     tasks per second (steady, capacity)
 * @param durationS    seconds of load (steady, capacity) or of sampling (idle)
 * @param pending      timers held while measuring (capacity, recovery)
 * @param partitions   partitions of ax's topics and of the raw baseline's topic
 * @param childJvmOpts extra JVM options of the scheduler's child JVM (e.g. {@code -Xmx2g})
 * @param brokers      Kafka nodes a scenario that runs its own starts (chaos: 1, or a 3-node cluster)
 * @param brokerStop   how chaos stops its broker: {@code kill} (kill -9), {@code term} (SIGTERM, a controlled shutdown),
 *                     or null for the scenario's default
 * @param instances    scheduler instances of failover (default 2); all but the last are killed, one after another
 * @param warmupS      seconds of the same load before a steady measurement, not measured (the JIT compiles the
 *                     hot path meanwhile; a fresh JVM measured at once shows its warm-up, not its steady state)
 * @param randomIds    ingest, burst and steady: task ids scattered over the byte order, as UUIDs are ({@link TaskKeys})
 * @param timeline     steady, capacity, failover: print the measured run's lateness second by second ({@link LatenessBySecond})
 */
public record BenchOptions(String bootstrap, Integer n, Integer ratePerS, Integer durationS, Integer pending,
                           int partitions, List<String> childJvmOpts, int warmupS, int brokers,
                           String brokerStop, Integer instances, boolean randomIds, boolean timeline) {
    public BenchOptions {
        if (warmupS < 0) {
            throw new IllegalArgumentException("warmup must be >= 0: " + warmupS);
        }
        positive("n", n);
        positive("rate", ratePerS);
        positive("duration", durationS);
        positive("pending", pending);
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be >= 1: " + partitions);
        }
        if (brokerStop != null && !"kill".equals(brokerStop) && !"term".equals(brokerStop)) {
            throw new IllegalArgumentException("broker-stop must be kill or term: " + brokerStop);
        }
        if (brokers < 1) {
            throw new IllegalArgumentException("brokers must be >= 1: " + brokers);
        }
        if (instances != null && (instances < 2 || instances > 5)) {
            throw new IllegalArgumentException("instances must be 2-5: " + instances);
        }
        childJvmOpts = List.copyOf(childJvmOpts);
    }

    /** The task ids of a scenario that honours {@code --random-ids}: {@code prefix<i>}, scattered if asked. */
    public TaskKeys keys(String prefix) {
        return new TaskKeys(prefix, randomIds);
    }

    public int instancesOr(int defaultInstances) {
        return instances == null ? defaultInstances : instances;
    }

    public int nOr(int defaultN) {
        return n == null ? defaultN : n;
    }

    public int rateOr(int defaultRate) {
        return ratePerS == null ? defaultRate : ratePerS;
    }

    public int durationOr(int defaultS) {
        return durationS == null ? defaultS : durationS;
    }

    public int pendingOr(int defaultPending) {
        return pending == null ? defaultPending : pending;
    }

    private static void positive(String name, Integer value) {
        if (value != null && value < 1) {
            throw new IllegalArgumentException(name + " must be >= 1: " + value);
        }
    }
}
