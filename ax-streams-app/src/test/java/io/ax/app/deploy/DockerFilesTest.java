package io.ax.app.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ax.app.cli.RunCommand;
import io.ax.app.cli.WorkerCommand;
import io.ax.app.config.AxConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code docker/}: the compose file as Debian's docker-compose (1.29, no engine needed) reads it, the Dockerfile
 * through a linter, and the Prometheus configuration through promtool. This machine has no Docker engine: nothing
 * here builds the image or starts a container (docker/README.md says what was run). Each tool-bound test is skipped,
 * with the reason, where its tool is missing; .ci/run installs them.
 */
class DockerFilesTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofMinutes(2);
    private static final String TOKEN = "compose-test-token";

    private final Path root = RepositoryFiles.root();
    private final Path docker = RepositoryFiles.docker();

    @Test
    void shouldBeAValidComposeFile() {
        ExternalTool.Run run = compose(Map.of("AX_HTTP_TOKEN", TOKEN), "config", "-q");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.output()).as(run.toString()).isBlank();
    }

    @Test
    void shouldRefuseToRunWithoutTheHttpToken() {
        ExternalTool.Run run = compose(Map.of("AX_HTTP_TOKEN", ""), "config", "-q");
        assertThat(run.exitCode()).as(run.toString()).isNotZero();
        assertThat(run.output()).as(run.toString()).contains("set AX_HTTP_TOKEN");
    }

    @Test
    void shouldRunKafkaTwoSchedulersTheWorkerAndPrometheus() throws IOException {
        JsonNode services = composeConfig().path("services");
        List<String> names = new ArrayList<>();
        services.fieldNames().forEachRemaining(names::add);
        assertThat(names).containsExactlyInAnyOrder("kafka", "ax-scheduler-1", "ax-scheduler-2", "ax-worker", "prometheus");

        assertThat(services.path("kafka").path("image").asText())
                .as("the broker image matches the project's Kafka version").isEqualTo("apache/kafka:" + KafkaVersion.current());
        assertThat(services.path("kafka").path("environment").path("KAFKA_PROCESS_ROLES").asText()).isEqualTo("broker,controller");
        assertThat(services.path("kafka").path("environment").path("KAFKA_ADVERTISED_LISTENERS").asText())
                .contains("PLAINTEXT://kafka:9092");

        Set<String> instances = new HashSet<>();
        for (String name : List.of("ax-scheduler-1", "ax-scheduler-2")) {
            JsonNode scheduler = services.path(name);
            List<String> command = strings(scheduler.path("command"));
            assertThat(command).startsWith("run", "--bootstrap", "kafka:9092", "--http", "0.0.0.0:8080", "--http-token", TOKEN)
                    .contains(AxConfig.HTTP_ADVERTISED_CONFIG + "=" + scheduler.path("hostname").asText() + ":8080");
            // Every option is one ./ax run knows: picocli refuses unknown ones.
            RunCommand run = new RunCommand();
            new CommandLine(run).parseArgs(command.subList(1, command.size()).toArray(String[]::new));
            int instance = command.indexOf("--instance");
            assertThat(instance).as(name + " names its instance").isPositive();
            instances.add(command.get(instance + 1));
            assertThat(scheduler.path("image").asText()).isEqualTo("ax:dev");
            assertThat(scheduler.path("build").path("dockerfile").asText()).isEqualTo("docker/Dockerfile");
            assertThat(scheduler.path("environment").path("AX_HTTP_TOKEN").asText()).isEqualTo(TOKEN);
        }
        assertThat(instances).as("each scheduler has its own instance name").hasSize(2);

        List<String> worker = strings(services.path("ax-worker").path("command"));
        assertThat(worker).containsExactly("worker", "--bootstrap", "kafka:9092", "--http", "0.0.0.0:8081", "--http-token", TOKEN);
        new CommandLine(new WorkerCommand()).parseArgs(worker.subList(1, worker.size()).toArray(String[]::new));
        assertThat(services.path("ax-worker").path("environment").path("AX_HEALTH_URL").asText()).endsWith(":8081/health");

        assertThat(strings(services.path("prometheus").path("volumes")))
                .anySatisfy(v -> assertThat(v).contains("prometheus.yml:/etc/prometheus/prometheus.yml"))
                .anySatisfy(v -> assertThat(v).contains("ax-alerts.yml:/etc/prometheus/ax-alerts.yml"));
        assertThat(services.path("prometheus").path("environment").path("AX_HTTP_TOKEN").asText()).isEqualTo(TOKEN);
    }

    @Test
    void shouldPassPromtoolCheckConfigWithTheShippedRules(@TempDir Path dir) throws IOException {
        ExternalTool promtool = ExternalTool.require("promtool", "Debian's prometheus package provides it: apt-get install prometheus");
        // In the container the token file is written at start; here a copy points at a local one.
        String config = Files.readString(docker.resolve("prometheus/prometheus.yml"), StandardCharsets.UTF_8);
        assertThat(config).contains("credentials_file: /prometheus/ax-http-token").contains("- ax-alerts.yml")
                .as("the job names the rules expect").contains("job_name: " + PrometheusServer.SCHEDULER_JOB)
                .contains("job_name: " + PrometheusServer.WORKER_JOB);
        Path token = Files.writeString(dir.resolve("ax-http-token"), TOKEN);
        Files.writeString(dir.resolve("prometheus.yml"), config.replace("/prometheus/ax-http-token", token.toString()));
        Files.copy(RepositoryFiles.alertRules(), dir.resolve("ax-alerts.yml"));

        ExternalTool.Run run = promtool.run(dir, TIMEOUT, "check", "config", "prometheus.yml");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.output()).as(run.toString()).contains("SUCCESS: 1 rule files found").doesNotContain("FAILED");
    }

    @Test
    void shouldBuildTheImageFromTheJarAxBuilds() throws IOException {
        String dockerfile = Files.readString(docker.resolve("Dockerfile"), StandardCharsets.UTF_8);
        String pom = Files.readString(root.resolve("ax-streams-app/pom.xml"), StandardCharsets.UTF_8);
        String launcher = Files.readString(root.resolve("ax"), StandardCharsets.UTF_8);
        assertThat(pom).contains("<finalName>ax-streams-app</finalName>")
                .contains("<outputDirectory>${project.build.directory}/lib</outputDirectory>");
        assertThat(launcher).contains("jar=\"$here/$module/target/$module.jar\"");
        assertThat(dockerfile).contains("FROM eclipse-temurin:17-jre")
                .contains("COPY ax-streams-app/target/ax-streams-app.jar ")
                .contains("COPY ax-streams-app/target/lib/ ")
                .containsPattern("(?m)^USER ax:ax$")
                .containsPattern("(?m)^HEALTHCHECK .*\\n\\s+CMD curl -f")
                .contains("ENTRYPOINT [\"java\", \"-jar\", \"/opt/ax/ax-streams-app.jar\"]");
    }

    /**
     * hadolint is the usual Dockerfile linter; it is neither a Debian package nor served by the npm registry as a
     * binary (the npm package "hadolint" wraps a binary it expects to find), nor on Maven Central. Where a developer
     * has it, it runs; on the machines ax is developed on and in its CI it cannot be installed, so this test has never
     * run there and reports itself skipped, saying so.
     */
    @Test
    void shouldPassHadolint() {
        ExternalTool hadolint = ExternalTool.require("hadolint", "it cannot be installed where ax is developed or in its CI"
                + " (no Debian package, no npm or Maven Central binary), so this test has never run there;"
                + " dockerfile-utils lint runs instead (shouldPassDockerfileUtilsLint)");
        ExternalTool.Run run = hadolint.run(root, TIMEOUT, "docker/Dockerfile");
        assertThat(run.exitCode()).as(run.toString()).isZero();
    }

    /** The Dockerfile language server's linter (npm dockerfile-utils): instructions, arguments, duplicates. */
    @Test
    void shouldPassDockerfileUtilsLint() {
        ExternalTool lint = ExternalTool.require("dockerfile-utils", "npm install -g dockerfile-utils@0.16.3 (.ci/run does)");
        ExternalTool.Run run = lint.run(root, TIMEOUT, "lint", "docker/Dockerfile");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.output()).as(run.toString()).isBlank();
    }

    private ExternalTool.Run compose(Map<String, String> environment, String... args) {
        ExternalTool compose = ExternalTool.require("docker-compose", "Debian's docker-compose package (1.29) validates"
                + " compose files without an engine: apt-get install docker-compose (.ci/run does)");
        List<String> all = new ArrayList<>(List.of("-f", docker.resolve("compose.yaml").toString()));
        all.addAll(List.of(args));
        return compose.run(root, TIMEOUT, environment, all.toArray(String[]::new));
    }

    /**
     * The compose file as docker-compose resolves it, as JSON. docker-compose 1.29 prints only YAML; Python's yaml
     * module, which docker-compose itself depends on, turns it into JSON.
     */
    private JsonNode composeConfig() throws IOException {
        ExternalTool.Run config = compose(Map.of("AX_HTTP_TOKEN", TOKEN), "config");
        assertThat(config.exitCode()).as(config.toString()).isZero();
        ExternalTool python = ExternalTool.require("python3", "docker-compose's own interpreter");
        Path yaml = Files.createTempFile("compose-config-", ".yaml");
        try {
            Files.writeString(yaml, config.output(), StandardCharsets.UTF_8);
            ExternalTool.Run json = python.run(root, TIMEOUT, "-c",
                    "import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), sys.stdout)", yaml.toString());
            assertThat(json.exitCode()).as(json.toString()).isZero();
            return MAPPER.readTree(json.output());
        } finally {
            Files.deleteIfExists(yaml);
        }
    }

    private static List<String> strings(JsonNode array) {
        assertThat(array.isArray()).as("a list: " + array).isTrue();
        List<String> values = new ArrayList<>();
        array.forEach(value -> values.add(value.asText()));
        return values;
    }
}
