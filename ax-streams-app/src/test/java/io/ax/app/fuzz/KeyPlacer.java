package io.ax.app.fuzz;

import io.ax.app.internal.topology.KeyPartition;
import java.nio.charset.StandardCharsets;

/** Turns key prefixes into keys a chosen partition owns (murmur2, as the Java producer and Kafka Streams place them). */
public final class KeyPlacer {
    private final int partitions;

    public KeyPlacer(int partitions) {
        this.partitions = partitions;
    }

    public int partitions() {
        return partitions;
    }

    /** {@code base~n} for the smallest n whose key belongs to {@code partition}. */
    public String keyOn(String base, int partition) {
        for (int n = 0; ; n++) {
            String key = base + "~" + n;
            if (KeyPartition.of(key, partitions) == partition) {
                return key;
            }
        }
    }

    /** The key an input is sent with to {@code partition}; {@code unique} tells apart inputs of one run. */
    public byte[] keyFor(HostileInput input, String unique, int partition) {
        return switch (input.placement()) {
            case AS_IS -> input.key();
            case FRESH -> utf8(keyOn(prefix(input) + "-" + unique, partition));
            case WRONG_PARTITION -> utf8(keyOn(prefix(input) + "-" + unique, (partition + 1) % partitions));
        };
    }

    private static String prefix(HostileInput input) {
        return input.key() == null ? "fz" : new String(input.key(), StandardCharsets.UTF_8);
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
