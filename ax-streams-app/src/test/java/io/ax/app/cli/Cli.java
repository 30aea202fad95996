package io.ax.app.cli;

import io.ax.app.AxMain;
import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** Runs {@code ax ARGS} in this JVM as {@code ./ax} would (the same command line and error handling), output captured. */
public final class Cli {
    /** What a run printed and how it ended. */
    public record Run(int exitCode, String out, String err) {
    }

    private Cli() {
    }

    public static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine ax = AxMain.commandLine();
        ax.setOut(new PrintWriter(out, true));
        ax.setErr(new PrintWriter(err, true));
        int exitCode = ax.execute(args);
        return new Run(exitCode, out.toString(), err.toString());
    }
}
