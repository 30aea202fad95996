package io.ax.app.deploy;

import java.nio.file.Files;
import java.nio.file.Path;

/** The repository's shipped deployment files, found from wherever the test runs (Maven runs it in the module). */
final class RepositoryFiles {
    private RepositoryFiles() {
    }

    /** The repository's root: the nearest directory up from the working directory that holds {@code docker/}. */
    static Path root() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isDirectory(dir.resolve("docker")) && Files.isRegularFile(dir.resolve("pom.xml"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no repository root (a directory with docker/ and pom.xml) above "
                + Path.of("").toAbsolutePath());
    }

    static Path docker() {
        return root().resolve("docker");
    }

    /** {@code docker/prometheus/ax-alerts.yml}: the alert rules ax ships. */
    static Path alertRules() {
        return docker().resolve("prometheus").resolve("ax-alerts.yml");
    }
}
