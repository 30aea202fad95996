package io.ax.app.fuzz;

import io.ax.AxTopics;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Optional;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * The scheduler's last line of defence, as the fuzz suite expects it: a record that still makes processing throw is
 * copied to a quarantine topic, with the original record's coordinates in headers, and the partition moves on.
 *
 * <p>Tolerant on purpose while that part is being built: any header whose name ends in {@code topic},
 * {@code partition} or {@code offset} (case-insensitive, so {@code ax-source-topic} as well as Kafka Streams'
 * {@code __streams.errors.topic}) counts, its value read as UTF-8 decimal text or as a 4- or 8-byte big-endian number.
 */
public final class Quarantine {
    /** The quarantine topic's name after the prefix ({@code ax.quarantine} by default): adjust it to the scheduler's. */
    public static final String TOPIC_SUFFIX = "quarantine";

    private Quarantine() {
    }

    public static String topic(AxTopics topics) {
        return topics.prefix() + TOPIC_SUFFIX;
    }

    /** The coordinates of the quarantined record, if the headers name all three. */
    public static Optional<Coordinates> coordinates(Headers headers) {
        String topic = null;
        Long partition = null;
        Long offset = null;
        for (Header header : headers == null ? new Header[0] : headers.toArray()) {
            if (header.value() == null) {
                continue;
            }
            String name = header.key().toLowerCase(Locale.ROOT);
            if (name.endsWith("topic")) {
                topic = new String(header.value(), StandardCharsets.UTF_8);
            } else if (name.endsWith("partition")) {
                partition = number(header.value());
            } else if (name.endsWith("offset")) {
                offset = number(header.value());
            }
        }
        if (topic == null || partition == null || offset == null) {
            return Optional.empty();
        }
        return Optional.of(new Coordinates(topic, partition.intValue(), offset));
    }

    private static Long number(byte[] value) {
        String text = new String(value, StandardCharsets.UTF_8).strip();
        if (text.matches("-?\\d{1,19}")) {
            return Long.parseLong(text);
        }
        if (value.length == Integer.BYTES) {
            return (long) ByteBuffer.wrap(value).getInt();
        }
        if (value.length == Long.BYTES) {
            return ByteBuffer.wrap(value).getLong();
        }
        return null;
    }
}
