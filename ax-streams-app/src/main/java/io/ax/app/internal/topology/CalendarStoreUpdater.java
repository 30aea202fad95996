package io.ax.app.internal.topology;

import io.ax.app.internal.metrics.RefusedRecords;
import io.ax.app.internal.store.AxStores;
import io.ax.codec.WireCodec;
import io.ax.schema.CalendarRequest;
import io.ax.validation.CalendarValidator;
import io.ax.validation.Quote;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the global calendar store in step with the calendars topic, on every instance: a value sets the calendar, a
 * tombstone deletes it. The scheduler writes the topic only after validating each calendar ({@code core.CalendarRules}),
 * but anyone with write access to the topic can write anything, so every record is checked again before it is stored:
 * the key a calendar name, the value at most {@value #MAX_VALUE_BYTES} bytes and a {@link CalendarRequest} (Avro or its
 * JSON form; a record of another type is not read as an empty calendar) that compiles within its bounds
 * ({@link CalendarValidator#compile}: the time-independent rules, so a restart a year later stores what was stored). A
 * record that fails changes nothing: the name's previous calendar stays, and the record is logged (WARN, key quoted
 * short, topic-partition@offset) and counted ({@code ax_calendar_records_refused}, {@code GET /calendars}). There is no
 * state-topic answer: every instance reads the topic, so each would write one. The store holds the calendar
 * re-encoded, so what it holds is exactly what the rules read. Kafka Streams replays the topic through this processor
 * when it restores the store.
 */
final class CalendarStoreUpdater implements Processor<String, byte[], Void, Void> {
    private static final Logger log = LoggerFactory.getLogger(CalendarStoreUpdater.class);
    /** Largest value read: a calendar at every bound (1000 dates, 100 ranges, ...) in its JSON form is about 30 KB. */
    static final int MAX_VALUE_BYTES = 65_536;

    private final RefusedRecords refused;
    private ProcessorContext<Void, Void> context;
    private KeyValueStore<String, byte[]> store;

    CalendarStoreUpdater(RefusedRecords refused) {
        this.refused = refused;
    }

    @Override
    public void init(ProcessorContext<Void, Void> context) {
        this.context = context;
        store = context.getStateStore(AxStores.CALENDARS);
    }

    @Override
    public void process(Record<String, byte[]> record) {
        String name = record.key();
        try {
            CalendarValidator.validateName(name);
            if (record.value() == null) {
                store.delete(name);
                return;
            }
            if (record.value().length > MAX_VALUE_BYTES) {
                throw new IllegalArgumentException("value is " + record.value().length + " bytes, more than a calendar takes ("
                        + MAX_VALUE_BYTES + ")");
            }
            CalendarRequest calendar = WireCodec.decodeCalendar(record.value());
            CalendarValidator.compile(name, calendar);
            store.put(name, WireCodec.encode(calendar));
        } catch (RuntimeException e) { // an exception here would stop the global thread, and with it the instance
            refuse(name, e);
        }
    }

    private void refuse(String name, RuntimeException e) {
        RecordMetadata where = context.recordMetadata().orElse(null);
        int partition = where == null ? -1 : where.partition();
        long offset = where == null ? -1 : where.offset();
        String reason = Quote.truncate(String.valueOf(e.getMessage()), 500);
        refused.refused(new RefusedRecords.Refused(Quote.key(name), partition, offset, reason));
        log.warn("Refused calendars record key={} at {}-{}@{}: {} (not stored; the previous calendar of the name stays)",
                Quote.of(name), where == null ? "?" : where.topic(), partition, offset, reason);
    }
}
