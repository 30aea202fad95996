package io.ax.codec;

import io.ax.InvalidRequestException;
import java.nio.ByteBuffer;

/**
 * The schema-registry wire format that Confluent's {@code KafkaAvroSerializer} (and Apicurio's serde in its
 * Confluent-compatible mode) writes: one byte {@code 0x00}, the writer schema's id as a 4-byte big-endian int, then
 * the Avro binary body. Told apart from ax's other input forms by the first byte: single-object encoding starts
 * {@code C3 01}, JSON with {@code {} (or whitespace).
 */
public final class RegistryWire {
    public static final byte MAGIC = 0x00;
    /** The magic byte and the 4-byte schema id before the body. */
    public static final int HEADER_BYTES = 5;

    private RegistryWire() {
    }

    /** Whether the bytes claim the registry format (a first byte 0); {@link #schemaId} checks the rest. */
    public static boolean isRegistryFormat(byte[] bytes) {
        return bytes != null && bytes.length >= 1 && bytes[0] == MAGIC;
    }

    /**
     * The writer schema id of a registry-format record.
     *
     * @throws InvalidRequestException when the bytes are too short, do not start with 0, or carry a negative id
     */
    public static int schemaId(byte[] bytes) {
        if (bytes == null || bytes.length < 1 || bytes[0] != MAGIC) {
            throw new InvalidRequestException(null, "not the schema-registry wire format (expected first byte 00)");
        }
        if (bytes.length < HEADER_BYTES) {
            throw new InvalidRequestException(null, "truncated schema-registry record: " + bytes.length
                    + " bytes, less than the 5 of the magic byte and the schema id");
        }
        int id = ByteBuffer.wrap(bytes, 1, 4).getInt();
        if (id < 0) {
            throw new InvalidRequestException(null, "schema-registry record with a negative schema id " + id);
        }
        return id;
    }

    /** The registry format of an Avro binary body written with the schema registered as {@code id}. */
    public static byte[] frame(int id, byte[] body) {
        if (id < 0) {
            throw new IllegalArgumentException("schema id must be >= 0: " + id);
        }
        return ByteBuffer.allocate(HEADER_BYTES + body.length).put(MAGIC).putInt(id).put(body).array();
    }
}
