package io.ax.app.internal.core;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.UUID;

/**
 * Execution ids are deterministic: a name-based UUID of (taskId, incarnation, due time). Re-processing the
 * same input yields the same id, and a task re-created under the same taskId (a new incarnation, the
 * offset of its request) never reuses an old one, so workers' idempotency keys stay sound.
 */
public final class ExecutionIds {
    private ExecutionIds() {
    }

    /** One MD5 per thread: {@code UUID.nameUUIDFromBytes} looks a new one up for every id (a provider search). */
    private static final ThreadLocal<MessageDigest> MD5 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new InternalError("MD5 not supported", e);
        }
    });

    public static String of(String taskId, long incarnation, long dueAtMs) {
        String name = "ax-execution\n" + taskId + "\n" + incarnation + "\n" + dueAtMs;
        return nameUuid(name.getBytes(StandardCharsets.UTF_8)).toString();
    }

    /** The same UUID as {@code UUID.nameUUIDFromBytes(name)} (version 3, IETF variant). */
    static UUID nameUuid(byte[] name) {
        byte[] md5 = MD5.get().digest(name);
        md5[6] &= 0x0f;
        md5[6] |= 0x30;
        md5[8] &= 0x3f;
        md5[8] |= (byte) 0x80;
        long msb = 0;
        long lsb = 0;
        for (int i = 0; i < 8; i++) {
            msb = (msb << 8) | (md5[i] & 0xff);
        }
        for (int i = 8; i < 16; i++) {
            lsb = (lsb << 8) | (md5[i] & 0xff);
        }
        return new UUID(msb, lsb);
    }
}
