package io.ax.app.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ax.codec.RegistrySettings;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class AxConfigRegistryTest {
    private static final String BOOTSTRAP = "localhost:9092";

    @Test
    void shouldHaveNoRegistryAndSingleObjectOutputByDefault() {
        AxConfig config = new AxConfig(Map.of(AxConfig.BOOTSTRAP_SERVERS_CONFIG, BOOTSTRAP));
        assertThat(config.registrySettings()).isEmpty();
        assertThat(config.registryOutput()).isFalse();
    }

    @Test
    void shouldReadTheRegistrySettings() {
        AxConfig config = new AxConfig(Map.of(AxConfig.BOOTSTRAP_SERVERS_CONFIG, BOOTSTRAP,
                AxConfig.SCHEMA_REGISTRY_URL_CONFIG, "https://registry:8081",
                AxConfig.SCHEMA_REGISTRY_USER_INFO_CONFIG, "ax:secret",
                AxConfig.SCHEMA_REGISTRY_TIMEOUT_MS_CONFIG, "500",
                AxConfig.SCHEMA_REGISTRY_BACKOFF_MS_CONFIG, "10000",
                AxConfig.OUTPUT_FORMAT_CONFIG, "registry"));
        RegistrySettings settings = config.registrySettings().orElseThrow();
        assertThat(settings.url()).hasToString("https://registry:8081");
        assertThat(settings.userInfo()).isEqualTo("ax:secret");
        assertThat(settings.timeout()).isEqualTo(Duration.ofMillis(500));
        assertThat(settings.failureBackoff()).isEqualTo(Duration.ofSeconds(10));
        assertThat(settings.toString()).doesNotContain("secret");
        assertThat(config.registryOutput()).isTrue();
    }

    @Test
    void shouldRefuseRegistryOutputWithoutARegistryAndABadUrl() {
        assertThatThrownBy(() -> new AxConfig(Map.of(AxConfig.BOOTSTRAP_SERVERS_CONFIG, BOOTSTRAP,
                AxConfig.OUTPUT_FORMAT_CONFIG, "registry")))
                .isInstanceOf(ConfigException.class).hasMessageContaining(AxConfig.SCHEMA_REGISTRY_URL_CONFIG);
        assertThatThrownBy(() -> new AxConfig(Map.of(AxConfig.BOOTSTRAP_SERVERS_CONFIG, BOOTSTRAP,
                AxConfig.SCHEMA_REGISTRY_URL_CONFIG, "ftp://registry")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("http or https");
        assertThatThrownBy(() -> new AxConfig(Map.of(AxConfig.BOOTSTRAP_SERVERS_CONFIG, BOOTSTRAP,
                AxConfig.OUTPUT_FORMAT_CONFIG, "avro")))
                .isInstanceOf(ConfigException.class);
    }
}
