package io.ax.app.internal.timer;

import java.io.IOException;
import java.nio.file.Files;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/** A real RocksDB timer store, unlogged, in a fresh directory: what the timer tests run on. Close it after the test. */
final class TimerStores {
    private TimerStores() {
    }

    static KeyValueStore<Bytes, byte[]> open(String name) throws IOException {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, name);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        MockProcessorContext<Object, Object> context = new MockProcessorContext<>(props, new TaskId(0, 0),
                Files.createTempDirectory(name).toFile());
        KeyValueStore<Bytes, byte[]> store = Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore("timers"), Serdes.Bytes(),
                Serdes.ByteArray()).withLoggingDisabled().build();
        store.init(context.getStateStoreContext(), store);
        return store;
    }
}
