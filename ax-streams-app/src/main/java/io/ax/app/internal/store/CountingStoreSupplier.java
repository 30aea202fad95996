package io.ax.app.internal.store;

import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * A store supplier whose stores count their RocksDB operations ({@link StoreOps}, {@link CountingKeyValueStore}):
 * {@code Stores.keyValueStoreBuilder(CountingStoreSupplier.counted(Stores.persistentKeyValueStore(name)), ...)}.
 * The builder puts its caching and logging layers above the counting one, so the counts are what RocksDB is asked.
 */
public final class CountingStoreSupplier implements KeyValueBytesStoreSupplier {
    private final KeyValueBytesStoreSupplier inner;

    private CountingStoreSupplier(KeyValueBytesStoreSupplier inner) {
        this.inner = inner;
    }

    /** {@code inner}'s stores, counted. */
    public static KeyValueBytesStoreSupplier counted(KeyValueBytesStoreSupplier inner) {
        return new CountingStoreSupplier(inner);
    }

    @Override
    public String name() {
        return inner.name();
    }

    @Override
    public KeyValueStore<Bytes, byte[]> get() {
        return new CountingKeyValueStore(inner.get());
    }

    @Override
    public String metricsScope() {
        return inner.metricsScope();
    }
}
