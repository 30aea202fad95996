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
import java.time.ZoneId;
import java.util.OptionalLong;

/**
 * A Unix cron expression (5 fields: minute hour day-of-month month day-of-week) read in a time zone,
 * parsed by cron-utils. Daylight-saving gaps and overlaps follow cron-utils: a local time that does not
 * exist is skipped, one that occurs twice fires once.
 */
public final class CronSchedule {
    private static final CronParser PARSER = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));

    private final ExecutionTime executionTime;
    private final ZoneId zone;

    private CronSchedule(ExecutionTime executionTime, ZoneId zone) {
        this.executionTime = executionTime;
        this.zone = zone;
    }

    /** @throws InvalidRequestException naming the bad expression or zone */
    public static CronSchedule parse(String expression, String zoneId) {
        ZoneId zone;
        try {
            zone = ZoneId.of(zoneId);
        } catch (DateTimeException e) {
            throw new InvalidRequestException("zone", "unknown time zone " + Quote.of(zoneId) + " (use an IANA id such as Asia/Shanghai)", e);
        }
        Cron cron;
        try {
            cron = PARSER.parse(expression);
        } catch (RuntimeException e) { // cron-utils signals most errors with IllegalArgumentException, not all
            throw new InvalidRequestException("cron", "bad cron expression " + Quote.of(expression) + ": " + Quote.truncate(e.getMessage(), 300), e);
        }
        return new CronSchedule(ExecutionTime.forCron(cron), zone);
    }

    /** The first occurrence strictly after {@code afterMs}, epoch milliseconds, or empty if there is none. */
    public OptionalLong nextAfter(long afterMs) {
        try {
            return executionTime.nextExecution(Instant.ofEpochMilli(afterMs).atZone(zone))
                    .map(next -> OptionalLong.of(next.toInstant().toEpochMilli()))
                    .filter(next -> next.getAsLong() > afterMs && next.getAsLong() <= ScheduleValidator.MAX_INSTANT_MS)
                    .orElse(OptionalLong.empty());
        } catch (RuntimeException e) { // an expression cron-utils parses but cannot step through: no next occurrence
            return OptionalLong.empty();
        }
    }
}
