package io.ax.app.internal.store;

import java.util.Map;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.Options;

/**
 * ax's RocksDB settings, given to Kafka Streams as {@code rocksdb.config.setter} (a {@code streams.rocksdb.config.setter}
 * of the user's replaces it). One change to Kafka Streams' defaults: the lookup index ({@link AxStores#INDEX}) writes
 * into memtables of {@value #INDEX_WRITE_BUFFER_BYTES} bytes instead of 16 MB.
 *
 * <p>Why: every accepted task puts an executionId key into the index ({@code 'x'} + a name-based UUID, so at a random
 * place), and a RocksDB memtable is a skip list whose insert searches it from the top: in a 16 MB memtable (~160,000 index
 * keys) that search missed the CPU caches at most of its ~18 levels, ~3 µs a key, a fifth of an accept's stream-thread CPU
 * ({@code ./ax bench ingest}, async-profiler: {@code InlineSkipList::RecomputeSpliceLevels}). A 2 MB memtable holds ~20,000
 * keys, mostly in cache: the index's flush cost 40 % less CPU (BENCHMARKS.md). The price is more, smaller flushes to
 * level 0 (one every ~20,000 keys, in RocksDB's background threads) and their compactions; the index is unlogged and
 * derived from the task store (a listing reads a few SST files more), and it holds less memory (three memtables of 2 MB
 * at most per partition instead of three of 16 MB). Other stores keep Kafka Streams' defaults.
 */
public final class AxRocksDBConfig implements RocksDBConfigSetter {
    /** The lookup index's memtable size, bytes. */
    public static final long INDEX_WRITE_BUFFER_BYTES = 2L * 1024 * 1024;

    @Override
    public void setConfig(String storeName, Options options, Map<String, Object> configs) {
        if (AxStores.INDEX.equals(storeName)) {
            options.setWriteBufferSize(INDEX_WRITE_BUFFER_BYTES);
        }
    }

    @Override
    public void close(String storeName, Options options) {
        // nothing allocated here
    }
}
