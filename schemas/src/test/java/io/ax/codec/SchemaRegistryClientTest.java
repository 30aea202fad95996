package io.ax.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ax.codec.SchemaRegistryClient.RegistryException;
import io.ax.schema.DispatchTask;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A start-up's registration against {@link TestRegistry}: an outage is asked again, a refusal is not. */
class SchemaRegistryClientTest {
    private final TestRegistry registry;
    private final SchemaRegistryClient client;
    private final List<RegistryException> retried = new ArrayList<>();

    SchemaRegistryClientTest() throws IOException {
        registry = new TestRegistry();
        // In-process registry: a generous timeout, as RegistryCodecTest explains (a loaded box once took 6.8 s).
        client = new SchemaRegistryClient(RegistrySettings.of(registry.url()).withTimeouts(Duration.ofSeconds(30), Duration.ofSeconds(30)));
    }

    @AfterEach
    void stop() {
        registry.close();
    }

    @Test
    void shouldRegisterOnceTheRegistryAnswersAfterAnOutage() throws Exception {
        registry.failRegistrations(2, 503);

        assertThat(client.register("d-value", DispatchTask.getClassSchema(), 5, Duration.ZERO, retried::add)).isEqualTo(42);

        assertThat(registry.calls()).isEqualTo(3);
        assertThat(retried).hasSize(2).allSatisfy(e -> assertThat(e.unavailable()).isTrue())
                .first().satisfies(e -> assertThat(e).hasMessageContaining("HTTP 503"));
    }

    @Test
    void shouldGiveUpAfterItsAttemptsWithTheLastFailure() {
        registry.failRegistrations(10, 503);

        assertThatThrownBy(() -> client.register("d-value", DispatchTask.getClassSchema(), 3, Duration.ZERO, retried::add))
                .isInstanceOf(RegistryException.class).hasMessageContaining("HTTP 503")
                .satisfies(e -> assertThat(((RegistryException) e).unavailable()).isTrue());
        assertThat(registry.calls()).isEqualTo(3);
        assertThat(retried).hasSize(2);
    }

    @Test
    void shouldNotAskAgainWhenTheRegistryRefusesTheSchema() {
        registry.failRegistrations(1, 409); // e.g. incompatible with the subject's latest version

        assertThatThrownBy(() -> client.register("d-value", DispatchTask.getClassSchema(), 5, Duration.ZERO, retried::add))
                .isInstanceOf(RegistryException.class).hasMessageContaining("HTTP 409")
                .satisfies(e -> assertThat(((RegistryException) e).unavailable()).isFalse());
        assertThat(registry.calls()).isEqualTo(1);
        assertThat(retried).isEmpty();
    }

    @Test
    void shouldAskAgainWhenTheRegistryIsUnreachable() throws Exception {
        int port;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            port = socket.getLocalPort(); // closed below: nothing listens there
        }
        SchemaRegistryClient closed = new SchemaRegistryClient(RegistrySettings.of("http://127.0.0.1:" + port)
                .withTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(5)));

        assertThatThrownBy(() -> closed.register("d-value", DispatchTask.getClassSchema(), 2, Duration.ZERO, retried::add))
                .isInstanceOf(RegistryException.class).hasMessageContaining("unreachable");
        assertThat(retried).hasSize(1).allSatisfy(e -> assertThat(e.unavailable()).isTrue());
    }
}
