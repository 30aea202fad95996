package io.ax.app;

import io.ax.app.cli.BenchCommand;
import io.ax.app.cli.BrokerCommand;
import io.ax.codec.AvroTrust;
import io.ax.app.cli.DemoCommand;
import io.ax.app.cli.ReplayCommand;
import io.ax.app.cli.RunCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code ax} launcher: {@code ax demo}, {@code ax broker}, {@code ax run}, {@code ax replay}, {@code ax bench}. */
@Command(name = "ax", mixinStandardHelpOptions = true, version = "ax 0.1.0",
        description = "A Kafka-native distributed task scheduler.",
        subcommands = {DemoCommand.class, BrokerCommand.class, RunCommand.class, ReplayCommand.class, BenchCommand.class,
                CommandLine.HelpCommand.class})
public final class AxMain {
    static {
        AvroTrust.ensureAxSchemasTrusted();
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new AxMain()).execute(args));
    }
}
