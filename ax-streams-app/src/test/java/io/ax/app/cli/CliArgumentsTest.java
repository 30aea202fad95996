package io.ax.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine.TypeConversionException;

/**
 * Bad arguments to any command: one line on stderr naming the problem, exit code 2, nothing sent. No broker here:
 * every case fails before a Kafka client would connect (127.0.0.1:1 listens to nothing).
 */
class CliArgumentsTest {
    private static final String NOWHERE = "127.0.0.1:1";

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "unknown option        | schedule t1 --job-type j --in 5m --colour red           | Unknown option",
            "bad duration          | schedule t1 --job-type j --in 5 minutes                 | '5' is not a duration",
            "negative duration     | schedule t1 --job-type j --in -5m                       | not a duration",
            "two triggers          | schedule t1 --job-type j --in 5m --every 30s            | mutually exclusive",
            "no trigger            | schedule t1 --job-type j                                | Missing required argument",
            "missing job type      | schedule t1 --in 5m                                     | Missing required option: '--job-type=J'",
            "bad instant           | schedule t1 --job-type j --at tomorrow                  | 'tomorrow' is not an ISO-8601 instant",
            "zone without cron     | schedule t1 --job-type j --in 5m --zone UTC             | --zone is for --cron only",
            "unknown zone          | schedule t1 --job-type j --cron '0 2 * * *' --zone Mars/Base | 'Mars/Base' is not an IANA time zone",
            "payload not JSON      | schedule t1 --job-type j --in 5m --payload {oops        | --payload': not JSON",
            "priority out of range | schedule t1 --job-type j --in 5m --priority 10          | priority must be 0-9: 10",
            "bad cron              | schedule t1 --job-type j --cron 'every day'              | cron",
            "bad if-exists         | schedule t1 --job-type j --in 5m --if-exists MAYBE      | --if-exists",
            "bad misfire           | schedule t1 --job-type j --every 1m --misfire LATER     | --misfire",
            "misfire on one-shot   | schedule t1 --job-type j --in 5m --misfire SKIP         | misfire goes with a periodic trigger",
            "max occurrences zero  | schedule t1 --job-type j --every 1m --max-occurrences 0 | maxOccurrences must be >= 1: 0",
            "end before first      | schedule t1 --job-type j --cron '0 2 * * *' --end-at 2020-01-01T00:00:00Z | is before the first occurrence",
            "jitter over interval  | schedule t1 --job-type j --every 10s --jitter 11s       | occurrenceJitterMs must be between 0 and 10000",
            "bad quartz cron       | schedule t1 --job-type j --cron '0 0 12 L * 5'          | bad cron expression",
            "bad overlap           | schedule t1 --job-type j --every 1m --overlap BESIDE    | --overlap",
            "bad after condition   | schedule t1 --job-type j --after a:MAYBE                | must be SUCCESS, FAILURE or COMPLETED",
            "after itself          | schedule t1 --job-type j --after t1                     | after: a task cannot wait for itself",
            "after delay periodic  | schedule t1 --job-type j --every 1m --after a:SUCCESS --after-delay 1s | afterDelayMs goes with a one-shot task",
            "after delay alone     | schedule t1 --job-type j --in 5m --after-delay 1s       | afterDelayMs goes with after",
            "shards zero           | schedule t1 --job-type j --in 5m --shards 0             | shards must be between 1 and 64: 0",
            "shards too many       | schedule t1 --job-type j --in 5m --shards 65            | shards must be between 1 and 64: 65",
            "bad shard failure     | schedule t1 --job-type j --in 5m --shards 2 --shard-failure SOMETIMES | --shard-failure",
            "shards with ALLOW     | schedule t1 --job-type j --every 1m --overlap ALLOW --shards 2 | does not go with overlap ALLOW",
            "overlap on one-shot   | schedule t1 --job-type j --in 5m --overlap QUEUE_ONE    | overlap goes with a periodic trigger",
            "calendar on one-shot  | schedule t1 --job-type j --in 5m --calendar c           | calendar goes with a periodic trigger",
            "calendar all days     | calendar set c --exclude-weekday MONDAY --exclude-weekday TUESDAY --exclude-weekday WEDNESDAY --exclude-weekday THURSDAY --exclude-weekday FRIDAY --exclude-weekday SATURDAY --exclude-weekday SUNDAY | excludes all seven weekdays",
            "calendar bad range    | calendar set c --exclude-range 2026-12-01               | --exclude-range takes FROM..TO",
            "calendar range back   | calendar set c --exclude-range 2026-12-31..2026-12-01   | is before from",
            "calendar bad weekday  | calendar set c --exclude-weekday FUNDAY                 | --exclude-weekday",
            "calendar bad window   | calendar set c --exclude-daily 22:00                    | --exclude-daily takes FROM-TO",
            "calendar bad date     | calendar set c --exclude-date 12/25/2026                | 12/25/2026",
            "calendar bad zone     | calendar set c --zone Mars/Base                         | Mars/Base",
            "zero start-to-close   | schedule t1 --job-type j --in 5m --start-to-close-timeout 0s | startToCloseTimeoutMs must be between 1 and",
            "bad schedule-to-start | schedule t1 --job-type j --in 5m --schedule-to-start-timeout soon | --schedule-to-start-timeout",
            "no task id            | cancel                                                  | Missing required parameter: 'TASK'",
            "pause without task    | pause                                                   | Missing required parameter: 'TASK'",
            "resume two tasks      | resume t1 t2                                            | Unmatched argument",
            "too many arguments    | trigger t1 t2                                           | Unmatched argument",
            "bad tail limit        | tail --limit 0                                          | --limit must be at least 1",
            "bad list state        | list --state DONE --http 127.0.0.1:1                    | 'DONE'",
            "status without http   | status t1                                               | No query API address",
            "workers without http  | workers                                                 | No query API address",
            "worker bad heartbeat  | worker --heartbeat soon                                 | --heartbeat",
    })
    void shouldExitWithTwoAndOneLineNamingTheProblem(String name, String args, String expected) {
        Cli.Run run = Cli.run(withBootstrap(split(args)));

        assertThat(run.exitCode()).as(run.err()).isEqualTo(CliErrors.USAGE);
        assertThat(run.err()).contains(expected);
        assertThat(run.err().strip().lines()).as("one line: %s", run.err()).hasSize(1);
        assertThat(run.out()).isEmpty();
    }

    @Test
    void shouldSayWhereTheBrokersAreMissing() {
        Cli.Run run = Cli.run("cancel", "t1");

        assertThat(run.exitCode()).isEqualTo(CliErrors.USAGE);
        assertThat(run.err()).startsWith("ax cancel: No Kafka bootstrap servers: give --bootstrap HOST:PORT");
    }

    @Test
    void shouldReadDurationsAsPeopleTypeThem() {
        assertThat(DurationConverter.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(DurationConverter.parse("30s")).isEqualTo(Duration.ofSeconds(30));
        assertThat(DurationConverter.parse("5m")).isEqualTo(Duration.ofMinutes(5));
        assertThat(DurationConverter.parse("1h30m")).isEqualTo(Duration.ofMinutes(90));
        assertThat(DurationConverter.parse("2d")).isEqualTo(Duration.ofDays(2));
        assertThat(DurationConverter.parse("PT5M")).isEqualTo(Duration.ofMinutes(5));
        assertThat(DurationConverter.parse("0s")).isEqualTo(Duration.ZERO);
        for (String bad : new String[] {"", "5", "m", "5 m", "5mm", "-5s", "PT-5M", "5s3", "1y"}) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> DurationConverter.parse(bad)).as(bad)
                    .isInstanceOf(TypeConversionException.class);
        }
    }

    @Test
    void shouldListTheOperatorCommandsInTheHelp() {
        Cli.Run run = Cli.run("--help");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("schedule", "cancel", "trigger", "pause", "resume", "replay", "tail", "dead-letters", "status",
                "list", "workers");
    }

    /** Splits on spaces, keeping 'quoted parts' together. */
    private static String[] split(String args) {
        java.util.List<String> out = new java.util.ArrayList<>();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("'([^']*)'|(\\S+)").matcher(args);
        while (m.find()) {
            out.add(m.group(1) != null ? m.group(1) : m.group(2));
        }
        return out.toArray(String[]::new);
    }

    private static String[] withBootstrap(String[] args) {
        if (args.length == 0 || args[0].equals("status") || args[0].equals("list") || args[0].equals("workers")) {
            return args;
        }
        String[] with = java.util.Arrays.copyOf(args, args.length + 2);
        with[args.length] = "--bootstrap";
        with[args.length + 1] = NOWHERE;
        return with;
    }
}
