package io.ax.app.internal.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The committed {@code topology-docs/} must match the code. On a mismatch the fresh version is written to
 * {@code ax-streams-app/target/topology-docs/}: review it and copy it over.
 */
class TopologyDocsTest {
    private static final Path COMMITTED = Path.of("..", "topology-docs");
    private static final Path FRESH = Path.of("target", "topology-docs");

    @ParameterizedTest
    @ValueSource(strings = {"topology.txt", "CONFIG.md", "STATE-MACHINE.md", "LIMITS.md"})
    void shouldMatchTheCommittedDocs(String file) throws IOException {
        String fresh = switch (file) {
            case "topology.txt" -> Docs.topology();
            case "CONFIG.md" -> Docs.config();
            case "LIMITS.md" -> Docs.limits();
            default -> Docs.stateMachine();
        };
        Files.createDirectories(FRESH);
        Files.writeString(FRESH.resolve(file), fresh, StandardCharsets.UTF_8);
        Path committed = COMMITTED.resolve(file);
        assertThat(Files.exists(committed) ? Files.readString(committed, StandardCharsets.UTF_8) : "<missing>")
                .as("topology-docs/%s drifted from the code: review ax-streams-app/target/topology-docs/%s and copy it over",
                        file, file)
                .isEqualTo(fresh);
    }
}
