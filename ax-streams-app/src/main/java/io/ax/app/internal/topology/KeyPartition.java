package io.ax.app.internal.topology;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.utils.Utils;

/** The partition Kafka's Java producer (and so Kafka Streams) picks for a String key: murmur2, as the built-in partitioner. */
public final class KeyPartition {
    private KeyPartition() {
    }

    /** @return the partition of {@code key} among {@code partitions}, or -1 when the count is unknown (0) */
    public static int of(String key, int partitions) {
        if (partitions <= 0) {
            return -1;
        }
        return Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % partitions;
    }
}
