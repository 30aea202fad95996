package io.ax.app.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

class AxConfigHttpTest {
    private static AxConfig config(Map<String, Object> http) {
        Map<String, Object> props = new HashMap<>(http);
        props.put(AxConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092");
        return new AxConfig(props);
    }

    @Test
    void shouldBindLoopbackWhenOnlyAPortIsGivenAndAdvertiseIt() {
        AxConfig config = config(Map.of(AxConfig.HTTP_LISTEN_CONFIG, "8080"));
        assertThat(config.httpListen()).contains(new HttpAddress("127.0.0.1", 8080));
        assertThat(config.streamsProperties().get(StreamsConfig.APPLICATION_SERVER_CONFIG)).isEqualTo("127.0.0.1:8080");
        assertThat(config.httpToken()).isEmpty();
    }

    @Test
    void shouldHaveNoServerByDefault() {
        AxConfig config = config(Map.of());
        assertThat(config.httpListen()).isEmpty();
        assertThat(config.streamsProperties()).doesNotContainKey(StreamsConfig.APPLICATION_SERVER_CONFIG);
    }

    @Test
    void shouldRefuseANonLoopbackBindWithoutAToken() {
        assertThatThrownBy(() -> config(Map.of(AxConfig.HTTP_LISTEN_CONFIG, "0.0.0.0:8080")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("ax.http.token");
        AxConfig config = config(Map.of(AxConfig.HTTP_LISTEN_CONFIG, "0.0.0.0:8080", AxConfig.HTTP_TOKEN_CONFIG, "t",
                AxConfig.HTTP_ADVERTISED_CONFIG, "ax-1.example.com:8080"));
        assertThat(config.httpToken()).contains("t");
        assertThat(config.streamsProperties().get(StreamsConfig.APPLICATION_SERVER_CONFIG)).isEqualTo("ax-1.example.com:8080");
    }

    @Test
    void shouldRejectAnAddressThatIsNotHostAndPort() {
        assertThatThrownBy(() -> config(Map.of(AxConfig.HTTP_LISTEN_CONFIG, "localhost:http")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("not [HOST:]PORT");
        assertThatThrownBy(() -> config(Map.of(AxConfig.HTTP_LISTEN_CONFIG, "70000")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("1-65535");
    }
}
