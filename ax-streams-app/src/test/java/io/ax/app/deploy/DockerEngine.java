package io.ax.app.deploy;

import org.testcontainers.DockerClientFactory;

/**
 * Whether Testcontainers finds a Docker engine, for {@code @EnabledIf}. A class of its own, so that evaluating the
 * condition does not initialise the test class (whose static container is made for an engine).
 */
final class DockerEngine {
    /** The skip reason, said plainly: where ax is developed and tested there is no engine, so such a test never ran. */
    static final String ABSENT = "no Docker engine here: the machines ax is developed on and its CI have none, so this"
            + " test has never run there; it runs wherever Testcontainers finds a Docker engine";

    private DockerEngine() {
    }

    static boolean available() {
        return DockerClientFactory.instance().isDockerAvailable();
    }
}
