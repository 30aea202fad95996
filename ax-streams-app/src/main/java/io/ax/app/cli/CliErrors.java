package io.ax.app.cli;

import io.ax.InvalidRequestException;
import java.io.PrintWriter;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.KafkaException;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * How every {@code ax} command fails, so scripts can tell why from the exit code alone:
 * <ul>
 *   <li>{@value #USAGE}: bad arguments (unknown option, bad duration, two triggers, missing job type, a value the
 *       client's validation refuses): one line on stderr naming the problem and where the help is;</li>
 *   <li>{@value #FAILED}: the work failed (Kafka or the scheduler's HTTP API refused or was unreachable, a task was
 *       not found): one line on stderr with the reason. An unexpected exception (a bug) also prints its stack trace.</li>
 * </ul>
 */
public final class CliErrors {
    /** Exit code of a command that did its work. */
    public static final int OK = 0;
    /** Exit code of a command whose work failed. */
    public static final int FAILED = 1;
    /** Exit code of a command given bad arguments. */
    public static final int USAGE = 2;

    private CliErrors() {
    }

    /** Installs both handlers on {@code commandLine} (they apply to its subcommands too). */
    public static CommandLine install(CommandLine commandLine) {
        return commandLine.setParameterExceptionHandler(new OneLine()).setExecutionExceptionHandler(new Failure());
    }

    private static String name(CommandLine command) {
        return command.getCommandSpec().qualifiedName();
    }

    /** Bad arguments: one line, exit 2. */
    private static final class OneLine implements IParameterExceptionHandler {
        @Override
        public int handleParseException(ParameterException e, String[] args) {
            CommandLine command = e.getCommandLine();
            PrintWriter err = command.getErr();
            String message = String.valueOf(e.getMessage());
            if (message.startsWith("Error: ")) { // picocli's wording for some messages; the command's name says it
                message = message.substring("Error: ".length());
            }
            err.println(name(command) + ": " + message + " (see: " + name(command) + " --help)");
            err.flush();
            return USAGE;
        }
    }

    /** The work failed: one line with the reason, exit 1 (2 when the client's validation refused an argument). */
    private static final class Failure implements IExecutionExceptionHandler {
        @Override
        public int handleExecutionException(Exception e, CommandLine command, ParseResult parseResult) {
            PrintWriter err = command.getErr();
            Throwable cause = unwrap(e);
            int exitCode = FAILED;
            String message;
            if (cause instanceof CommandFailedException failed) {
                message = failed.getMessage();
                exitCode = failed.exitCode();
            } else if (cause instanceof InvalidRequestException invalid) {
                message = invalid.getMessage();
                exitCode = USAGE;
            } else if (cause instanceof KafkaException kafka) {
                message = "Kafka: " + describe(kafka);
            } else if (cause instanceof java.io.IOException io) {
                message = describe(io);
            } else {
                message = "failed: " + describe(cause);
                cause.printStackTrace(err);
            }
            err.println(name(command) + ": " + message);
            err.flush();
            return exitCode;
        }

        private static Throwable unwrap(Throwable e) {
            Throwable cause = e;
            while ((cause instanceof ExecutionException || cause instanceof CompletionException) && cause.getCause() != null) {
                cause = cause.getCause();
            }
            return cause;
        }

        private static String describe(Throwable e) {
            String message = e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
            Throwable root = e.getCause();
            if (root != null && root.getMessage() != null && !message.contains(root.getMessage())) {
                message += ": " + root.getMessage();
            }
            return message;
        }
    }
}
