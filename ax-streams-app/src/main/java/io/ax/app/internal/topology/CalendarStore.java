package io.ax.app.internal.topology;

import io.ax.app.internal.core.CalendarLookup;
import io.ax.calendar.ExclusionCalendar;
import io.ax.codec.WireCodec;
import io.ax.validation.Quote;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The exclusion calendars of the global calendar store, compiled for the rules. The store holds only calendars
 * {@link CalendarStoreUpdater} checked, so a value that no longer compiles (a zone this JVM's tz data no longer knows) is read as
 * no calendar, logged once per value. Compiled calendars are cached per name with the bytes they came from, so a lookup
 * is one store get and a byte comparison; the cache is bounded ({@value #MAX_CACHED}, least recently used out). Not
 * thread-safe: one per stream task.
 */
final class CalendarStore implements CalendarLookup {
    static final int MAX_CACHED = 1024;
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(CalendarStore.class);

    private final ReadOnlyKeyValueStore<String, byte[]> store;
    private final Map<String, Compiled> cache = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Compiled> eldest) {
            return size() > MAX_CACHED;
        }
    };

    private record Compiled(byte[] bytes, ExclusionCalendar calendar) {
    }

    CalendarStore(ReadOnlyKeyValueStore<String, byte[]> store) {
        this.store = store;
    }

    @Override
    public ExclusionCalendar find(String name) {
        byte[] bytes = store.get(name);
        if (bytes == null) {
            cache.remove(name);
            return null;
        }
        Compiled cached = cache.get(name);
        if (cached != null && Arrays.equals(cached.bytes(), bytes)) {
            return cached.calendar();
        }
        ExclusionCalendar calendar = compile(name, bytes);
        cache.put(name, new Compiled(bytes, calendar));
        return calendar;
    }

    @Override
    public boolean exists(String name) {
        return store.get(name) != null;
    }

    /** The stored bytes of a calendar, or null (for {@code GET /calendars/{name}}). */
    byte[] bytes(String name) {
        return store.get(name);
    }

    private static ExclusionCalendar compile(String name, byte[] bytes) {
        try {
            return ExclusionCalendar.of(name, WireCodec.decodeCalendar(bytes));
        } catch (RuntimeException e) {
            log.warn("Calendar {} in the calendar store does not compile and is not applied: {}", Quote.of(name),
                    Quote.truncate(String.valueOf(e.getMessage()), 500));
            return null;
        }
    }
}
