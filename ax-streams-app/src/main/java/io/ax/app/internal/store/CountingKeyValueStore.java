package io.ax.app.internal.store;

import io.ax.app.internal.store.StoreOps.Op;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.Query;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * A RocksDB key-value store with its operations counted ({@link StoreOps}): the innermost layer of a store built by
 * {@link CountingStoreSupplier}, below Kafka Streams' caching and change-logging wrappers, so it sees what reaches
 * RocksDB. Everything else (init, commit and the offsets the store manages, queries, close) is the inner store's.
 * Not thread-safe beyond what the inner store is; the counters are.
 */
final class CountingKeyValueStore implements KeyValueStore<Bytes, byte[]> {
    private final KeyValueStore<Bytes, byte[]> inner;
    private final StoreOps ops = new StoreOps();

    CountingKeyValueStore(KeyValueStore<Bytes, byte[]> inner) {
        this.inner = inner;
    }

    // visible for testing
    StoreOps ops() {
        return ops;
    }

    @Override
    public void init(StateStoreContext context, StateStore root) {
        inner.init(context, root);
        ops.register(context.metrics(), String.valueOf(context.taskId()), name()); // a global store's task id is -1_-1
    }

    @Override
    public byte[] get(Bytes key) {
        ops.count(Op.GET);
        return inner.get(key);
    }

    @Override
    public void put(Bytes key, byte[] value) {
        ops.count(value == null ? Op.DELETE : Op.PUT);
        inner.put(key, value);
    }

    @Override
    public byte[] putIfAbsent(Bytes key, byte[] value) {
        ops.count(Op.GET);
        byte[] previous = inner.putIfAbsent(key, value);
        if (previous == null) {
            ops.count(value == null ? Op.DELETE : Op.PUT);
        }
        return previous;
    }

    @Override
    public void putAll(List<KeyValue<Bytes, byte[]>> entries) {
        for (KeyValue<Bytes, byte[]> entry : entries) {
            ops.count(entry.value == null ? Op.DELETE : Op.PUT);
        }
        inner.putAll(entries);
    }

    @Override
    public byte[] delete(Bytes key) {
        ops.count(Op.DELETE);
        return inner.delete(key);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to) {
        return counted(inner.range(from, to));
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseRange(Bytes from, Bytes to) {
        return counted(inner.reverseRange(from, to));
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> all() {
        return counted(inner.all());
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseAll() {
        return counted(inner.reverseAll());
    }

    @Override
    public <PS extends Serializer<P>, P> KeyValueIterator<Bytes, byte[]> prefixScan(P prefix, PS prefixKeySerializer) {
        return counted(inner.prefixScan(prefix, prefixKeySerializer));
    }

    private KeyValueIterator<Bytes, byte[]> counted(KeyValueIterator<Bytes, byte[]> iterator) {
        ops.count(Op.SEEK);
        return new KeyValueIterator<>() {
            @Override
            public boolean hasNext() {
                return iterator.hasNext();
            }

            @Override
            public KeyValue<Bytes, byte[]> next() {
                ops.count(Op.NEXT);
                return iterator.next();
            }

            @Override
            public Bytes peekNextKey() {
                return iterator.peekNextKey();
            }

            @Override
            public void close() {
                iterator.close();
            }
        };
    }

    @Override
    public long approximateNumEntries() {
        return inner.approximateNumEntries();
    }

    @Override
    public ReadOnlyKeyValueStore<Bytes, byte[]> readOnly(IsolationLevel isolationLevel) {
        return inner.readOnly(isolationLevel); // interactive queries' view: not the stream thread's work, not counted
    }

    @Override
    public String name() {
        return inner.name();
    }

    @Override
    public void flush() {
        inner.flush();
    }

    @Override
    public void commit(Map<TopicPartition, Long> changelogOffsets) {
        inner.commit(changelogOffsets);
    }

    @Override
    public Long committedOffset(TopicPartition partition) {
        return inner.committedOffset(partition);
    }

    @Override
    public boolean managesOffsets() {
        return inner.managesOffsets();
    }

    @Override
    public long approximateNumUncommittedBytes() {
        return inner.approximateNumUncommittedBytes();
    }

    @Override
    public void close() {
        ops.unregister();
        inner.close();
    }

    @Override
    public boolean persistent() {
        return inner.persistent();
    }

    @Override
    public boolean isOpen() {
        return inner.isOpen();
    }

    @Override
    public <R> QueryResult<R> query(Query<R> query, PositionBound positionBound, QueryConfig config) {
        return inner.query(query, positionBound, config);
    }

    @Override
    public Position getPosition() {
        return inner.getPosition();
    }
}
