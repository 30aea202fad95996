package io.ax.codec;

import io.ax.InvalidRequestException;
import org.apache.avro.Schema;

/**
 * Walks an Avro binary body against its writer schema <em>before</em> Avro decodes it, so a hostile length
 * prefix cannot make the decoder allocate: Avro's decoder allocates a string, bytes or array of the announced
 * length first and reads afterwards (a 33-byte record announcing a 2 GB string allocates 2 GB). Here every
 * length and block count is checked against the bytes that are actually left, collections are capped, and
 * union and enum indexes must be in range. The walk reads each byte at most once and allocates nothing, so
 * its cost is bounded by the record's size.
 */
final class AvroBounds {
    /** Most collection items (array elements plus map entries) one record may hold. */
    static final int MAX_ITEMS = 10_000;
    private static final int MAX_DEPTH = 32;

    private final byte[] bytes;
    private final int end;
    private int pos;
    private int items;

    private AvroBounds(byte[] bytes, int offset) {
        this.bytes = bytes;
        this.pos = offset;
        this.end = bytes.length;
    }

    /** @throws InvalidRequestException naming the first length, index or count that cannot be right */
    static void check(byte[] bytes, int offset, Schema writer) {
        new AvroBounds(bytes, offset).value(writer, 0);
    }

    private void value(Schema schema, int depth) {
        if (depth > MAX_DEPTH) {
            throw malformed("nesting deeper than " + MAX_DEPTH);
        }
        switch (schema.getType()) {
            case NULL -> { }
            case BOOLEAN -> skip(1, "boolean");
            case INT, LONG -> readLong();
            case FLOAT -> skip(4, "float");
            case DOUBLE -> skip(8, "double");
            case FIXED -> skip(schema.getFixedSize(), "fixed");
            case STRING, BYTES -> skip(length(schema.getType().getName()), schema.getType().getName());
            case ENUM -> index(schema.getEnumSymbols().size(), "enum " + schema.getName());
            case UNION -> value(schema.getTypes().get(index(schema.getTypes().size(), "union")), depth + 1);
            case RECORD -> {
                for (Schema.Field field : schema.getFields()) {
                    value(field.schema(), depth + 1);
                }
            }
            case ARRAY -> blocks(null, schema.getElementType(), depth);
            case MAP -> blocks(Schema.create(Schema.Type.STRING), schema.getValueType(), depth);
        }
    }

    private void blocks(Schema keySchema, Schema itemSchema, int depth) {
        while (true) {
            long count = readLong();
            if (count == 0) {
                return;
            }
            if (count < 0) {
                count = -count;
                readLong(); // the block's size in bytes, which the walk does not need
            }
            if (count > MAX_ITEMS - items) {
                throw malformed("more than " + MAX_ITEMS + " collection items");
            }
            items += (int) count;
            for (long i = 0; i < count; i++) {
                if (keySchema != null) {
                    value(keySchema, depth + 1);
                }
                value(itemSchema, depth + 1);
            }
        }
    }

    private int index(int size, String what) {
        long index = readLong();
        if (index < 0 || index >= size) {
            throw malformed(what + " index " + index + " out of range (" + size + " branches)");
        }
        return (int) index;
    }

    private long length(String what) {
        long length = readLong();
        if (length < 0) {
            throw malformed(what + " length " + length + " is negative");
        }
        return length;
    }

    private void skip(long count, String what) {
        if (count > end - pos) {
            throw malformed(what + " of " + count + " bytes at byte " + pos + " runs past the end of the " + end + "-byte record");
        }
        pos += (int) count;
    }

    /** A zig-zag varint of at most 10 bytes. */
    private long readLong() {
        long raw = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (pos >= end) {
                throw malformed("record ends inside a number at byte " + pos);
            }
            byte b = bytes[pos++];
            raw |= (long) (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                return (raw >>> 1) ^ -(raw & 1);
            }
        }
        throw malformed("number longer than 10 bytes at byte " + pos);
    }

    private static InvalidRequestException malformed(String what) {
        return new InvalidRequestException(null, "malformed Avro record: " + what);
    }
}
