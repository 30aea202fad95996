package io.ax.app.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

class ClusterLayoutTest {
    @Test
    void shouldDeriveTheSameClusterIdPerLayoutNeverOneTheStorageToolTakesForAnOption() {
        int wouldHaveStartedWithADash = 0;
        for (int base = 20_000; base < 24_000; base++) {
            EmbeddedKafkaCluster.Layout layout = EmbeddedKafkaCluster.Layout.contiguous(3, base);
            String id = layout.clusterId();
            assertThat(id).as("layout at %d", base).doesNotStartWith("-").hasSize(22)
                    .isEqualTo(EmbeddedKafkaCluster.Layout.contiguous(3, base).clusterId());
            UUID unsalted = UUID.nameUUIDFromBytes(("ax-cluster [" + base + ", " + (base + 1) + ", " + (base + 2) + "] ["
                    + (base + 3) + ", " + (base + 4) + ", " + (base + 5) + "]").getBytes(StandardCharsets.UTF_8));
            String before = new Uuid(unsalted.getMostSignificantBits(), unsalted.getLeastSignificantBits()).toString();
            if (before.startsWith("-")) {
                wouldHaveStartedWithADash++;
            } else {
                assertThat(id).as("a layout whose id was fine keeps it (data dirs formatted with it)").isEqualTo(before);
            }
        }
        assertThat(wouldHaveStartedWithADash).as("layouts of the range whose id started with '-' before").isPositive();
    }
}
