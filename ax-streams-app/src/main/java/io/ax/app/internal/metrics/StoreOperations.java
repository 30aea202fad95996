package io.ax.app.internal.metrics;

import io.ax.app.internal.store.AxStores;
import io.ax.app.internal.store.FlowStores;
import io.ax.app.internal.store.StoreOps;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * {@code ax_store_operations_total{store, op}}: the RocksDB operations of this instance's stores ({@link StoreOps}),
 * summed over its stream tasks from the Kafka Streams client's metrics, read at each scrape (one pass over the client's
 * metrics per series: a few thousand entries, only when scraped); a store that moves to another instance takes its
 * counts with it, which Prometheus reads as a counter reset. Thread-safe.
 */
final class StoreOperations {
    /** The stores counted, as {@code AxStores} and {@code FlowStores} build them. */
    static final List<String> STORES = List.of(AxStores.TASKS, AxStores.TIMERS, AxStores.INDEX, AxStores.CALENDARS,
            FlowStores.GATES, FlowStores.LIMITS);
    private final Supplier<? extends Map<MetricName, ? extends Metric>> kafkaMetrics;

    private StoreOperations(Supplier<? extends Map<MetricName, ? extends Metric>> kafkaMetrics) {
        this.kafkaMetrics = kafkaMetrics;
    }

    /**
     * Registers the counters in {@code registry}, reading {@code kafkaMetrics} (the client's {@code metrics()}). Micrometer
     * holds the returned reader weakly: the caller keeps it, else it is collected and the counters stop moving.
     */
    static StoreOperations register(MeterRegistry registry, Supplier<? extends Map<MetricName, ? extends Metric>> kafkaMetrics) {
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
        return operations;
    }

    private double sum(String store, StoreOps.Op op) {
        String name = op.metricName();
        double sum = 0;
        try {
            for (Map.Entry<MetricName, ? extends Metric> entry : kafkaMetrics.get().entrySet()) {
                MetricName metric = entry.getKey();
                if (metric.group().equals(StoreOps.METRIC_GROUP) && metric.name().equals(name)
                        && store.equals(metric.tags().get(StoreOps.STORE_TAG)) && entry.getValue().metricValue() instanceof Number value) {
                    sum += value.doubleValue();
                }
            }
        } catch (RuntimeException e) {
            return Double.NaN; // the client is closing
        }
        return sum;
    }
}
