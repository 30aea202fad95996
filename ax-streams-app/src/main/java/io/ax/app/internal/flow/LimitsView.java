package io.ax.app.internal.flow;

import io.ax.app.internal.store.FlowStores;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/** Reads the limits an instance applies from its global limits store (every instance holds all of them). */
public final class LimitsView {
    /** At most this many keys are listed (the limits topic is operator-written and small). */
    static final int MAX_LISTED = 10_000;

    private LimitsView() {
    }

    /** limits key → normalized JSON; empty while the store cannot be read (not running yet). */
    public static Map<String, String> read(KafkaStreams streams) {
        Map<String, String> limits = new TreeMap<>();
        try {
            ReadOnlyKeyValueStore<String, String> store = streams.store(
                    StoreQueryParameters.fromNameAndType(FlowStores.LIMITS, QueryableStoreTypes.keyValueStore()));
            try (KeyValueIterator<String, String> all = store.all()) {
                while (all.hasNext() && limits.size() < MAX_LISTED) {
                    var next = all.next();
                    limits.put(next.key, next.value);
                }
            }
        } catch (InvalidStateStoreException e) {
            return Map.of();
        }
        return limits;
    }
}
