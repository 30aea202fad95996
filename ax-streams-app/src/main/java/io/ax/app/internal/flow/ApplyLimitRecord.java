package io.ax.app.internal.flow;

import io.ax.FlowLimit;
import io.ax.InvalidRequestException;
import io.ax.app.internal.metrics.RefusedRecords;
import io.ax.app.internal.store.FlowStores;
import io.ax.validation.Quote;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies one record of the compacted limits topic to the global limits store, on every instance: a valid value
 * replaces the key's limits (normalized JSON), a tombstone removes them. A bad record (bad key, not JSON, a field the
 * key kind does not take, out of range) changes nothing: the previous value stays, and the record is logged with its
 * offset and counted ({@link RefusedRecords}, shown by {@code GET /limits}). Kafka Streams replays the topic through this
 * processor when it restores the store, so a restart ends with the same limits.
 */
public final class ApplyLimitRecord implements Processor<String, byte[], Void, Void> {
    private static final Logger log = LoggerFactory.getLogger(ApplyLimitRecord.class);

    private final RefusedRecords errors;
    private final LimitsChanges changes;
    private KeyValueStore<String, String> store;
    private ProcessorContext<Void, Void> context;

    public ApplyLimitRecord(RefusedRecords errors, LimitsChanges changes) {
        this.errors = errors;
        this.changes = changes;
    }

    @Override
    public void init(ProcessorContext<Void, Void> context) {
        this.context = context;
        this.store = context.getStateStore(FlowStores.LIMITS);
    }

    @Override
    public void process(Record<String, byte[]> record) {
        String key = record.key();
        try {
            if (record.value() == null) {
                FlowLimit.validateKey(key);
                store.delete(key);
                changes.changed();
                log.info("Flow limits of {} removed", key);
                return;
            }
            FlowLimit limit = FlowLimit.parse(key, record.value());
            store.put(key, limit.toJson());
            changes.changed();
            log.info("Flow limits of {} set: {}", key, limit.toJson());
        } catch (InvalidRequestException e) {
            RecordMetadata where = context.recordMetadata().orElse(null);
            int partition = where == null ? -1 : where.partition();
            long offset = where == null ? -1 : where.offset();
            errors.refused(new RefusedRecords.Refused(Quote.key(key), partition, offset, e.getMessage()));
            log.warn("Refused limits record key={} at {}-{}@{}: {} (the previous limits of the key stay)", Quote.key(key),
                    where == null ? "?" : where.topic(), partition, offset, e.getMessage());
        }
    }
}
