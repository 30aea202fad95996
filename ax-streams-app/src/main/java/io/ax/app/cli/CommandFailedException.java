package io.ax.app.cli;

/**
 * A command could not do its work for a reason outside the arguments (Kafka or the scheduler's HTTP API refused or
 * could not be reached, a task was not found): {@link CliErrors} prints the message as one line and exits with
 * {@link #exitCode()}, 1 unless the cause is the arguments (2).
 */
final class CommandFailedException extends RuntimeException {
    private final int exitCode;

    CommandFailedException(String message) {
        this(message, CliErrors.FAILED);
    }

    CommandFailedException(String message, int exitCode) {
        super(message);
        this.exitCode = exitCode;
    }

    int exitCode() {
        return exitCode;
    }
}
