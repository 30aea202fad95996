package io.ax.app.internal.store;

import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Deletes what schedulers before the unlogged index ({@link TaskIndex}) left in the changelogged store
 * {@link AxStores#DEPENDENCIES}: the index and history key spaces that store held when it was the task index ('c', 'e',
 * 'h', 'j', 'o', 'r', 's', 'v', 'x', 'y'). The dependency keys ('d', 'n', 'p', 'P', 'q', 'N') are left alone. A bounded batch per
 * call, from where the last call stopped, so an upgrade over a large store spreads the deletes over punctuations; once
 * nothing is left a call costs nothing. Not thread-safe: one stream task owns it.
 */
public final class LegacyIndexKeys {
    private static final byte[] SPACES = {'c', 'e', 'h', 'j', 'o', 'r', 's', 'v', 'x', 'y'};

    private final KeyValueStore<Bytes, byte[]> store;
    private int space;

    public LegacyIndexKeys(KeyValueStore<Bytes, byte[]> store) {
        this.store = store;
    }

    /** Deletes up to {@code batch} legacy keys; true once none is left (then every later call returns true at once). */
    public boolean sweep(int batch) {
        int deleted = 0;
        while (space < SPACES.length && deleted < batch) {
            Bytes from = Bytes.wrap(new byte[] {SPACES[space]});
            Bytes to = Bytes.wrap(new byte[] {(byte) (SPACES[space] + 1)});
            boolean more = false;
            try (KeyValueIterator<Bytes, byte[]> it = store.range(from, to)) {
                while (it.hasNext()) {
                    Bytes key = it.next().key;
                    if (key.equals(to)) {
                        break; // range() includes its upper bound; that key is the next space's
                    }
                    if (deleted == batch) {
                        more = true;
                        break;
                    }
                    store.delete(key);
                    deleted++;
                }
            }
            if (!more) {
                space++;
            }
        }
        return space == SPACES.length;
    }
}
