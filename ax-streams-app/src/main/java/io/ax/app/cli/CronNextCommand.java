package io.ax.app.cli;

import io.ax.InvalidRequestException;
import io.ax.app.internal.core.Occurrences;
import io.ax.trigger.CronSchedule;
import io.ax.validation.ScheduleValidator;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code ax cron-next}: the next fire times of a cron expression, computed by the scheduler's own code (the path a cron
 * task's occurrences take, daylight-saving rules included), so an expression can be checked before it is scheduled.
 * Needs no broker.
 */
@Command(name = "cron-next", mixinStandardHelpOptions = true,
        description = {"Print the next fire instants of a cron expression, one per line, ISO-8601 with the zone's offset,"
                + " as the scheduler would fire them. Unix: 5 fields (minute hour day-of-month month day-of-week);"
                + " Quartz: 6 or 7 fields (second minute hour day-of-month month day-of-week [year], with L, W, # and ?).",
                "Daylight saving: a local time that does not exist fires once at the first instant after the gap; one"
                        + " that happens twice fires once, at the first. A task's occurrenceJitterMs is not applied."})
public final class CronNextCommand implements Callable<Integer> {
    /** Most instants one call prints. */
    static final int MAX_COUNT = 1000;

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "EXPR", description = "The cron expression, quoted (e.g. \"0 2 * * *\").")
    String expression;

    @Option(names = "--zone", paramLabel = "Z", defaultValue = "UTC", description = "IANA time zone (default: UTC).")
    String zone;

    @Option(names = "--from", paramLabel = "INSTANT", converter = InstantConverter.class,
            description = "Count from this ISO-8601 instant, exclusive (default: now).")
    Instant from;

    @Option(names = "--count", paramLabel = "N", defaultValue = "5", description = "How many (1-" + MAX_COUNT + ", default 5).")
    int count;

    /** Where "now" comes from when --from is not given. // visible for testing */
    Clock clock = Clock.systemUTC();

    @Override
    public Integer call() {
        if (count < 1 || count > MAX_COUNT) {
            throw new ParameterException(spec.commandLine(), "--count must be between 1 and " + MAX_COUNT + ": " + count);
        }
        long fromMs = (from != null ? from : clock.instant()).toEpochMilli();
        List<Long> times;
        ZoneId zoneId;
        try {
            ScheduleValidator.requireLength("cron", expression, ScheduleValidator.MAX_CRON_CHARS);
            ScheduleValidator.requireLength("zone", zone, ScheduleValidator.MAX_ZONE_CHARS);
            zoneId = CronSchedule.zone(zone);
            times = Occurrences.nextCronTimes(expression, zone, fromMs, count);
        } catch (InvalidRequestException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        if (times.isEmpty()) {
            throw new CommandFailedException("\"" + expression + "\" has no occurrence after " + Instant.ofEpochMilli(fromMs));
        }
        PrintWriter out = spec.commandLine().getOut();
        for (long t : times) {
            out.println(DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(OffsetDateTime.ofInstant(Instant.ofEpochMilli(t), zoneId)));
        }
        out.flush();
        return CliErrors.OK;
    }
}
