package io.ax.app.fuzz;

import io.ax.codec.AxSchemas;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.apache.avro.Schema;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

/**
 * Writes Avro single-object records field by field, so a test can put a lying length prefix (huge, negative,
 * past the end) where a string, bytes or array length belongs. Zig-zag varints as in the Avro spec.
 */
final class AvroBytes {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);

    private AvroBytes() {
    }

    /** Starts a record with the header {@code C3 01} and the writer schema's fingerprint. */
    static AvroBytes singleObject(Schema writer) {
        return singleObject(AxSchemas.fingerprint(writer));
    }

    static AvroBytes singleObject(long fingerprint) {
        AvroBytes bytes = new AvroBytes();
        bytes.out.write(0xC3);
        bytes.out.write(0x01);
        for (int i = 0; i < 8; i++) {
            bytes.out.write((int) (fingerprint >>> (8 * i)) & 0xff);
        }
        return bytes;
    }

    AvroBytes string(String text) {
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        return varint(utf8.length).raw(utf8);
    }

    /** A length prefix that may lie, followed by the bytes that are really there. */
    AvroBytes lyingLength(long declaredLength, byte[] actual) {
        return varint(declaredLength).raw(actual);
    }

    AvroBytes varint(long value) {
        try {
            encoder.writeLong(value);
            encoder.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    AvroBytes bool(boolean value) {
        out.write(value ? 1 : 0);
        return this;
    }

    /** A union branch or enum symbol index. */
    AvroBytes index(int index) {
        return varint(index);
    }

    AvroBytes raw(byte[] bytes) {
        out.write(bytes, 0, bytes.length);
        return this;
    }

    byte[] bytes() {
        return out.toByteArray();
    }
}
