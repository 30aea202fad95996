package io.ax.app.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.ax.app.config.AxConfig;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

class AxRocksDBConfigTest {
    static {
        RocksDB.loadLibrary();
    }

    @Test
    void shouldGiveTheLookupIndexSmallVectorMemtablesWithABloomFilterAndLeaveEveryOtherStoresMemtableAsKafkaStreamsSetsIt() {
        AxRocksDBConfig setter = new AxRocksDBConfig();
        try (Options index = new Options().setWriteBufferSize(16L * 1024 * 1024);
             Options tasks = new Options().setWriteBufferSize(16L * 1024 * 1024)) {
            setter.setConfig(AxStores.INDEX, index, Map.of());
            setter.setConfig(AxStores.TASKS, tasks, Map.of());

            assertThat(index.writeBufferSize()).isEqualTo(2L * 1024 * 1024);
            assertThat(index.memTableFactoryName()).isEqualTo("VectorRepFactory");
            assertThat(index.allowConcurrentMemtableWrite()).isFalse(); // else RocksDB refuses to open a vector memtable
            assertThat(index.memtablePrefixBloomSizeRatio()).isPositive();
            assertThat(index.memtableWholeKeyFiltering()).isTrue();
            assertThat(tasks.writeBufferSize()).isEqualTo(16L * 1024 * 1024);
            assertThat(tasks.memTableFactoryName()).isEqualTo("SkipListFactory");
            assertThat(tasks.allowConcurrentMemtableWrite()).isTrue();
        }
    }

    @Test
    void shouldKeepABloomFilterForTheLastRunOfEveryStoreReadByKeySoThatAMissingKeyIsNotLookedForInItsBlocks() {
        AxRocksDBConfig setter = new AxRocksDBConfig();
        for (String store : java.util.List.of(AxStores.TASKS, AxStores.DEPENDENCIES, AxStores.INDEX, FlowStores.LIMITS, FlowStores.GATES,
                AxStores.WORKERS, AxStores.CALENDARS)) {
            try (Options options = new Options().setOptimizeFiltersForHits(true)) { // as Kafka Streams sets it before the setter
                setter.setConfig(store, options, Map.of());

                assertThat(options.optimizeFiltersForHits()).as(store).isFalse();
            }
        }
        try (Options timers = new Options().setOptimizeFiltersForHits(true)) {
            setter.setConfig(AxStores.TIMERS, timers, Map.of());

            assertThat(timers.optimizeFiltersForHits()).as("range scans only: no filter wanted").isTrue();
        }
    }

    @Test
    void shouldBeKafkaStreamsSetterUnlessTheUserGivesOne() {
        Properties ours = new AxConfig(Map.of(AxConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092")).streamsProperties();
        Properties theirs = new AxConfig(Map.of(AxConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092",
                "streams." + StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, "com.example.TheirSetter")).streamsProperties();

        assertThat(ours).containsEntry(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, AxRocksDBConfig.class.getName());
        assertThat(theirs).containsEntry(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, "com.example.TheirSetter");
    }
}
