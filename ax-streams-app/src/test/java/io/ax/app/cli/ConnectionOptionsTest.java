package io.ax.app.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class ConnectionOptionsTest {
    @TempDir
    Path dir;

    @Test
    void shouldLetBootstrapWinOverMinusDOverTheFileOverTheEnvironment() throws IOException {
        Path file = Files.writeString(dir.resolve("ax.properties"),
                "bootstrap.servers=file:9093\nsecurity.protocol=SASL_SSL\nsasl.mechanism=PLAIN\n");
        ReplayCommand replay = new ReplayCommand();
        new CommandLine(replay).parseArgs("t1", "--config", file.toString(), "-D", "sasl.mechanism=SCRAM-SHA-512",
                "--bootstrap", "cli:9093");

        Map<String, String> settings = replay.connection.settings(Map.of(
                "AX_KAFKA_SECURITY_PROTOCOL", "SSL", "AX_KAFKA_SSL_TRUSTSTORE_LOCATION", "/ts.p12"));

        assertThat(settings).containsEntry("bootstrap.servers", "cli:9093")
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("sasl.mechanism", "SCRAM-SHA-512")
                .containsEntry("ssl.truststore.location", "/ts.p12");
    }

    @Test
    void shouldTakeTheBootstrapServersFromTheEnvironmentAndRefuseToRunWithout() {
        RunCommand run = new RunCommand();
        new CommandLine(run).parseArgs("--instance", "a");

        assertThat(run.connection.settings(Map.of("AX_KAFKA_BOOTSTRAP_SERVERS", "env:9092")))
                .containsEntry("bootstrap.servers", "env:9092");
        assertThatThrownBy(() -> run.connection.settings(Map.of()))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("No Kafka bootstrap servers");
    }
}
