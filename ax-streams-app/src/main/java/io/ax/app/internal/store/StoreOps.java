package io.ax.app.internal.store;

import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.MeasurableStat;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.streams.StreamsMetrics;

/**
 * What one store of one stream task asked of RocksDB, counted by {@link CountingKeyValueStore} beneath Kafka Streams'
 * record cache and change-logging layers: so a put the cache absorbs is not counted, a changelog restore (written
 * straight into RocksDB) is not counted, and every call the stream thread makes that reaches RocksDB is. The counts
 * are the "store reads and writes" of the cost test ({@code CostTest}, BENCHMARKS.md "Cost per task").
 *
 * <p>Published as Kafka Streams metrics of the instance (group {@value #METRIC_GROUP}, name {@code <op>-total},
 * tags {@code task-id} and {@code store}), read when the metrics are read: {@code TopologyTestDriver.metrics()} in
 * tests, {@code KafkaStreams.metrics()} for {@code /metrics} ({@code ax_store_operations_total}). Recording costs one
 * uncontended {@link LongAdder} increment per call; no clock, no lock. Thread-safe (interactive queries read the
 * stores from other threads).
 */
public final class StoreOps {
    /** The Kafka metrics group of the counts. */
    public static final String METRIC_GROUP = "ax-store-ops";
    public static final String STORE_TAG = "store";
    public static final String TASK_TAG = "task-id";

    /** The operations counted. */
    public enum Op {
        /** A point read ({@code get}, and the read of {@code putIfAbsent}). */
        GET,
        /** A write of a value ({@code put}, {@code putAll} entries, {@code putIfAbsent} that wrote). */
        PUT,
        /**
         * A delete ({@code delete}, or a put of null). Kafka's {@code RocksDBStore.delete} reads the old value first (it
         * returns it), so each also costs RocksDB a point read that is not counted under {@link #GET}.
         */
        DELETE,
        /** An iterator opened ({@code range}, {@code all}, {@code prefixScan} and their reverse forms): one RocksDB seek. */
        SEEK,
        /** An entry read through such an iterator. */
        NEXT;

        /** The metric name: {@code get-total}, {@code put-total}, ... */
        public String metricName() {
            return name().toLowerCase(java.util.Locale.ROOT) + "-total";
        }
    }

    private static final Op[] OPS = Op.values();

    private final LongAdder[] counts = new LongAdder[OPS.length];
    private Sensor sensor;
    private StreamsMetrics metrics;

    StoreOps() {
        for (int i = 0; i < counts.length; i++) {
            counts[i] = new LongAdder();
        }
    }

    void count(Op op) {
        counts[op.ordinal()].increment();
    }

    /** The count of {@code op} so far. */
    public long get(Op op) {
        return counts[op.ordinal()].sum();
    }

    /**
     * Publishes the counts as metrics of {@code streamsMetrics}, tagged with the stream task and store. A sensor left
     * by an earlier instance of the same store (one not closed) is replaced, so the metrics always read this one.
     */
    void register(StreamsMetrics streamsMetrics, String taskId, String store) {
        String sensorName = METRIC_GROUP + "." + taskId + "." + store;
        streamsMetrics.removeSensor(streamsMetrics.addSensor(sensorName, Sensor.RecordingLevel.INFO));
        Sensor fresh = streamsMetrics.addSensor(sensorName, Sensor.RecordingLevel.INFO);
        Map<String, String> tags = Map.of(TASK_TAG, taskId, STORE_TAG, store);
        for (Op op : OPS) {
            LongAdder count = counts[op.ordinal()];
            fresh.add(new MetricName(op.metricName(), METRIC_GROUP,
                    "RocksDB " + op.name().toLowerCase(java.util.Locale.ROOT) + " operations of this store since it opened", tags),
                    new Total(count));
        }
        this.metrics = streamsMetrics;
        this.sensor = fresh;
    }

    /** Withdraws the metrics (the store closed). */
    void unregister() {
        if (sensor != null) {
            metrics.removeSensor(sensor);
            sensor = null;
        }
    }

    /** A metric that reads a counter; the sensor is never recorded into. */
    private record Total(LongAdder count) implements MeasurableStat {
        @Override
        public double measure(MetricConfig config, long nowMs) {
            return count.sum();
        }

        @Override
        public void record(MetricConfig config, double value, long timeMs) {
            // counted by StoreOps.count, not through the sensor
        }
    }
}
