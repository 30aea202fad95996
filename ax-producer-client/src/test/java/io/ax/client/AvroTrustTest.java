package io.ax.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.ax.AxTopics;
import io.ax.codec.WireCodec;
import io.ax.validation.ScheduleLimits;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * Surefire sets {@code org.apache.avro.SERIALIZABLE_PACKAGES} for every test, so whether the client works
 * without it can only be seen in a fresh JVM.
 */
class AvroTrustTest {
    @Test
    void shouldBuildAndEncodeRequestsWithoutTheAvroSystemProperty() throws Exception {
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        Process probe = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"), Probe.class.getName()))
                .redirectErrorStream(true)
                .start();

        boolean exited = probe.waitFor(60, TimeUnit.SECONDS);
        String output = new String(probe.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

        assertThat(exited).as("probe JVM exited").isTrue();
        assertThat(probe.exitValue()).as(output).isZero();
        assertThat(output).contains("decoded ScheduleRequest");
    }

    /** Runs in the child JVM, which has no Avro system property. */
    static final class Probe {
        public static void main(String[] args) {
            if (System.getProperty("org.apache.avro.SERIALIZABLE_PACKAGES") != null) {
                throw new AssertionError("the probe must run without the Avro system property");
            }
            MockProducer<String, byte[]> producer = new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer());
            AxClient client = AxClient.create(producer, AxTopics.defaults(), Clock.systemUTC(), ScheduleLimits.defaults());
            client.schedule("t1").jobType("email").after(Duration.ofSeconds(1)).submit().join();
            Object decoded = WireCodec.decodeRequest(producer.history().get(0).value());
            System.out.println("decoded " + decoded.getClass().getSimpleName());
        }
    }
}
