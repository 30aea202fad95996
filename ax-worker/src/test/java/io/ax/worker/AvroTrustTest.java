package io.ax.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.ax.codec.WireCodec;
import io.ax.schema.DispatchKind;
import io.ax.schema.DispatchTask;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Surefire sets {@code org.apache.avro.SERIALIZABLE_PACKAGES} for every test, so whether the worker decodes
 * dispatches without it can only be seen in a fresh JVM.
 */
class AvroTrustTest {
    @Test
    void shouldDecodeDispatchesWithoutTheAvroSystemProperty() throws Exception {
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        Process probe = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"), Probe.class.getName()))
                .redirectErrorStream(true)
                .start();

        boolean exited = probe.waitFor(60, TimeUnit.SECONDS);
        String output = new String(probe.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

        assertThat(exited).as("probe JVM exited").isTrue();
        assertThat(probe.exitValue()).as(output).isZero();
        assertThat(output).contains("decoded RUN exec-1");
    }

    /** Runs in the child JVM, which has no Avro system property. */
    static final class Probe {
        public static void main(String[] args) {
            if (System.getProperty("org.apache.avro.SERIALIZABLE_PACKAGES") != null) {
                throw new AssertionError("the probe must run without the Avro system property");
            }
            AxWorker.Builder unused = AxWorker.builder();
            byte[] bytes = WireCodec.encode(new DispatchTask(DispatchKind.RUN, "t1", "exec-1", 1, "email", null, 0L, 0L, 4, null, 1000L, null, null, null));
            DispatchTask decoded = WireCodec.decodeBinary(bytes, DispatchTask.class);
            System.out.println("decoded " + decoded.getKind() + " " + decoded.getExecutionId() + " " + unused.getClass().getSimpleName());
        }
    }
}
