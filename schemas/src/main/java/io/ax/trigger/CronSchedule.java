package io.ax.trigger;

import com.cronutils.model.Cron;
import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import io.ax.InvalidRequestException;
import io.ax.validation.Quote;
import io.ax.validation.ScheduleValidator;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A cron expression read in a time zone, parsed by cron-utils: Unix (5 fields: minute hour day-of-month month
 * day-of-week, day-of-week 0-7 with 0 and 7 = Sunday) or Quartz (6 or 7 fields: second minute hour day-of-month month
 * day-of-week [year], with {@code L}, {@code W}, {@code #} and {@code ?}; day-of-week 1-7 = SUN-SAT), told apart by
 * the number of fields. Immutable and thread-safe.
 *
 * <h2>Daylight saving</h2>
 * The expression is matched against the zone's local date and time (wall clock); each matching local time is then
 * placed on the time line:
 * <ul>
 *   <li>a local time that does not exist (it falls in a gap when clocks move forward) fires once, at the first
 *       instant after the gap (the transition itself, e.g. 03:00 EDT for a 02:30 job in New York on the spring-forward
 *       day; 02:30 LHDT for 02:15 on Lord Howe, whose clocks move 30 minutes). Several local times in one gap, and a
 *       regular occurrence at the gap's end, are one fire.</li>
 *   <li>a local time that happens twice (clocks move back) fires once, at the first of the two instants (the earlier
 *       offset): in the repeated hour nothing fires a second time.</li>
 * </ul>
 * cron-utils 9.2.1 on its own differs: it drops an occurrence that falls in a gap (the 02:30 job does not run that
 * day), and an expression that matches several times within the repeated hour (e.g. every 30 minutes) fires in both
 * passes of it. To get the rules above, the expression is evaluated by cron-utils in UTC, where no local time is
 * missing or repeated, and the local times it yields are placed in the zone here ({@link #place}).
 */
public final class CronSchedule {
    private static final CronParser UNIX = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));
    private static final CronParser QUARTZ = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.QUARTZ));
    /**
     * Candidates examined by one {@link #nextAfter} at most (candidates are only passed over inside a repeated or
     * missing stretch, and those are skipped in one jump): beyond it the expression counts as having no next occurrence.
     */
    private static final int MAX_CANDIDATES = 10_000;

    private final ExecutionTime executionTime;
    private final ZoneId zone;
    private final ZoneRules rules;
    private final String expression;

    private CronSchedule(String expression, ExecutionTime executionTime, ZoneId zone) {
        this.expression = expression;
        this.executionTime = executionTime;
        this.zone = zone;
        this.rules = zone.getRules();
    }

    /** @throws InvalidRequestException naming the bad expression or zone */
    public static CronSchedule parse(String expression, String zoneId) {
        ZoneId zone = zone(zoneId);
        if (expression == null || expression.isBlank()) {
            throw new InvalidRequestException("cron", "missing cron expression");
        }
        int fields = expression.strip().split("\\s+").length;
        CronParser parser;
        if (fields == 5) {
            parser = UNIX;
        } else if (fields == 6 || fields == 7) {
            parser = QUARTZ;
        } else {
            throw new InvalidRequestException("cron", "bad cron expression " + Quote.of(expression) + ": it has " + fields
                    + " fields; give 5 (Unix: minute hour day-of-month month day-of-week) or 6-7 (Quartz: second minute"
                    + " hour day-of-month month day-of-week [year])");
        }
        Cron cron;
        try {
            cron = parser.parse(expression.strip());
        } catch (RuntimeException e) { // cron-utils signals most errors with IllegalArgumentException, not all
            throw new InvalidRequestException("cron", "bad cron expression " + Quote.of(expression) + ": "
                    + Quote.truncate(e.getMessage(), 300), e);
        }
        return new CronSchedule(expression, ExecutionTime.forCron(cron), zone);
    }

    /** @throws InvalidRequestException when {@code zoneId} is not a time zone id */
    public static ZoneId zone(String zoneId) {
        if (zoneId == null || zoneId.isBlank()) {
            throw new InvalidRequestException("zone", "missing time zone (use an IANA id such as Asia/Shanghai, or UTC)");
        }
        try {
            return ZoneId.of(zoneId);
        } catch (DateTimeException e) {
            throw new InvalidRequestException("zone", "unknown time zone " + Quote.of(zoneId) + " (use an IANA id such as Asia/Shanghai)", e);
        }
    }

    public ZoneId zone() {
        return zone;
    }

    public String expression() {
        return expression;
    }

    /**
     * The first occurrence strictly after {@code afterMs}, epoch milliseconds, or empty if there is none (before
     * {@link ScheduleValidator#MAX_INSTANT_MS}).
     */
    public OptionalLong nextAfter(long afterMs) {
        Instant after = Instant.ofEpochMilli(afterMs);
        // Every local time at or before the local time of `after` is placed at or before `after` (see place), so the
        // search starts there.
        // (Whole seconds: cron-utils keeps the fraction of the time it is given, and cron's finest unit is the second.)
        LocalDateTime from = LocalDateTime.ofInstant(after, zone).truncatedTo(ChronoUnit.SECONDS);
        try {
            for (int i = 0; i < MAX_CANDIDATES; i++) {
                Optional<ZonedDateTime> candidate = executionTime.nextExecution(from.atZone(ZoneOffset.UTC));
                if (candidate.isEmpty() || !candidate.get().toLocalDateTime().isAfter(from)) {
                    return OptionalLong.empty();
                }
                LocalDateTime local = candidate.get().toLocalDateTime().truncatedTo(ChronoUnit.SECONDS);
                Instant placed = place(local);
                long placedMs = placed.toEpochMilli();
                if (placedMs > ScheduleValidator.MAX_INSTANT_MS) {
                    return OptionalLong.empty();
                }
                if (placedMs > afterMs) {
                    return OptionalLong.of(placedMs);
                }
                from = skipPast(local);
            }
        } catch (RuntimeException e) { // an expression cron-utils parses but cannot step through: no next occurrence
            return OptionalLong.empty();
        }
        return OptionalLong.empty();
    }

    /**
     * Where a local time falls on the time line: its only instant; the earlier of two (an overlap); or, for a time
     * in a gap, the first instant after the gap.
     */
    Instant place(LocalDateTime local) {
        List<ZoneOffset> offsets = rules.getValidOffsets(local);
        if (offsets.isEmpty()) {
            return rules.getTransition(local).getInstant();
        }
        // Two offsets: the earlier instant is the one with the larger offset (the summer offset, before clocks go back).
        ZoneOffset offset = offsets.size() == 1 || offsets.get(0).getTotalSeconds() > offsets.get(1).getTotalSeconds()
                ? offsets.get(0) : offsets.get(1);
        return local.toInstant(offset);
    }

    /**
     * Where to look after a candidate placed at or before the instant searched from: past the end of the gap or
     * overlap it fell in (every local time left in it is placed at or before that instant too), or just past it.
     */
    private LocalDateTime skipPast(LocalDateTime local) {
        ZoneOffsetTransition transition = rules.getTransition(local);
        if (transition == null) {
            return local;
        }
        // A gap [before, after) or an overlap [after, before) in local time: continue from its later end, less a
        // second (cron's finest unit), so a match exactly at the end is still found.
        LocalDateTime end = transition.isGap() ? transition.getDateTimeAfter() : transition.getDateTimeBefore();
        LocalDateTime resume = end.minusSeconds(1);
        return resume.isAfter(local) ? resume : local;
    }
}
