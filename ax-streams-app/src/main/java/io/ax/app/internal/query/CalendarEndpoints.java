package io.ax.app.internal.query;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ax.app.internal.metrics.SchedulerMetrics;
import io.ax.app.internal.store.AxStores;
import io.ax.codec.WireCodec;
import io.ax.schema.CalendarRequest;
import io.ax.schema.DailyWindow;
import io.ax.schema.DateRange;
import io.ax.validation.CalendarValidator;
import io.ax.validation.Quote;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * {@code GET /calendars/{name}} (one exclusion calendar as the scheduler applies it) and {@code GET /calendars} (their
 * names, at most {@value #MAX_LISTED}, and the records of the calendars topic this instance refused: how many, and the last
 * few with their offsets and reasons). Calendars live in a global store every instance holds whole, so any instance
 * answers from its own copy, with no forwarding; a calendar set a moment ago may show a moment later.
 */
final class CalendarEndpoints implements EndpointGroup {
    static final int MAX_LISTED = 1000;

    private final KafkaStreams streams;
    private final SchedulerMetrics metrics;

    CalendarEndpoints(KafkaStreams streams, SchedulerMetrics metrics) {
        this.streams = streams;
        this.metrics = metrics;
    }

    @Override
    public void register(RoutesConfig routes) {
        routes.get("/calendars/{name}", this::calendar);
        routes.get("/calendars", this::list);
    }

    private void calendar(Context ctx) {
        String name = ctx.pathParam("name");
        CalendarValidator.validateName(name);
        byte[] bytes = store().get(name);
        if (bytes == null) {
            throw HttpError.notFound("no calendar " + Quote.of(name));
        }
        CalendarRequest calendar;
        try {
            calendar = WireCodec.decodeCalendar(bytes);
        } catch (RuntimeException e) { // a store written before calendars were checked on the way in
            throw HttpError.notFound("no readable calendar " + Quote.of(name) + " (the stored value is not one: "
                    + Quote.truncate(String.valueOf(e.getMessage()), 200) + ")");
        }
        Responses.json(ctx, 200, toJson(name, calendar));
    }

    private void list(Context ctx) {
        ArrayNode names = TaskView.MAPPER.createArrayNode();
        boolean more = false;
        try (KeyValueIterator<String, byte[]> all = store().all()) {
            while (all.hasNext()) {
                String name = all.next().key;
                if (names.size() == MAX_LISTED) {
                    more = true;
                    break;
                }
                names.add(name);
            }
        }
        ObjectNode body = TaskView.MAPPER.createObjectNode();
        body.set("calendars", names);
        body.put("truncated", more);
        LimitsEndpoints.refused(body, metrics.calendarErrors());
        Responses.json(ctx, 200, body);
    }

    /** The calendar in the JSON form it is set with, plus its name. */
    static ObjectNode toJson(String name, CalendarRequest calendar) {
        ObjectNode json = TaskView.MAPPER.createObjectNode().put("name", name).put("zone", calendar.getZone());
        ArrayNode dates = json.putArray("excludeDates");
        calendar.getExcludeDates().forEach(dates::add);
        ArrayNode ranges = json.putArray("excludeRanges");
        for (DateRange range : calendar.getExcludeRanges()) {
            ranges.addObject().put("from", range.getFrom()).put("to", range.getTo());
        }
        ArrayNode weekdays = json.putArray("excludeWeekdays");
        calendar.getExcludeWeekdays().forEach(weekdays::add);
        ArrayNode daily = json.putArray("excludeDaily");
        for (DailyWindow window : calendar.getExcludeDaily()) {
            daily.addObject().put("from", window.getFrom()).put("to", window.getTo());
        }
        if (calendar.getDescription() != null) {
            json.put("description", calendar.getDescription());
        }
        return json;
    }

    private ReadOnlyKeyValueStore<String, byte[]> store() {
        try {
            return streams.store(StoreQueryParameters.fromNameAndType(AxStores.CALENDARS, QueryableStoreTypes.keyValueStore()));
        } catch (InvalidStateStoreException e) {
            throw HttpError.unavailable("the calendar store cannot be read here now (" + e.getMessage() + ")");
        }
    }
}
