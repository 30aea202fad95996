package io.ax.app.internal.store;

import java.util.Map;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.Options;
import org.rocksdb.VectorMemTableConfig;

/**
 * ax's RocksDB settings, given to Kafka Streams as {@code rocksdb.config.setter} (a {@code streams.rocksdb.config.setter}
 * of the user's replaces it). One store differs from Kafka Streams' defaults: the lookup index ({@link AxStores#INDEX})
 * writes into memtables of {@value #INDEX_WRITE_BUFFER_BYTES} bytes instead of 16 MB, kept as vectors rather than skip
 * lists, with a bloom filter over their keys.
 *
 * <p>Why: the index is written by every decision and read a few times a second at most (the HTTP API's listings and
 * lookups, each partition's gauges every {@code ax.metrics.refresh.ms}), while RocksDB's default memtable, a skip list,
 * is built for the opposite: each insert searches it, and every accepted task puts an executionId key ({@code 'x'} + a
 * name-based UUID) at a random place, whose search missed the CPU caches at most levels (~3 µs a key in a 16 MB
 * memtable, ~1 µs in 2 MB: a sixth of an accept's stream-thread CPU, {@code ./ax bench ingest}, async-profiler,
 * BENCHMARKS.md). A vector memtable appends each write and sorts once, when the memtable is flushed to a file, in
 * RocksDB's background thread; so a write batch needs no order either ({@link TaskIndex#flush}). The price is on the
 * readers: an iterator or a get that reaches the memtable still being written sorts a copy of it (2 MB, ~20,000 keys:
 * milliseconds, on the reader's thread). The bloom filter lets a get of a key that memtable does not hold (most of
 * {@code GET /executions/{id}}'s, asked of every partition) skip it; the gauges read the counters from memory
 * ({@link TaskIndex#count}) and only the range of executions in flight from the store. The small memtable bounds that
 * sort; a flush to level 0 every ~20,000 keys and their compactions run in the background, and the index is unlogged and
 * derived from the task store.
 *
 * <p>Every store but the timer index also keeps a bloom filter for its last sorted run, which Kafka Streams' defaults
 * leave out ({@code optimize_filters_for_hits}, for stores whose gets find their key). ax's stores are asked for keys
 * they do not hold on every task: each accepted task is read before it exists (the task store), the tombstone of its
 * taskId (the dependency store) and its job type's limit (the limits store), and {@code GET /executions/{id}} asks the
 * lookup index of every partition. Without the filter such a get reads the largest run's index and data block: 9.1–9.3
 * against 4.0–4.4 µs a get of a missing key in a store of 800,000 keys with Kafka Streams' other settings (universal
 * compaction, 16 MB memtables, 4 KB blocks), the task read was a seventh of the stream thread while ingesting (async-
 * profiler, two fifths of it those block reads). The price: ~10 bits of filter a key of that run, off the heap. The timer
 * index is never read by key (its reads are range scans). Other settings keep Kafka Streams' defaults.
 */
public final class AxRocksDBConfig implements RocksDBConfigSetter {
    /** The lookup index's memtable size, bytes. */
    public static final long INDEX_WRITE_BUFFER_BYTES = 2L * 1024 * 1024;
    /** The share of the index's memtable given to its bloom filter over whole keys. */
    static final double INDEX_MEMTABLE_BLOOM_RATIO = 0.05;

    @Override
    public void setConfig(String storeName, Options options, Map<String, Object> configs) {
        if (AxStores.INDEX.equals(storeName)) {
            options.setWriteBufferSize(INDEX_WRITE_BUFFER_BYTES);
            options.setMemTableConfig(new VectorMemTableConfig());
            options.setAllowConcurrentMemtableWrite(false); // a vector memtable takes one writer at a time
            options.setMemtablePrefixBloomSizeRatio(INDEX_MEMTABLE_BLOOM_RATIO);
            options.setMemtableWholeKeyFiltering(true);
        }
        if (!AxStores.TIMERS.equals(storeName)) {
            options.setOptimizeFiltersForHits(false);
        }
    }

    @Override
    public void close(String storeName, Options options) {
        // nothing allocated here: the memtable config is a description, copied into the options
    }
}
