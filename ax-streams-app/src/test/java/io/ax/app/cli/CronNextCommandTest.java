package io.ax.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code ax cron-next} run in-process as {@code ./ax} runs it: no broker involved. */
class CronNextCommandTest {

    @Test
    void shouldPrintTheNextInstantsWithTheZonesOffsetAcrossASpringForwardGap() {
        Cli.Run run = Cli.run("cron-next", "30 2 * * *", "--zone", "America/New_York", "--from", "2027-03-12T12:00:00Z",
                "--count", "4");

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.err()).isEmpty();
        assertThat(run.out().lines()).containsExactly("2027-03-13T02:30:00-05:00", "2027-03-14T03:00:00-04:00",
                "2027-03-15T02:30:00-04:00", "2027-03-16T02:30:00-04:00");
    }

    @Test
    void shouldFireTheRepeatedHourOnceAndReadQuartzExpressions() {
        assertThat(Cli.run("cron-next", "*/30 * * * *", "--zone", "America/New_York", "--from", "2027-11-07T04:40:00Z",
                "--count", "4").out().lines())
                .containsExactly("2027-11-07T01:00:00-04:00", "2027-11-07T01:30:00-04:00", "2027-11-07T02:00:00-05:00",
                        "2027-11-07T02:30:00-05:00");
        assertThat(Cli.run("cron-next", "0 0 12 ? * 6#3", "--from", "2026-12-01T00:00:00Z", "--count", "2").out().lines())
                .as("third Friday at noon, UTC by default").containsExactly("2026-12-18T12:00:00Z", "2027-01-15T12:00:00Z");
    }

    @Test
    void shouldPrintFiveByDefault() {
        Cli.Run run = Cli.run("cron-next", "0 * * * *", "--from", "2026-12-01T00:30:00+01:00");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out().lines()).hasSize(5).first().isEqualTo("2026-12-01T00:00:00Z");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "bad expression  | 61 * * * *   | UTC          | 1  | bad cron expression \"61 * * * *\"",
            "field count     | every day    | UTC          | 1  | it has 2 fields",
            "unknown zone    | 0 2 * * *    | Mars/Base    | 1  | unknown time zone \"Mars/Base\"",
            "count too large | 0 2 * * *    | UTC          | 0  | --count must be between 1 and 1000: 0",
    })
    void shouldExitWithTwoAndOneLineNamingTheProblem(String name, String expression, String zone, String count, String message) {
        Cli.Run run = Cli.run("cron-next", expression, "--zone", zone, "--count", count);

        assertThat(run.exitCode()).as(run.err()).isEqualTo(CliErrors.USAGE);
        assertThat(run.err()).startsWith("ax cron-next: ").contains(message);
        assertThat(run.err().strip().lines()).hasSize(1);
        assertThat(run.out()).isEmpty();
    }

    @Test
    void shouldSayWhenAnExpressionHasNoOccurrenceLeft() {
        Cli.Run run = Cli.run("cron-next", "0 0 12 * * ? 2020", "--from", "2026-12-01T00:00:00Z");

        assertThat(run.exitCode()).isEqualTo(CliErrors.FAILED);
        assertThat(run.err().strip()).isEqualTo("ax cron-next: \"0 0 12 * * ? 2020\" has no occurrence after 2026-12-01T00:00:00Z");
    }
}
