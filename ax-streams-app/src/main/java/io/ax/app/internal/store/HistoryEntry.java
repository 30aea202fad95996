package io.ax.app.internal.store;

import io.ax.schema.StateChange;
import io.ax.schema.TaskState;
import io.ax.validation.Quote;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * One state change of a task as its history ({@link TaskHistory}) keeps it: the event's own fields as written to
 * {@code ax.state}, the reason cut to {@link #MAX_REASON_CHARS}, and the worker that held the attempt where the task
 * store knew it. Encoded at most about {@code 3 * (MAX_REASON_CHARS + 256 + 256) + 64} bytes (ids are bounded where
 * they enter).
 *
 * @param from        the previous state (a TaskState name), or null for a new execution
 * @param executionId the execution concerned (null only for events that have none)
 * @param attempt     the attempt concerned, or null
 * @param workerId    the reporting worker of that attempt, or null when no worker reported one (yet)
 * @param dueAtMs     the execution's due time, or null
 */
public record HistoryEntry(String from, TaskState to, long atMs, String executionId, Integer attempt, String reason,
                           String workerId, Long dueAtMs) {
    /** Longest reason (a failure message, a cancel reason) an entry keeps. */
    public static final int MAX_REASON_CHARS = 1000;

    static HistoryEntry of(StateChange change, String workerId) {
        return new HistoryEntry(change.getFrom(), change.getTo(), change.getAtMs(), change.getExecutionId(),
                change.getAttempt(), Quote.truncate(change.getReason(), MAX_REASON_CHARS), workerId, change.getDueAtMs());
    }

    byte[] encode() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(96);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(1); // format version
            NullableStrings.write(out, from);
            out.writeUTF(to.name());
            out.writeLong(atMs);
            NullableStrings.write(out, executionId);
            out.writeInt(attempt == null ? -1 : attempt);
            NullableStrings.write(out, reason);
            NullableStrings.write(out, workerId);
            out.writeBoolean(dueAtMs != null);
            out.writeLong(dueAtMs == null ? 0 : dueAtMs);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static HistoryEntry decode(byte[] bytes) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            in.readByte();
            String from = NullableStrings.read(in);
            TaskState to = TaskState.valueOf(in.readUTF());
            long atMs = in.readLong();
            String executionId = NullableStrings.read(in);
            int attempt = in.readInt();
            String reason = NullableStrings.read(in);
            String workerId = NullableStrings.read(in);
            boolean hasDue = in.readBoolean();
            long dueAtMs = in.readLong();
            return new HistoryEntry(from, to, atMs, executionId, attempt < 0 ? null : attempt, reason, workerId,
                    hasDue ? dueAtMs : null);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
