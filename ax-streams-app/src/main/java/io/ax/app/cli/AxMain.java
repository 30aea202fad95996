package io.ax.app.cli;

import io.ax.codec.AvroTrust;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code ax} launcher: {@code ax demo}, {@code ax broker}, {@code ax run}, {@code ax migrate}, and the operator
 * commands {@code schedule}, {@code cancel}, {@code trigger}, {@code pause}, {@code resume}, {@code replay}, {@code tail}, {@code dead-letters},
 * {@code status}, {@code list}, {@code workers}, and {@code cron-next} (no broker needed). {@code ax bench} is not here: the benchmark harness is its own module ({@code ax-bench},
 * main class {@code io.ax.app.bench.BenchCommand}) so that the scheduler jar does not ship it, and the {@code ./ax}
 * script runs that jar for {@code bench}.
 *
 * <p>Exit codes of every command ({@link CliErrors}): 0 done, 1 the work failed (the reason on one line of stderr),
 * 2 bad arguments (one line of stderr).
 */
@Command(name = "ax", mixinStandardHelpOptions = true, version = "ax 0.1.0",
        description = "A Kafka-native distributed task scheduler.",
        subcommands = {DemoCommand.class, BrokerCommand.class, RunCommand.class, ScheduleCommand.class, CancelCommand.class,
                TriggerCommand.class, PauseCommand.class, ResumeCommand.class, CalendarCommand.class, ReplayCommand.class, TailCommand.class, DeadLettersCommand.class, StatusCommand.class,
                ListCommand.class, MigrateCommand.class, WorkerCommand.class, WorkersCommand.class, CronNextCommand.class, LimitsCommand.class,
                CommandLine.HelpCommand.class},
        footer = {"", "Exit codes: 0 done, 1 failed (the reason is printed), 2 bad arguments.",
                "Benchmarks: ./ax bench SCENARIO (the ax-bench module; ./ax bench --help, BENCHMARKS.md)."})
public final class AxMain {
    static {
        AvroTrust.ensureAxSchemasTrusted();
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The launcher's command line, with its error handling (exit codes 1 and 2, one line each) and enum parsing. */
    public static CommandLine commandLine() {
        return CliErrors.install(new CommandLine(new AxMain()).setCaseInsensitiveEnumValuesAllowed(true));
    }
}
