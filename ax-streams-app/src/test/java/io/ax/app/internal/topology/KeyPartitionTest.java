package io.ax.app.internal.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.junit.jupiter.api.Test;

class KeyPartitionTest {

    @Test
    void shouldPickThePartitionTheJavaProducerPicks() {
        for (int partitions : new int[] {1, 2, 3, 6, 12, 64}) {
            for (int i = 0; i < 500; i++) {
                String key = "task-" + i + "-é";
                assertThat(KeyPartition.of(key, partitions)).as("%s / %d", key, partitions)
                        .isEqualTo(BuiltInPartitioner.partitionForKey(key.getBytes(StandardCharsets.UTF_8), partitions));
            }
        }
    }

    @Test
    void shouldNotCheckWhenThePartitionCountIsUnknown() {
        assertThat(KeyPartition.of("anything", 0)).isEqualTo(-1);
    }
}
