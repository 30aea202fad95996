package io.ax.app.internal.setup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ax.AxException;
import io.ax.app.config.AxConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StateDirectoryTest {

    @Test
    void shouldRefuseASecondSchedulerOnTheSameDirectoryWithAMessageAndLetItInOnceReleased(@TempDir Path dir) {
        try (StateDirectory first = StateDirectory.claim(dir, "cluster-a", "ax-scheduler")) {
            assertThatThrownBy(() -> StateDirectory.claim(dir, "cluster-a", "ax-scheduler"))
                    .isInstanceOf(AxException.class)
                    .hasMessage("state directory " + dir + " is in use by another ax scheduler (pid "
                            + ProcessHandle.current().pid() + "); give each instance its own: ./ax run --instance NAME, "
                            + "or -D ax.state.dir=DIR");
        }
        StateDirectory.claim(dir, "cluster-a", "ax-scheduler").close();
    }

    @Test
    void shouldClearTheStateOfAnotherClusterAndKeepItsOwn(@TempDir Path dir) throws Exception {
        StateDirectory.claim(dir, "cluster-a", "ax-scheduler").close();
        Path task = Files.createDirectories(dir.resolve("ax-scheduler").resolve("0_1"));
        Files.writeString(task.resolve(".checkpoint"), "offsets of cluster a");

        StateDirectory.claim(dir, "cluster-a", "ax-scheduler").close();
        assertThat(task.resolve(".checkpoint")).as("the same cluster's state stays").exists();

        StateDirectory.claim(dir, "cluster-b", "ax-scheduler").close();
        assertThat(dir.resolve("ax-scheduler")).as("another cluster's state is cleared").doesNotExist();
        assertThat(Files.readString(dir.resolve(StateDirectory.MARKER_FILE))).contains("cluster.id=cluster-b");
    }

    @Test
    void shouldGiveEachApplicationAndInstanceItsOwnDirectoryByDefault() {
        Path a = new AxConfig(Map.of(AxConfig.BOOTSTRAP_SERVERS_CONFIG, "k:9092")).stateDir();
        Path b = new AxConfig(Map.of(AxConfig.BOOTSTRAP_SERVERS_CONFIG, "k:9092", AxConfig.INSTANCE_NAME_CONFIG, "b")).stateDir();
        Path c = new AxConfig(Map.of(AxConfig.BOOTSTRAP_SERVERS_CONFIG, "k:9092", AxConfig.APPLICATION_ID_CONFIG, "other")).stateDir();
        assertThat(a.toString()).endsWith("/ax-state/ax-scheduler/default");
        assertThat(b.toString()).endsWith("/ax-state/ax-scheduler/b");
        assertThat(c.toString()).endsWith("/ax-state/other/default");
        assertThat(new AxConfig(Map.of(AxConfig.BOOTSTRAP_SERVERS_CONFIG, "k:9092", AxConfig.STATE_DIR_CONFIG, "/srv/ax")).stateDir())
                .isEqualTo(Path.of("/srv/ax"));
        assertThatThrownBy(() -> new AxConfig(Map.of(AxConfig.BOOTSTRAP_SERVERS_CONFIG, "k:9092", AxConfig.INSTANCE_NAME_CONFIG, "../x")))
                .hasMessageContaining("must be 1-64 chars");
    }
}
