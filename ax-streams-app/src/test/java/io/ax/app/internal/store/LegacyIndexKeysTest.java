package io.ax.app.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;

/** The index and history keys an older scheduler left in the dependency store go, in batches; dependency keys stay. */
class LegacyIndexKeysTest {
    @Test
    void shouldDeleteTheOldIndexAndHistoryKeysInBatchesAndKeepTheDependencyKeys() {
        KeyValueStore<Bytes, byte[]> store = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore("deps"), Serdes.Bytes(),
                Serdes.ByteArray()).withLoggingDisabled().build();
        store.init(new MockProcessorContext<>().getStateStoreContext(), store);
        for (String key : List.of("ct1", "et1", "ht1", "jt1", "ot1", "rt1", "st1", "st2", "v", "xe1", "ye1",
                "dup-dep", "nup", "pgone", "P0000gone")) {
            store.put(Bytes.wrap(key.getBytes()), new byte[] {1});
        }
        LegacyIndexKeys legacy = new LegacyIndexKeys(store);
        int calls = 1;
        while (!legacy.sweep(3)) {
            calls++;
        }
        assertThat(calls).as("11 keys, 3 a call").isGreaterThanOrEqualTo(4);
        List<String> left = new ArrayList<>();
        try (KeyValueIterator<Bytes, byte[]> all = store.all()) {
            all.forEachRemaining(kv -> left.add(new String(kv.key.get())));
        }
        assertThat(left).containsExactly("P0000gone", "dup-dep", "nup", "pgone");
        assertThat(legacy.sweep(3)).isTrue();
    }
}
