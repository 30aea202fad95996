package io.ax.app.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.CompletableFuture;
import picocli.CommandLine;

/** Runs {@code ax ARGS} in this JVM as {@code ./ax} would (the same command line and error handling), output captured. */
public final class Cli {
    /** What a run printed and how it ended. */
    public record Run(int exitCode, String out, String err) {
    }

    private Cli() {
    }

    /** A command running in the background (a tail): its output so far, and its exit code once it ends. */
    public static final class Background {
        private final CommandLine ax;
        private final StringWriter out = new StringWriter();
        private final StringWriter err = new StringWriter();
        private final CompletableFuture<Integer> exitCode = new CompletableFuture<>();

        private Background(String... args) {
            ax = AxMain.commandLine();
            ax.setOut(new PrintWriter(out, true));
            ax.setErr(new PrintWriter(err, true));
            Thread thread = new Thread(() -> exitCode.complete(ax.execute(args)), "cli-" + args[0]);
            thread.setDaemon(true);
            thread.start();
        }

        public String out() {
            return out.toString();
        }

        public String err() {
            return err.toString();
        }

        public CompletableFuture<Integer> exitCode() {
            return exitCode;
        }

        /** Stops a running {@code ax tail} as Ctrl-C would. */
        public int stop() throws Exception {
            ((TailCommand) ax.getSubcommands().get("tail").getCommand()).stop();
            return exitCode.get(10, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    public static Background start(String... args) {
        return new Background(args);
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
