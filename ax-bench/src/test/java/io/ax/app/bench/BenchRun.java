package io.ax.app.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/** Runs {@code ax bench} in this JVM as the jar's main does, for the tests that drive whole scenarios. */
final class BenchRun {
    static {
        // SLF4J initialized once, here, before two runs start together (BenchSmokeIT): while it initializes, other threads
        // get substitute loggers, which the bench's log settings cannot adjust.
        org.slf4j.LoggerFactory.getILoggerFactory();
    }

    private BenchRun() {
    }

    /**
     * Runs {@code ax bench <args>}, echoes what it printed, asserts exit code 0 and returns its RESULT lines, parsed.
     * Progress goes to stderr.
     */
    static List<Map<String, String>> results(String... args) {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        int exitCode;
        try (PrintStream capture = new PrintStream(captured, true, StandardCharsets.UTF_8)) {
            exitCode = BenchCommand.execute(capture, args); // its own stream: BenchSmokeIT runs two at a time
        }
        String output = captured.toString(StandardCharsets.UTF_8);
        System.out.print(output);
        assertThat(exitCode).as("exit code of ax bench %s; output:%n%s", String.join(" ", args), output).isZero();
        return output.lines().filter(l -> l.startsWith(ResultLine.PREFIX + " ")).map(ResultLine::parse).toList();
    }
}
