package io.ax.calendar;

import io.ax.InvalidRequestException;
import io.ax.schema.CalendarRequest;
import io.ax.schema.DailyWindow;
import io.ax.schema.DateRange;
import io.ax.validation.Quote;
import io.ax.validation.ScheduleValidator;
import java.time.DateTimeException;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;

/**
 * A named exclusion calendar, compiled from its {@link CalendarRequest}: which instants it excludes, read in its zone.
 * An instant is excluded when its local date is an excluded date, lies in an excluded range (both ends included) or
 * falls on an excluded weekday, or when its local time lies in a daily window ({@code from} included, {@code to}
 * excluded; {@code to} before {@code from} wraps midnight, so 22:00-06:00 excludes 22:00 to 24:00 and 00:00 to 06:00).
 * Daylight saving: an instant is turned into the zone's local date and time and then matched, so a window
 * 08:00-09:00 in Europe/Berlin is 07:00-08:00 UTC in winter and 06:00-07:00 UTC in summer; a window end that falls in
 * a gap (clocks forward) ends at the first instant after the gap.
 *
 * <p>Every list is bounded ({@link #of} refuses more), so {@link #exclusion} costs at most a few hundred comparisons;
 * {@link #nextAllowed} jumps from exclusion to exclusion (to the end of the excluded day, range or window), never
 * stepping through instants. Immutable and thread-safe.
 */
public final class ExclusionCalendar {
    public static final int MAX_DATES = 1000;
    public static final int MAX_RANGES = 100;
    public static final int MAX_DAILY_WINDOWS = 24;
    public static final int MAX_DESCRIPTION_CHARS = 1024;
    /** Most jumps {@link #nextAllowed} makes before it gives up (a year of daily windows and ranges takes far fewer). */
    static final int MAX_JUMPS = 10_000;

    private final String name;
    private final ZoneId zone;
    private final Set<LocalDate> dates;
    private final List<LocalDate[]> ranges;
    private final Set<DayOfWeek> weekdays;
    private final List<LocalTime[]> windows;

    private ExclusionCalendar(String name, ZoneId zone, Set<LocalDate> dates, List<LocalDate[]> ranges, Set<DayOfWeek> weekdays,
                              List<LocalTime[]> windows) {
        this.name = name;
        this.zone = zone;
        this.dates = dates;
        this.ranges = ranges;
        this.weekdays = weekdays;
        this.windows = windows;
    }

    /**
     * Compiles a calendar, checking every field (sizes first, then each value).
     *
     * @throws InvalidRequestException naming the field and the value that breaks a rule
     */
    public static ExclusionCalendar of(String name, CalendarRequest request) {
        requireMax("excludeDates", request.getExcludeDates().size(), MAX_DATES);
        requireMax("excludeRanges", request.getExcludeRanges().size(), MAX_RANGES);
        requireMax("excludeWeekdays", request.getExcludeWeekdays().size(), 7);
        requireMax("excludeDaily", request.getExcludeDaily().size(), MAX_DAILY_WINDOWS);
        ScheduleValidator.requireLength("description", request.getDescription(), MAX_DESCRIPTION_CHARS);
        ZoneId zone = zone(request.getZone());
        Set<LocalDate> dates = new TreeSet<>();
        for (String date : request.getExcludeDates()) {
            dates.add(date("excludeDates", date));
        }
        List<LocalDate[]> ranges = new ArrayList<>();
        for (DateRange range : request.getExcludeRanges()) {
            LocalDate from = date("excludeRanges", range.getFrom());
            LocalDate to = date("excludeRanges", range.getTo());
            if (to.isBefore(from)) {
                throw new InvalidRequestException("excludeRanges", "excludeRanges: to " + to + " is before from " + from);
            }
            ranges.add(new LocalDate[] {from, to});
        }
        Set<DayOfWeek> weekdays = EnumSet.noneOf(DayOfWeek.class);
        for (String day : request.getExcludeWeekdays()) {
            try {
                weekdays.add(DayOfWeek.valueOf(day));
            } catch (IllegalArgumentException | NullPointerException e) {
                throw new InvalidRequestException("excludeWeekdays", "excludeWeekdays must be MONDAY ... SUNDAY: " + Quote.of(day));
            }
        }
        List<LocalTime[]> windows = new ArrayList<>();
        for (DailyWindow window : request.getExcludeDaily()) {
            LocalTime from = time(window.getFrom());
            LocalTime to = time(window.getTo());
            if (from.equals(to)) {
                throw new InvalidRequestException("excludeDaily", "excludeDaily: a window from " + from + " to " + to
                        + " is empty or the whole day, which is ambiguous; exclude whole days with excludeWeekdays or excludeDates");
            }
            windows.add(new LocalTime[] {from, to});
        }
        return new ExclusionCalendar(name, zone, Collections.unmodifiableSet(dates), Collections.unmodifiableList(ranges),
                Collections.unmodifiableSet(weekdays), Collections.unmodifiableList(windows));
    }

    public String name() {
        return name;
    }

    public ZoneId zone() {
        return zone;
    }

    /** True when the calendar excludes all seven weekdays, i.e. every instant. */
    public boolean excludesEveryWeekday() {
        return weekdays.size() == 7;
    }

    /**
     * What excludes {@code instantMs}, in words for a SKIPPED event ({@code weekday SATURDAY in Europe/Berlin},
     * {@code date 2026-12-25 in UTC}, {@code daily window 22:00-06:00 in Europe/Berlin}), or null when it is not
     * excluded.
     */
    public String exclusion(long instantMs) {
        LocalDateTime local = LocalDateTime.ofInstant(Instant.ofEpochMilli(instantMs), zone);
        LocalDate date = local.toLocalDate();
        if (dates.contains(date)) {
            return "date " + date + " in " + zone;
        }
        for (LocalDate[] range : ranges) {
            if (!date.isBefore(range[0]) && !date.isAfter(range[1])) {
                return "range " + range[0] + " to " + range[1] + " in " + zone;
            }
        }
        if (weekdays.contains(date.getDayOfWeek())) {
            return "weekday " + date.getDayOfWeek() + " in " + zone;
        }
        LocalTime time = local.toLocalTime();
        for (LocalTime[] window : windows) {
            if (inWindow(time, window)) {
                return "daily window " + window[0] + "-" + window[1] + " in " + zone;
            }
        }
        return null;
    }

    /**
     * The first instant at or after {@code instantMs} the calendar does not exclude, if there is one by
     * {@code horizonMs}; found by jumping to the end of each exclusion met (at most {@value #MAX_JUMPS} jumps).
     */
    public OptionalLong nextAllowed(long instantMs, long horizonMs) {
        long t = instantMs;
        for (int jumps = 0; jumps < MAX_JUMPS && t <= horizonMs; jumps++) {
            long end = endOfExclusion(t);
            if (end == t) {
                return OptionalLong.of(t);
            }
            t = end;
        }
        return OptionalLong.empty();
    }

    /** The first instant after the exclusion that holds {@code instantMs}; {@code instantMs} itself when none does. */
    private long endOfExclusion(long instantMs) {
        ZonedDateTime local = Instant.ofEpochMilli(instantMs).atZone(zone);
        LocalDate date = local.toLocalDate();
        LocalDate dayAfter = null;
        if (dates.contains(date) || weekdays.contains(date.getDayOfWeek())) {
            dayAfter = date.plusDays(1);
        }
        for (LocalDate[] range : ranges) {
            if (!date.isBefore(range[0]) && !date.isAfter(range[1])) {
                LocalDate after = range[1].plusDays(1);
                dayAfter = dayAfter == null || after.isAfter(dayAfter) ? after : dayAfter;
            }
        }
        if (dayAfter != null) {
            return Math.max(instantMs + 1, startOf(dayAfter));
        }
        LocalTime time = local.toLocalTime();
        long end = instantMs;
        for (LocalTime[] window : windows) {
            if (inWindow(time, window)) {
                // The window ends today, or tomorrow when it wraps midnight and we stand in its evening part.
                LocalDate endDate = window[1].isAfter(window[0]) || time.isBefore(window[1]) ? date : date.plusDays(1);
                long windowEnd = instantOf(LocalDateTime.of(endDate, window[1]));
                end = Math.max(end, Math.max(instantMs + 1, windowEnd));
            }
        }
        return end;
    }

    /** A local time as an instant; one in a gap (clocks forward) is the first instant after the gap. */
    private long instantOf(LocalDateTime local) {
        if (zone.getRules().getValidOffsets(local).isEmpty()) {
            return zone.getRules().getTransition(local).getInstant().toEpochMilli();
        }
        return ZonedDateTime.of(local, zone).toInstant().toEpochMilli();
    }

    private long startOf(LocalDate date) {
        if (date.getYear() > 9999) {
            return ScheduleValidator.MAX_INSTANT_MS + 1;
        }
        return date.atStartOfDay(zone).toInstant().toEpochMilli();
    }

    private static boolean inWindow(LocalTime time, LocalTime[] window) {
        LocalTime from = window[0];
        LocalTime to = window[1];
        if (from.isBefore(to)) {
            return !time.isBefore(from) && time.isBefore(to);
        }
        return !time.isBefore(from) || time.isBefore(to);
    }

    private static void requireMax(String field, int size, int max) {
        if (size > max) {
            throw new InvalidRequestException(field, field + " has " + size + " entries, more than " + max);
        }
    }

    private static ZoneId zone(String zone) {
        ScheduleValidator.requireLength("zone", zone, ScheduleValidator.MAX_ZONE_CHARS);
        try {
            return ZoneId.of(zone);
        } catch (DateTimeException | NullPointerException e) {
            throw new InvalidRequestException("zone", "zone is not a known time zone id such as Europe/Berlin: " + Quote.of(zone));
        }
    }

    private static LocalDate date(String field, String text) {
        try {
            if (text == null || text.length() != 10) {
                throw new DateTimeParseException("not yyyy-MM-dd", String.valueOf(text), 0);
            }
            LocalDate date = LocalDate.parse(text);
            if (date.getYear() < 1970) {
                throw new DateTimeParseException("before 1970", text, 0);
            }
            return date;
        } catch (DateTimeParseException e) {
            throw new InvalidRequestException(field, field + " must hold ISO dates from 1970 to 9999 such as 2026-12-25: "
                    + Quote.of(text));
        }
    }

    private static LocalTime time(String text) {
        try {
            if (text == null || (text.length() != 5 && text.length() != 8)) {
                throw new DateTimeParseException("not HH:mm[:ss]", String.valueOf(text), 0);
            }
            return LocalTime.parse(text);
        } catch (DateTimeParseException e) {
            throw new InvalidRequestException("excludeDaily", "excludeDaily times must be HH:mm or HH:mm:ss such as 22:00: "
                    + Quote.of(text));
        }
    }

    /** A short summary for an ACCEPTED event: what the calendar excludes. */
    public String summary() {
        List<String> parts = new ArrayList<>();
        if (!dates.isEmpty()) {
            parts.add(dates.size() + " date(s)");
        }
        if (!ranges.isEmpty()) {
            parts.add(ranges.size() + " range(s)");
        }
        if (!weekdays.isEmpty()) {
            parts.add("weekdays " + weekdays);
        }
        if (!windows.isEmpty()) {
            List<String> w = new ArrayList<>();
            windows.forEach(window -> w.add(window[0] + "-" + window[1]));
            parts.add("daily " + String.join(", ", w));
        }
        return (parts.isEmpty() ? "nothing" : String.join("; ", parts)) + " in " + zone;
    }
}
