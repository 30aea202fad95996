package io.ax.app.internal.topology;

import io.ax.app.internal.store.AxStores;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Keeps the global calendar store in step with the calendars topic: a value sets the calendar, a tombstone deletes it.
 * Only the scheduler writes the topic, after validating each calendar ({@link ApplyCalendarRequest}).
 */
final class CalendarStoreUpdater implements Processor<String, byte[], Void, Void> {
    private KeyValueStore<String, byte[]> store;

    @Override
    public void init(ProcessorContext<Void, Void> context) {
        store = context.getStateStore(AxStores.CALENDARS);
    }

    @Override
    public void process(Record<String, byte[]> record) {
        if (record.key() == null) {
            return;
        }
        if (record.value() == null) {
            store.delete(record.key());
        } else {
            store.put(record.key(), record.value());
        }
    }
}
