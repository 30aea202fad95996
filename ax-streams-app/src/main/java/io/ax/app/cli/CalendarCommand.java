package io.ax.app.cli;

import io.ax.AxTopics;
import io.ax.client.AxClient;
import io.ax.client.CalendarBuilder;
import java.io.PrintWriter;
import java.time.DayOfWeek;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.producer.RecordMetadata;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code ax calendar set|delete|show}: named exclusion calendars that periodic tasks name with --calendar. */
@Command(name = "calendar", mixinStandardHelpOptions = true,
        description = "Exclusion calendars: an occurrence of a periodic task naming one (ax schedule --calendar NAME) whose"
                + " nominal time it excludes is SKIPPED. A change applies to the next occurrences of every task naming it.",
        subcommands = {CalendarCommand.Set.class, CalendarCommand.Delete.class, CalendarCommand.Show.class})
public final class CalendarCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        throw new CommandLine.ParameterException(spec.commandLine(), "give a subcommand: set, delete or show");
    }

    /** {@code ax calendar set NAME ...}: create or replace a calendar whole. */
    @Command(name = "set", mixinStandardHelpOptions = true,
            description = "Create or replace the calendar NAME (checked before sending, as the scheduler checks it). The"
                    + " outcome appears on the state topic: {\"calendar\":NAME,\"to\":\"ACCEPTED\",...}, or REJECTED with the reason.")
    static final class Set implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Parameters(index = "0", paramLabel = "NAME", description = "The calendar's name (like a taskId).")
        String name;

        @Option(names = "--zone", paramLabel = "ZONE", description = "Time zone the dates, weekdays and windows are read in (default UTC).")
        String zone;

        @Option(names = "--exclude-date", paramLabel = "DATE", description = "A local date excluded all day, e.g. 2026-12-25 (repeatable).")
        List<String> dates = new ArrayList<>();

        @Option(names = "--exclude-range", paramLabel = "FROM..TO", description = "Local dates excluded all day, both ends included,"
                + " e.g. 2026-12-24..2026-12-31 (repeatable).")
        List<String> ranges = new ArrayList<>();

        @Option(names = "--exclude-weekday", paramLabel = "DAY", description = "A day of the week excluded all day, e.g. SATURDAY (repeatable).")
        List<DayOfWeek> weekdays = new ArrayList<>();

        @Option(names = "--exclude-daily", paramLabel = "FROM-TO", description = "Local time excluded every day, from included, to"
                + " excluded, e.g. 22:00-06:00 (wraps midnight) (repeatable).")
        List<String> windows = new ArrayList<>();

        @Option(names = "--description", paramLabel = "TEXT", description = "Free text kept with the calendar.")
        String description;

        @Option(names = "--json", description = "Print what Kafka acknowledged as one JSON object.")
        boolean json;

        @Mixin
        ConnectionOptions connection;

        @Mixin
        TopicOptions topicOptions;

        @Override
        public Integer call() throws Exception {
            Map<String, String> settings = connection.settings(System.getenv());
            AxTopics topics = topicOptions.topics(settings);
            try (AxClient client = OperatorClients.client(settings, topics, "ax-calendar")) {
                CalendarBuilder calendar = client.calendar(name).description(description);
                try {
                    if (zone != null) {
                        calendar.zone(ZoneId.of(zone));
                    }
                    dates.forEach(date -> calendar.excludeDates(LocalDate.parse(date)));
                    for (String range : ranges) {
                        String[] ends = split(range, "..", "--exclude-range", "2026-12-24..2026-12-31");
                        calendar.excludeRange(LocalDate.parse(ends[0]), LocalDate.parse(ends[1]));
                    }
                    calendar.excludeWeekdays(weekdays.toArray(DayOfWeek[]::new));
                    for (String window : windows) {
                        String[] ends = split(window, "-", "--exclude-daily", "22:00-06:00");
                        calendar.excludeDaily(LocalTime.parse(ends[0]), LocalTime.parse(ends[1]));
                    }
                } catch (java.time.DateTimeException e) {
                    throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
                }
                RecordMetadata sent = calendar.set().get();
                Acknowledged.print(spec.commandLine().getOut(), json, "calendar set", name, sent, topics.state());
            }
            return CliErrors.OK;
        }

        private String[] split(String value, String separator, String option, String example) {
            int at = value.indexOf(separator);
            if (at <= 0 || at + separator.length() >= value.length()) {
                throw new CommandLine.ParameterException(spec.commandLine(), option + " takes FROM" + separator + "TO, e.g. "
                        + example + ": " + value);
            }
            return new String[] {value.substring(0, at), value.substring(at + separator.length())};
        }
    }

    /** {@code ax calendar delete NAME}. */
    @Command(name = "delete", mixinStandardHelpOptions = true,
            description = "Delete the calendar NAME: tasks naming it run unexcluded from their next occurrence on. The outcome"
                    + " appears on the state topic: ACCEPTED, or IGNORED when there is no such calendar.")
    static final class Delete implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Parameters(index = "0", paramLabel = "NAME", description = "The calendar's name.")
        String name;

        @Option(names = "--json", description = "Print what Kafka acknowledged as one JSON object.")
        boolean json;

        @Mixin
        ConnectionOptions connection;

        @Mixin
        TopicOptions topicOptions;

        @Override
        public Integer call() throws Exception {
            Map<String, String> settings = connection.settings(System.getenv());
            AxTopics topics = topicOptions.topics(settings);
            try (AxClient client = OperatorClients.client(settings, topics, "ax-calendar")) {
                RecordMetadata sent = client.deleteCalendar(name).get();
                Acknowledged.print(spec.commandLine().getOut(), json, "calendar delete", name, sent, topics.state());
            }
            return CliErrors.OK;
        }
    }

    /** {@code ax calendar show NAME}: as a scheduler instance applies it (its HTTP query API). */
    @Command(name = "show", mixinStandardHelpOptions = true,
            description = "Show the calendar NAME as a scheduler instance applies it, one JSON object (GET /calendars/{name}"
                    + " of its HTTP query API). Exit code 1 when there is no such calendar.")
    static final class Show implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Parameters(index = "0", paramLabel = "NAME", description = "The calendar's name.")
        String name;

        @Mixin
        HttpOptions http;

        @Override
        public Integer call() {
            QueryApi.Answer answer = http.api(System.getenv()).calendar(name);
            PrintWriter out = spec.commandLine().getOut();
            out.println(answer.body());
            out.flush();
            return CliErrors.OK;
        }
    }
}
