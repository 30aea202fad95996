package io.ax;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkaConnectionTest {
    @TempDir
    Path dir;

    @Test
    void shouldLetTheFileWinOverTheEnvironmentAndSingleSettingsWinOverBoth() throws IOException {
        Path file = Files.writeString(dir.resolve("ax.properties"), """
                security.protocol=SASL_SSL
                sasl.mechanism=SCRAM-SHA-512
                ax.topic.prefix=prod.
                """);
        Map<String, String> env = Map.of(
                "AX_KAFKA_SECURITY_PROTOCOL", "SSL",
                "AX_KAFKA_SASL_MECHANISM", "PLAIN",
                "AX_KAFKA_SASL_JAAS_CONFIG", "from-env",
                "AX_KAFKA_BOOTSTRAP_SERVERS", "env:9092",
                "PATH", "/bin");

        Map<String, String> settings = KafkaConnection.load(file, Map.of("sasl.mechanism", "SCRAM-SHA-256"), env);

        assertThat(settings).containsExactlyInAnyOrderEntriesOf(Map.of(
                "security.protocol", "SASL_SSL",        // file over environment
                "sasl.mechanism", "SCRAM-SHA-256",      // -D over file and environment
                "sasl.jaas.config", "from-env",         // only in the environment
                "bootstrap.servers", "env:9092",
                "ax.topic.prefix", "prod."));           // not a connection key: kept, but never from the environment
    }

    @Test
    void shouldTakeOnlyConnectionKeysFromTheEnvironmentAndRefuseAnUnknownAxKafkaVariable() {
        assertThat(KafkaConnection.fromEnvironment(Map.of("AX_KAFKA_SSL_TRUSTSTORE_LOCATION", "/etc/ts.p12", "HOME", "/root")))
                .isEqualTo(Map.of("ssl.truststore.location", "/etc/ts.p12"));
        assertThatThrownBy(() -> KafkaConnection.fromEnvironment(Map.of("AX_KAFKA_SECURITY_PROTOCL", "SASL_SSL")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("AX_KAFKA_SECURITY_PROTOCL names no Kafka connection setting");
    }

    @Test
    void shouldSelectTheConnectionAndSecurityKeysOnly() {
        Map<String, Object> selected = KafkaConnection.select(Map.of(
                "bootstrap.servers", "b:9093", "security.protocol", "SASL_SSL", "sasl.jaas.config", "x",
                "ssl.truststore.location", "/ts", "client.dns.lookup", "use_all_dns_ips",
                "acks", "1", "streams.security.protocol", "SSL", "ax.topic.prefix", "p.", "linger.ms", 5));

        assertThat(selected).containsOnlyKeys("bootstrap.servers", "security.protocol", "sasl.jaas.config",
                "ssl.truststore.location", "client.dns.lookup");
    }

    @Test
    void shouldCoverKafkasClientSslAndSaslKeys() {
        assertThat(KafkaConnection.KEYS).contains("security.protocol", "sasl.mechanism", "sasl.jaas.config",
                "sasl.login.callback.handler.class", "sasl.oauthbearer.token.endpoint.url", "ssl.truststore.location",
                "ssl.keystore.password", "ssl.endpoint.identification.algorithm", "ssl.truststore.certificates");
        assertThat(KafkaConnection.KEYS).allMatch(key -> !key.contains("_"));
        assertThat(KafkaConnection.envName("sasl.jaas.config")).isEqualTo("AX_KAFKA_SASL_JAAS_CONFIG");
    }

    @Test
    void shouldSayWhichFileCannotBeRead() {
        Path missing = dir.resolve("missing.properties");
        assertThatThrownBy(() -> KafkaConnection.load(missing, Map.of(), Map.of()))
                .isInstanceOf(UncheckedIOException.class).hasMessageContaining("missing.properties");
    }
}
