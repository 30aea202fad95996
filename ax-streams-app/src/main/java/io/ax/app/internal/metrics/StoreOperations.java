package io.ax.app.internal.metrics;

import io.ax.app.internal.flow.FlowStores;
import io.ax.app.internal.store.AxStores;
import io.ax.app.internal.store.StoreOps;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * {@code ax_store_operations_total{store, op}}: the RocksDB operations of this instance's stores ({@link StoreOps}),
 * summed over its stream tasks from the Kafka Streams client's metrics. A scrape reads the client's metrics once (the
 * sums are kept for a second, so the thirty series of one scrape cost one pass); a store that moves to another
 * instance takes its counts with it, which Prometheus reads as a counter reset. Thread-safe.
 */
final class StoreOperations {
    /** The stores counted, as {@code AxStores} and {@code FlowStores} build them. */
    static final List<String> STORES = List.of(AxStores.TASKS, AxStores.TIMERS, AxStores.INDEX, AxStores.CALENDARS,
            FlowStores.GATES, FlowStores.LIMITS);
    private static final long SNAPSHOT_NANOS = 1_000_000_000L;

    private final Supplier<? extends Map<MetricName, ? extends Metric>> kafkaMetrics;
    private Map<String, Double> sums = Map.of();
    private long takenAtNanos;
    private boolean taken;

    private StoreOperations(Supplier<? extends Map<MetricName, ? extends Metric>> kafkaMetrics) {
        this.kafkaMetrics = kafkaMetrics;
    }

    /** Registers the counters in {@code registry}, reading {@code kafkaMetrics} (the client's {@code metrics()}). */
    static void register(MeterRegistry registry, Supplier<? extends Map<MetricName, ? extends Metric>> kafkaMetrics) {
        StoreOperations operations = new StoreOperations(kafkaMetrics);
        for (String store : STORES) {
            for (StoreOps.Op op : StoreOps.Op.values()) {
                String opName = op.name().toLowerCase(Locale.ROOT);
                FunctionCounter.builder("ax.store.operations", operations, o -> o.sum(store, op))
                        .description("RocksDB operations of the stores of this instance's stream tasks, beneath the record cache"
                                + " (restores not counted)")
                        .tags("store", store, "op", opName).register(registry);
            }
        }
    }

    private synchronized double sum(String store, StoreOps.Op op) {
        long nowNanos = System.nanoTime();
        if (!taken || nowNanos - takenAtNanos >= SNAPSHOT_NANOS) {
            sums = snapshot();
            takenAtNanos = nowNanos;
            taken = true;
        }
        return sums.getOrDefault(store + "/" + op.metricName(), 0.0);
    }

    private Map<String, Double> snapshot() {
        Map<String, Double> out = new HashMap<>();
        try {
            kafkaMetrics.get().forEach((name, metric) -> {
                if (name.group().equals(StoreOps.METRIC_GROUP) && metric.metricValue() instanceof Number value) {
                    out.merge(name.tags().get(StoreOps.STORE_TAG) + "/" + name.name(), value.doubleValue(), Double::sum);
                }
            });
        } catch (RuntimeException e) {
            return sums; // the client is closing: keep the last figures
        }
        return out;
    }
}
