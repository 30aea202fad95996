package io.ax.app.deploy;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A command-line tool these tests run (promtool, docker-compose, a Dockerfile linter): found on the {@code PATH} or
 * not, and run to completion with a deadline. A test whose tool is missing is skipped with the reason (a JUnit
 * assumption), never passed silently: {@code .ci/run} installs the tools, a developer's machine may lack them.
 */
record ExternalTool(String name, Path executable) {

    /** The tool on the {@code PATH}, if there is one. */
    static Optional<ExternalTool> find(String name) {
        String path = System.getenv().getOrDefault("PATH", "");
        for (String dir : path.split(File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(dir, name);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(new ExternalTool(name, candidate));
            }
        }
        return Optional.empty();
    }

    /** The tool, or the current test skipped with {@code why} (what installs it). */
    static ExternalTool require(String name, String why) {
        Optional<ExternalTool> tool = find(name);
        assumeTrue(tool.isPresent(), () -> name + " is not on the PATH: " + why);
        return tool.get();
    }

    /** What one run of the tool did: its exit code and its stdout and stderr, merged. */
    record Run(List<String> command, int exitCode, String output) {
        @Override
        public String toString() {
            return String.join(" ", command) + " exited " + exitCode + ":\n" + output;
        }
    }

    /** Runs the tool with these arguments in {@code dir}; kills it and throws when it outlives {@code timeout}. */
    Run run(Path dir, Duration timeout, Map<String, String> environment, String... args) {
        List<String> command = new ArrayList<>();
        command.add(executable.toString());
        command.addAll(List.of(args));
        try {
            Path output = Files.createTempFile(name + "-", ".out");
            try {
                ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                        .redirectOutput(output.toFile());
                builder.environment().putAll(environment);
                Process process = builder.start();
                if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                    throw new AssertionError(String.join(" ", command) + " did not finish within " + timeout + ":\n"
                            + Files.readString(output, StandardCharsets.UTF_8));
                }
                return new Run(command, process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
            } finally {
                Files.deleteIfExists(output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while running " + command, e);
        }
    }

    Run run(Path dir, Duration timeout, String... args) {
        return run(dir, timeout, Map.of(), args);
    }
}
