package io.ax.app;

import io.ax.app.cli.BrokerCommand;
import io.ax.codec.AvroTrust;
import io.ax.app.cli.DemoCommand;
import io.ax.app.cli.MigrateCommand;
import io.ax.app.cli.ReplayCommand;
import io.ax.app.cli.RunCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code ax} launcher: {@code ax demo}, {@code ax broker}, {@code ax run}, {@code ax replay}, {@code ax migrate}. {@code ax bench} is
 * not here: the benchmark harness is its own module ({@code ax-bench}, main class {@code io.ax.app.bench.BenchCommand})
 * so that the scheduler jar does not ship it, and the {@code ./ax} script runs that jar for {@code bench}.
 */
@Command(name = "ax", mixinStandardHelpOptions = true, version = "ax 0.1.0",
        description = "A Kafka-native distributed task scheduler.",
        subcommands = {DemoCommand.class, BrokerCommand.class, RunCommand.class, ReplayCommand.class, MigrateCommand.class,
                CommandLine.HelpCommand.class},
        footer = {"", "Benchmarks: ./ax bench SCENARIO (the ax-bench module; ./ax bench --help, BENCHMARKS.md)."})
public final class AxMain {
    static {
        AvroTrust.ensureAxSchemasTrusted();
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new AxMain()).execute(args));
    }
}
