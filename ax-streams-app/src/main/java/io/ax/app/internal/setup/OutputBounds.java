package io.ax.app.internal.setup;

/**
 * How large any record the scheduler writes can be. Every field of every output is bounded at input (ids,
 * jobType and owner at 256 chars or fewer, reasons and failure messages at 4 KiB, progress at 4 KiB, 20 errors
 * per execution, 100 backoff intervals), so the largest output is the largest payload plus a fixed amount for
 * the rest; the stored task (changelog) is the largest of them. Topics and the producer must take records of
 * that size ({@link TopicSetup} checks them at start).
 */
public final class OutputBounds {
    /**
     * Room for everything but the payload, bytes: 20 errors x 4 KiB messages, a last error, progress, ids, the
     * request's other fields and Avro/JSON framing, with headroom.
     */
    public static final int FIELDS_BYTES = 128 * 1024;

    private OutputBounds() {
    }

    /** The largest record (key + value + headers) the scheduler writes with payloads of at most {@code maxPayloadBytes}. */
    public static int maxRecordBytes(int maxPayloadBytes) {
        return maxPayloadBytes + FIELDS_BYTES;
    }
}
