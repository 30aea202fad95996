package io.ax.app.fuzz;

import java.nio.charset.StandardCharsets;

/**
 * One record the fuzz suite sends to a scheduler input topic.
 *
 * @param origin      how to get it again: {@code seed 42 #17} for a generated input, {@code corpus ax.requests/x} for
 *                    a corpus entry
 * @param kind        what it is, {@code topic/encoding/family/detail}, e.g. {@code requests/avro/huge-length/jobType}
 * @param topic       the input topic
 * @param key         the key bytes, or null for no key; a prefix when {@code placement} is not {@link KeyPlacement#AS_IS}
 * @param placement   how the key meets partitions
 * @param value       the value bytes, or null (a tombstone); the template of a {@link LiveTarget} input
 * @param timestampMs the record timestamp, or null for the run's current time
 * @param live        non-null when the input acts on a live execution the run sets up first
 */
public record HostileInput(String origin, String kind, FuzzTopic topic, byte[] key, KeyPlacement placement, byte[] value,
                           Long timestampMs, LiveTarget live) {

    /** An input with a fresh key, the run's current time and no live target. */
    public static HostileInput of(String kind, FuzzTopic topic, byte[] value) {
        return new HostileInput("", kind, topic, utf8("fz"), KeyPlacement.FRESH, value, null, null);
    }

    public static HostileInput of(String kind, FuzzTopic topic, String value) {
        return of(kind, topic, utf8(value));
    }

    public HostileInput withOrigin(String origin) {
        return new HostileInput(origin, kind, topic, key, placement, value, timestampMs, live);
    }

    public HostileInput withKey(byte[] key, KeyPlacement placement) {
        return new HostileInput(origin, kind, topic, key, placement, value, timestampMs, live);
    }

    public HostileInput withTimestamp(Long timestampMs) {
        return new HostileInput(origin, kind, topic, key, placement, value, timestampMs, live);
    }

    public HostileInput withLive(LiveTarget live) {
        return new HostileInput(origin, kind, topic, key, placement, value, timestampMs, live);
    }

    /**
     * The value to send under {@code sentKey}: the value, with {@value HostileWorkflowRequests#SELF} replaced by the key
     * for an input that names its own task (kinds ending in {@code /self-reference}).
     */
    public byte[] valueFor(byte[] sentKey) {
        if (value == null || sentKey == null || !kind.endsWith("/self-reference")) {
            return value;
        }
        byte[] self = HostileWorkflowRequests.SELF.getBytes(StandardCharsets.UTF_8);
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(value.length + sentKey.length);
        for (int i = 0; i < value.length; i++) {
            if (i + self.length <= value.length && java.util.Arrays.equals(value, i, i + self.length, self, 0, self.length)) {
                out.writeBytes(sentKey);
                i += self.length - 1;
            } else {
                out.write(value[i]);
            }
        }
        return out.toByteArray();
    }

    /** The generator index of a generated input (origin {@code seed S #i}), or -1 for a corpus entry. */
    public int generatedIndex() {
        int hash = origin.lastIndexOf(" #");
        return origin.startsWith("seed ") && hash > 0 ? Integer.parseInt(origin.substring(hash + 2)) : -1;
    }

    /** Key plus value bytes. */
    public long sizeBytes() {
        return (key == null ? 0 : key.length) + (value == null ? 0 : value.length);
    }

    /** One line for failure reports: origin, kind, sizes, and the start of the value. */
    public String describe() {
        return origin + " [" + kind + "] key " + (key == null ? "null" : key.length + " B " + placement)
                + ", value " + (value == null ? "null" : value.length + " B " + preview(value))
                + (timestampMs == null ? "" : ", timestamp " + timestampMs)
                + (live == null ? "" : ", live " + live);
    }

    private static String preview(byte[] bytes) {
        StringBuilder text = new StringBuilder("\"");
        for (int i = 0; i < Math.min(bytes.length, 60); i++) {
            int b = bytes[i] & 0xff;
            text.append(b >= 0x20 && b < 0x7f ? String.valueOf((char) b) : String.format("\\x%02x", b));
        }
        return text.append(bytes.length > 60 ? "\"..." : "\"").toString();
    }

    static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
