package io.ax.app.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ax.AxTopics;
import io.ax.app.AxScheduler;
import io.ax.app.broker.EmbeddedKafkaBroker;
import io.ax.app.cli.ReplayCommand;
import io.ax.app.config.AxConfig;
import io.ax.app.internal.setup.TopicSetup;
import io.ax.client.AxClient;
import io.ax.worker.AxWorker;
import io.ax.worker.Result;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Every client ax builds reaches a cluster whose only client listener is SASL_SSL (SCRAM-SHA-512 over TLS, a
 * self-signed certificate for 127.0.0.1 generated here), given the security settings once, at the top level: the
 * scheduler (its topic-setup admin and Kafka Streams), the producer client, the worker and {@code ax replay --config}.
 * A wrong password fails each of them fast and says so. The embedded broker's PLAINTEXT listener is used only to
 * create the SCRAM user.
 */
@Tag("integration")
class SecuredClusterIT {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String STORE_PASSWORD = "store-secret";
    private static final String USER = "ax-app";
    private static final String PASSWORD = "ax-secret";

    @TempDir
    static Path dir;
    private static EmbeddedKafkaBroker broker;
    private static Path truststore;

    @BeforeAll
    static void startSecuredBroker() throws Exception {
        Path keystore = dir.resolve("broker.p12");
        truststore = dir.resolve("truststore.p12");
        Path certificate = dir.resolve("broker.pem");
        keytool("-genkeypair", "-alias", "broker", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2",
                "-dname", "CN=localhost", "-ext", "SAN=IP:127.0.0.1,DNS:localhost", "-storetype", "PKCS12",
                "-keystore", keystore.toString(), "-storepass", STORE_PASSWORD, "-keypass", STORE_PASSWORD);
        keytool("-exportcert", "-rfc", "-alias", "broker", "-keystore", keystore.toString(), "-storepass", STORE_PASSWORD,
                "-file", certificate.toString());
        keytool("-importcert", "-noprompt", "-alias", "broker", "-file", certificate.toString(), "-storetype", "PKCS12",
                "-keystore", truststore.toString(), "-storepass", STORE_PASSWORD);

        broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults().withSaslSslListener(keystore, STORE_PASSWORD));
        try (Admin plaintext = Admin.create(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
            plaintext.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(USER,
                    new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), PASSWORD))).all().get(30, TimeUnit.SECONDS);
        }
        // The broker learns the new credential from the metadata log, a moment after the controller committed it.
        await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> {
            try (Admin secured = Admin.create(secured(PASSWORD))) {
                return secured.describeCluster().clusterId().get(5, TimeUnit.SECONDS) != null;
            }
        });
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    /** The connection settings a user writes once: the secured listener, SCRAM over TLS, the truststore. */
    private static Map<String, Object> secured(String password) {
        return Map.of(
                CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, broker.saslSslBootstrapServers(),
                CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_SSL",
                SaslConfigs.SASL_MECHANISM, "SCRAM-SHA-512",
                SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
                        + USER + "\" password=\"" + password + "\";",
                SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, truststore.toString(),
                SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG, STORE_PASSWORD,
                SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PKCS12");
    }

    private static AxConfig schedulerConfig(String name, String password, Path stateDir) {
        Map<String, Object> settings = new HashMap<>(secured(password));
        settings.put(AxConfig.APPLICATION_ID_CONFIG, "it-" + name);
        settings.put(AxConfig.TOPIC_PREFIX_CONFIG, name + ".");
        settings.put(AxConfig.TOPIC_PARTITIONS_CONFIG, 2);
        settings.put(AxConfig.STATE_DIR_CONFIG, stateDir.toString());
        return new AxConfig(settings);
    }

    @Test
    void shouldScheduleRunAndReplayOverSaslSslWithTheSecuritySettingsGivenOnce(@TempDir Path stateDir) throws Exception {
        AxConfig config = schedulerConfig("secured", PASSWORD, stateDir);
        AxTopics topics = config.topics();
        AtomicInteger flakyRuns = new AtomicInteger();
        try (AxScheduler scheduler = AxScheduler.start(config).awaitRunning(Duration.ofSeconds(60));
             AxClient client = AxClient.builder().connectionProperties(secured(PASSWORD)).topics(topics).build();
             StateTail state = new StateTail(secured(PASSWORD), topics.state())) {
            AxWorker worker = AxWorker.builder().connectionProperties(secured(PASSWORD)).topics(topics)
                    .groupId("secured-workers")
                    .handler("noop", context -> Result.success())
                    .handler("fails-first", context -> flakyRuns.incrementAndGet() == 1 ? Result.fatal("first run fails")
                            : Result.success())
                    .build();
            worker.start();
            try {
                client.schedule("secure-1").jobType("noop").after(Duration.ZERO).submit().get(30, TimeUnit.SECONDS);
                client.schedule("secure-2").jobType("fails-first").after(Duration.ZERO).submit().get(30, TimeUnit.SECONDS);
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                    assertThat(state.targets("secure-1")).contains("SUCCESS");
                    assertThat(state.targets("secure-2")).contains("FAILED");
                });

                Path configFile = writeConfig(Map.of(AxConfig.TOPIC_PREFIX_CONFIG, topics.prefix()));
                int exitCode = new CommandLine(new ReplayCommand()).execute("secure-2", "--config", configFile.toString(),
                        "--reason", "fixed");

                assertThat(exitCode).isZero();
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                        assertThat(state.targets("secure-2")).containsSubsequence("FAILED", "PENDING", "TRIGGERED", "SUCCESS"));
                assertThat(worker.failure()).isEmpty();
            } finally {
                worker.close(Duration.ofSeconds(5));
            }
        }
    }

    @Test
    void shouldFailFastSayingAuthenticationFailedWhenThePasswordIsWrong(@TempDir Path stateDir) {
        Throwable schedulerFailure = assertTimeoutPreemptively(Duration.ofSeconds(30),
                () -> catchThrowable(() -> AxScheduler.start(schedulerConfig("wrong-password", "not-it", stateDir))));

        assertThat(schedulerFailure).isInstanceOf(TopicSetup.AuthenticationFailedException.class)
                .hasMessageContaining("Kafka authentication failed")
                .hasCauseInstanceOf(SaslAuthenticationException.class);

        try (AxClient client = AxClient.builder().connectionProperties(secured("not-it")).build()) {
            CompletableFuture<RecordMetadata> sent = client.schedule("denied-1").jobType("noop").after(Duration.ZERO).submit();
            assertThat(sent).failsWithin(Duration.ofSeconds(30)).withThrowableOfType(ExecutionException.class)
                    .withCauseInstanceOf(SaslAuthenticationException.class);
        }

        AxWorker worker = AxWorker.builder().connectionProperties(secured("not-it")).groupId("denied-workers")
                .handler("noop", context -> Result.success()).build();
        worker.start();
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> !worker.isRunning());
            assertThat(worker.failure()).get().isInstanceOf(SaslAuthenticationException.class);
        } finally {
            worker.close(Duration.ofSeconds(5));
        }
    }

    /** The secured settings plus {@code extra} in a .properties file, as a user would write it for {@code --config}. */
    private static Path writeConfig(Map<String, String> extra) throws IOException {
        Properties properties = new Properties();
        secured(PASSWORD).forEach((key, value) -> properties.setProperty(key, value.toString()));
        extra.forEach(properties::setProperty);
        Path file = Files.createTempFile(dir, "ax-", ".properties");
        try (OutputStream out = Files.newOutputStream(file)) {
            properties.store(out, "secured cluster");
        }
        return file;
    }

    private static void keytool(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IllegalStateException("keytool " + String.join(" ", args) + " failed: " + output);
        }
    }

    /** Reads the state topic from the beginning over the secured listener, on the test's thread. */
    private static final class StateTail implements AutoCloseable {
        private final KafkaConsumer<String, byte[]> consumer;
        private final List<JsonNode> events = new ArrayList<>();

        StateTail(Map<String, Object> connection, String topic) {
            Map<String, Object> config = new HashMap<>(connection);
            config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            consumer = new KafkaConsumer<>(config, new StringDeserializer(), new ByteArrayDeserializer());
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
        }

        /** The states {@code taskId} went to so far, in order. */
        List<String> targets(String taskId) {
            for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(100))) {
                try {
                    events.add(MAPPER.readTree(record.value()));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            return events.stream().filter(e -> taskId.equals(e.path("taskId").asText())).map(e -> e.path("to").asText()).toList();
        }

        @Override
        public void close() {
            consumer.close(Duration.ofSeconds(5));
        }
    }
}
