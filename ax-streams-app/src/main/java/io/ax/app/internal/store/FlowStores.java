package io.ax.app.internal.store;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * The stores of flow control (topology-docs/FLOW-CONTROL.md), kept here beside {@link AxStores} so that every store name
 * is in the store registry (the metrics count them by name without knowing flow control).
 */
public final class FlowStores {
    /** Global: limits key → the limit's normalized JSON, as applied by {@code flow.ApplyLimitRecord}. */
    public static final String LIMITS = "ax-limits";
    /** Per partition of the flow topic: every gate's counts, slots and queue; see {@code flow.GateStore}. */
    public static final String GATES = "ax-flow-gates";

    private FlowStores() {
    }

    /** The global limits store: rebuilt from the limits topic (through {@code flow.ApplyLimitRecord}), so not changelogged. */
    public static StoreBuilder<KeyValueStore<String, String>> limits() {
        return Stores.keyValueStoreBuilder(CountingStoreSupplier.counted(Stores.persistentKeyValueStore(LIMITS)), Serdes.String(), Serdes.String())
                .withLoggingDisabled();
    }

    public static StoreBuilder<KeyValueStore<String, byte[]>> gates() {
        return Stores.keyValueStoreBuilder(CountingStoreSupplier.counted(Stores.persistentKeyValueStore(GATES)), Serdes.String(), Serdes.ByteArray());
    }
}
