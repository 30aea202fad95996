package io.ax.client;

import io.ax.InvalidRequestException;
import io.ax.client.internal.RequestSender;
import io.ax.schema.CalendarRequest;
import io.ax.schema.DailyWindow;
import io.ax.schema.DateRange;
import io.ax.validation.CalendarValidator;
import java.time.DayOfWeek;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Describes a named exclusion calendar to create or replace: {@link AxClient#calendar(String)}, then the exclusions,
 * then {@link #set()}. The calendar replaces any calendar of that name whole, and applies to the next occurrences of
 * every periodic task naming it ({@link ScheduleBuilder#calendar(String)}). Dates, weekdays and daily windows are read
 * in {@link #zone} (default UTC). {@link #set()} checks the calendar as the scheduler will (bounded lists, well-formed
 * values, something left unexcluded in the next 366 days) and throws {@link InvalidRequestException} naming what is
 * wrong, so a bad calendar is never sent. Not thread-safe.
 *
 * <pre>{@code
 * client.calendar("berlin-office").zone(ZoneId.of("Europe/Berlin"))
 *       .excludeWeekdays(DayOfWeek.SATURDAY, DayOfWeek.SUNDAY)
 *       .excludeRange(LocalDate.parse("2026-12-24"), LocalDate.parse("2026-12-31"))
 *       .excludeDaily(LocalTime.of(22, 0), LocalTime.of(6, 0))
 *       .set().join();
 * }</pre>
 */
public final class CalendarBuilder {
    private final String name;
    private final RequestSender sender;
    private final CalendarRequest.Builder request = CalendarRequest.newBuilder();
    private final List<String> dates = new ArrayList<>();
    private final List<DateRange> ranges = new ArrayList<>();
    private final List<String> weekdays = new ArrayList<>();
    private final List<DailyWindow> windows = new ArrayList<>();

    CalendarBuilder(String name, RequestSender sender) {
        this.name = name;
        this.sender = sender;
    }

    /** The zone the dates, weekdays and daily windows are read in (default UTC). */
    public CalendarBuilder zone(ZoneId zone) {
        request.setZone(Objects.requireNonNull(zone, "zone").getId());
        return this;
    }

    /** Local dates excluded all day. */
    public CalendarBuilder excludeDates(LocalDate... dates) {
        for (LocalDate date : dates) {
            this.dates.add(Objects.requireNonNull(date, "date").toString());
        }
        return this;
    }

    /** Local dates from {@code from} to {@code to}, both included, excluded all day. */
    public CalendarBuilder excludeRange(LocalDate from, LocalDate to) {
        ranges.add(new DateRange(Objects.requireNonNull(from, "from").toString(), Objects.requireNonNull(to, "to").toString()));
        return this;
    }

    /** Days of the week excluded all day (not all seven). */
    public CalendarBuilder excludeWeekdays(DayOfWeek... days) {
        for (DayOfWeek day : days) {
            weekdays.add(Objects.requireNonNull(day, "day").name());
        }
        return this;
    }

    /**
     * Local time excluded every day, {@code from} included, {@code to} excluded; {@code to} before {@code from} wraps
     * midnight (22:00 to 06:00). Precision: seconds.
     */
    public CalendarBuilder excludeDaily(LocalTime from, LocalTime to) {
        windows.add(new DailyWindow(time(Objects.requireNonNull(from, "from")), time(Objects.requireNonNull(to, "to"))));
        return this;
    }

    public CalendarBuilder description(String description) {
        request.setDescription(description);
        return this;
    }

    /**
     * The request as it would be sent, validated.
     *
     * @throws InvalidRequestException naming the first rule the calendar breaks
     */
    public CalendarRequest build() {
        CalendarRequest built = request.setExcludeDates(new ArrayList<>(dates)).setExcludeRanges(new ArrayList<>(ranges))
                .setExcludeWeekdays(new ArrayList<>(weekdays)).setExcludeDaily(new ArrayList<>(windows)).build();
        CalendarValidator.validate(name, built, sender.nowMs());
        return built;
    }

    /**
     * Validates and sends the calendar. The scheduler answers on the state topic: a line with {@code "to":"ACCEPTED"}
     * and {@code "calendar"} = the name once it is set (schedule tasks naming it after that), or REJECTED with the
     * reason.
     *
     * @throws InvalidRequestException naming the first rule the calendar breaks; nothing is sent then
     */
    public CompletableFuture<RecordMetadata> set() {
        return sender.send(name, build());
    }

    private static String time(LocalTime time) {
        return time.withNano(0).toString(); // HH:mm, or HH:mm:ss when the seconds are not 0
    }
}
