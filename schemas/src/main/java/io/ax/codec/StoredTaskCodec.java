package io.ax.codec;

import io.ax.schema.AtTrigger;
import io.ax.schema.AttemptError;
import io.ax.schema.CalendarSkips;
import io.ax.schema.CronTrigger;
import io.ax.schema.DelayTrigger;
import io.ax.schema.Dependency;
import io.ax.schema.DependencyCondition;
import io.ax.schema.IfExists;
import io.ax.schema.IntervalTrigger;
import io.ax.schema.MisfirePolicy;
import io.ax.schema.OverlapPolicy;
import io.ax.schema.ScheduleRequest;
import io.ax.schema.ShardFailurePolicy;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredHistoryEntry;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.Encoder;
import org.apache.avro.io.EncoderFactory;

/**
 * The task store's own codec: a {@link StoredTask} in Avro single-object encoding of the current StoredTask schema,
 * written and read field by field, without Avro's schema-driven datum writer and reader.
 *
 * <p>Why it exists: the scheduler encodes the task record on every change and decodes it on every decision, and Avro's
 * generic path (field lookups by position, union resolution by schema name, a resolving parser) made that a fifth of a
 * fire's CPU. Avro generates such field-by-field coders itself ("custom coders") only for records whose unions are all
 * {@code [null, X]}; the request's four-branch trigger union rules them out for ScheduleRequest and so for StoredTask.
 * The nested records that have generated coders ({@link StoredExecution}, {@link StoredHistoryEntry}, ...) are written
 * with them; the ones around the trigger union, and every read, are here. The request's reader also reads the requests
 * topic's ScheduleRequests written under the current schema ({@link #readRequest(byte[])}, after the bounds walk).
 *
 * <p>The bytes are Avro's, exactly: {@code StoredTaskCodecTest} compares this codec with Avro's writer and reader over
 * random tasks that fill every field and every union branch, and fails naming the field when the schema gained one
 * this class does not know (the all-arguments constructors used here also stop compiling). A record written under an
 * older StoredTask schema (another fingerprint) is read through Avro's schema resolution, as before.
 *
 * <p>Thread-safe: each thread has its own buffer, encoder and decoder.
 */
public final class StoredTaskCodec {
    private static final byte MAGIC_0 = (byte) 0xC3;
    private static final byte MAGIC_1 = (byte) 0x01;
    private static final int HEADER_BYTES = 10;
    private static final long FINGERPRINT = SchemaNormalization.parsingFingerprint64(StoredTask.getClassSchema());

    private static final TaskState[] STATES = TaskState.values();
    private static final IfExists[] IF_EXISTS = IfExists.values();
    private static final MisfirePolicy[] MISFIRES = MisfirePolicy.values();
    private static final OverlapPolicy[] OVERLAPS = OverlapPolicy.values();
    private static final ShardFailurePolicy[] SHARD_FAILURES = ShardFailurePolicy.values();
    private static final DependencyCondition[] CONDITIONS = DependencyCondition.values();

    private static final ThreadLocal<Writing> WRITING = ThreadLocal.withInitial(Writing::new);
    private static final ThreadLocal<BinaryDecoder[]> READING = ThreadLocal.withInitial(() -> new BinaryDecoder[1]);

    private StoredTaskCodec() {
    }

    /** The task in single-object encoding under the current StoredTask schema. */
    public static byte[] encode(StoredTask task) {
        Writing writing = WRITING.get();
        writing.buffer.reset();
        writing.buffer.write(MAGIC_0);
        writing.buffer.write(MAGIC_1);
        for (int i = 0; i < 8; i++) {
            writing.buffer.write((int) (FINGERPRINT >>> (8 * i)));
        }
        try {
            BinaryEncoder out = writing.encoder = EncoderFactory.get().binaryEncoder(writing.buffer, writing.encoder);
            writeTask(task, out);
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // the buffer is memory: cannot happen
        }
        return writing.buffer.toByteArray();
    }

    /** Reads what {@link #encode} (or Avro's own writer, of this or an older StoredTask schema) wrote. */
    public static StoredTask decode(byte[] bytes) {
        if (!isCurrent(bytes)) {
            return WireCodec.decodeStored(bytes, StoredTask.class);
        }
        BinaryDecoder[] reuse = READING.get();
        BinaryDecoder in = reuse[0] = DecoderFactory.get().binaryDecoder(bytes, HEADER_BYTES, bytes.length - HEADER_BYTES, reuse[0]);
        try {
            StoredTask task = readTask(in);
            if (!in.isEnd()) {
                throw new IllegalStateException("a stored StoredTask has bytes after its last field");
            }
            return task;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot decode a stored StoredTask", e);
        }
    }

    /**
     * A {@link ScheduleRequest} single-object encoded under the current ScheduleRequest schema (the caller has checked
     * its fingerprint), read field by field as the task record's own request is (Avro's generic reader was a twentieth of
     * an accept's stream-thread CPU). The bytes come from a producer: the caller has walked them with {@code AvroBounds}
     * first, so every length, count and index here is in range. Like Avro's message decoder, bytes after the last field
     * are not looked at.
     */
    static ScheduleRequest readRequest(byte[] bytes) throws IOException {
        BinaryDecoder[] reuse = READING.get();
        BinaryDecoder in = reuse[0] = DecoderFactory.get().binaryDecoder(bytes, HEADER_BYTES, bytes.length - HEADER_BYTES, reuse[0]);
        return readRequest(in);
    }

    private static boolean isCurrent(byte[] bytes) {
        if (bytes.length < HEADER_BYTES || bytes[0] != MAGIC_0 || bytes[1] != MAGIC_1) {
            return false;
        }
        long fingerprint = 0;
        for (int i = 7; i >= 0; i--) {
            fingerprint = (fingerprint << 8) | (bytes[2 + i] & 0xFF);
        }
        return fingerprint == FINGERPRINT;
    }

    // ---- writing: the fields in schema order; records with generated coders write themselves

    private static void writeTask(StoredTask t, Encoder out) throws IOException {
        out.writeString(t.getTaskId());
        out.writeLong(t.getIncarnation());
        writeRequest(t.getRequest(), out);
        out.writeLong(t.getAcceptedAtMs());
        writeOptionalLong(t.getNextDueAtMs(), out);
        out.writeLong(t.getOccurrences());
        if (t.getExecution() == null) {
            out.writeIndex(0);
            out.writeNull();
        } else {
            out.writeIndex(1);
            t.getExecution().customEncode(out);
        }
        out.writeBoolean(t.getCancelled());
        writeOptionalLong(t.getFinishedAtMs(), out);
        writeOptionalLong(t.getPurgeAtMs(), out);
        out.writeBoolean(t.getCatchUpHeld());
        writeOptionalLong(t.getQueuedDueAtMs(), out);
        writeOptionalLong(t.getPausedAtMs(), out);
        writeExecutions(t.getAlongside(), out);
        if (t.getCalendarSkips() == null) {
            out.writeIndex(0);
            out.writeNull();
        } else {
            out.writeIndex(1);
            t.getCalendarSkips().customEncode(out);
        }
        writeOptionalLong(t.getWaitTimeoutAtMs(), out);
        Map<String, String> outcomes = t.getDependencyOutcomes();
        out.writeMapStart();
        out.setItemCount(outcomes.size());
        for (Map.Entry<String, String> outcome : outcomes.entrySet()) {
            out.startItem();
            out.writeString(outcome.getKey());
            out.writeString(outcome.getValue());
        }
        out.writeMapEnd();
        writeExecutions(t.getSlices(), out);
        writeOptionalString(t.getShardsOutcome(), out);
        writeOptionalString(t.getAdmissionGate(), out);
        writeOptionalString(t.getAdmissionId(), out);
        writeOptionalLong(t.getAdmissionSinceMs(), out);
        List<StoredHistoryEntry> history = t.getHistory();
        out.writeArrayStart();
        out.setItemCount(history.size());
        for (StoredHistoryEntry entry : history) {
            out.startItem();
            entry.customEncode(out);
        }
        out.writeArrayEnd();
        Map<String, Long> nominal = t.getUpstreamNominalAtMs();
        out.writeMapStart();
        out.setItemCount(nominal.size());
        for (Map.Entry<String, Long> entry : nominal.entrySet()) {
            out.startItem();
            out.writeString(entry.getKey());
            out.writeLong(entry.getValue());
        }
        out.writeMapEnd();
        writeOptionalLong(t.getPreviousDueAtMs(), out);
    }

    private static void writeRequest(ScheduleRequest r, Encoder out) throws IOException {
        out.writeString(r.getJobType());
        writeTrigger(r.getTrigger(), out);
        if (r.getPayload() == null) {
            out.writeIndex(0);
            out.writeNull();
        } else {
            out.writeIndex(1);
            out.writeBytes(r.getPayload()); // Avro's encoder leaves the buffer's position where it was (a test holds it)
        }
        out.writeInt(r.getPriority());
        writeOptionalString(r.getOwner(), out);
        writeOptionalLong(r.getTimeoutMs(), out);
        out.writeInt(r.getMaxRetries());
        writeOptionalLong(r.getBackoffMs(), out);
        List<Long> intervals = r.getBackoffIntervalsMs();
        out.writeArrayStart();
        out.setItemCount(intervals.size());
        for (Long interval : intervals) {
            out.startItem();
            out.writeLong(interval);
        }
        out.writeArrayEnd();
        out.writeBoolean(r.getJitter());
        out.writeEnum(r.getIfExists().ordinal());
        writeOptionalLong(r.getEndAtMs(), out);
        writeOptionalLong(r.getMaxOccurrences(), out);
        out.writeEnum(r.getMisfire().ordinal());
        out.writeInt(r.getMaxCatchUp());
        out.writeLong(r.getOccurrenceJitterMs());
        out.writeEnum(r.getOverlap().ordinal());
        writeOptionalLong(r.getScheduleToStartTimeoutMs(), out);
        writeOptionalLong(r.getStartToCloseTimeoutMs(), out);
        writeOptionalLong(r.getHeartbeatTimeoutMs(), out);
        writeOptionalString(r.getCalendar(), out);
        List<Dependency> after = r.getAfter();
        out.writeArrayStart();
        out.setItemCount(after.size());
        for (Dependency dependency : after) {
            out.startItem();
            dependency.customEncode(out);
        }
        out.writeArrayEnd();
        out.writeLong(r.getAfterDelayMs());
        out.writeLong(r.getAfterTimeoutMs());
        out.writeBoolean(r.getAfterRunAnyway());
        out.writeInt(r.getShards());
        out.writeEnum(r.getShardFailure().ordinal());
    }

    /** The trigger union's branches, in the schema's order: AtTrigger, DelayTrigger, IntervalTrigger, CronTrigger. */
    private static void writeTrigger(Object trigger, Encoder out) throws IOException {
        if (trigger instanceof AtTrigger at) {
            out.writeIndex(0);
            at.customEncode(out);
        } else if (trigger instanceof DelayTrigger delay) {
            out.writeIndex(1);
            delay.customEncode(out);
        } else if (trigger instanceof IntervalTrigger interval) {
            out.writeIndex(2);
            interval.customEncode(out);
        } else if (trigger instanceof CronTrigger cron) {
            out.writeIndex(3);
            cron.customEncode(out);
        } else {
            throw new IllegalArgumentException("not a trigger: " + (trigger == null ? "null" : trigger.getClass().getName()));
        }
    }

    private static void writeExecutions(List<StoredExecution> executions, Encoder out) throws IOException {
        out.writeArrayStart();
        out.setItemCount(executions.size());
        for (StoredExecution execution : executions) {
            out.startItem();
            execution.customEncode(out);
        }
        out.writeArrayEnd();
    }

    private static void writeOptionalLong(Long value, Encoder out) throws IOException {
        if (value == null) {
            out.writeIndex(0);
            out.writeNull();
        } else {
            out.writeIndex(1);
            out.writeLong(value);
        }
    }

    private static void writeOptionalString(String value, Encoder out) throws IOException {
        if (value == null) {
            out.writeIndex(0);
            out.writeNull();
        } else {
            out.writeIndex(1);
            out.writeString(value);
        }
    }

    // ---- reading: the same order; the all-arguments constructors stop compiling when a record gains a field

    private static StoredTask readTask(BinaryDecoder in) throws IOException {
        String taskId = in.readString();
        long incarnation = in.readLong();
        ScheduleRequest request = readRequest(in);
        long acceptedAtMs = in.readLong();
        Long nextDueAtMs = readOptionalLong(in);
        long occurrences = in.readLong();
        StoredExecution execution = isPresent(in) ? readExecution(in) : null;
        boolean cancelled = in.readBoolean();
        Long finishedAtMs = readOptionalLong(in);
        Long purgeAtMs = readOptionalLong(in);
        boolean catchUpHeld = in.readBoolean();
        Long queuedDueAtMs = readOptionalLong(in);
        Long pausedAtMs = readOptionalLong(in);
        List<StoredExecution> alongside = readExecutions(in);
        CalendarSkips calendarSkips = isPresent(in)
                ? new CalendarSkips(in.readString(), in.readLong(), readOptionalLong(in), readOptionalLong(in), in.readString())
                : null;
        Long waitTimeoutAtMs = readOptionalLong(in);
        Map<String, String> outcomes = new HashMap<>();
        for (long n = in.readMapStart(); n != 0; n = in.mapNext()) {
            for (long i = 0; i < n; i++) {
                outcomes.put(in.readString(), in.readString());
            }
        }
        List<StoredExecution> slices = readExecutions(in);
        String shardsOutcome = readOptionalString(in);
        String admissionGate = readOptionalString(in);
        String admissionId = readOptionalString(in);
        Long admissionSinceMs = readOptionalLong(in);
        List<StoredHistoryEntry> history = new ArrayList<>();
        for (long n = in.readArrayStart(); n != 0; n = in.arrayNext()) {
            for (long i = 0; i < n; i++) {
                history.add(new StoredHistoryEntry(readOptionalString(in), in.readString(), in.readLong(), readOptionalString(in),
                        isPresent(in) ? in.readInt() : null, readOptionalString(in), readOptionalString(in), readOptionalLong(in)));
            }
        }
        Map<String, Long> nominal = new HashMap<>();
        for (long n = in.readMapStart(); n != 0; n = in.mapNext()) {
            for (long i = 0; i < n; i++) {
                nominal.put(in.readString(), in.readLong());
            }
        }
        Long previousDueAtMs = readOptionalLong(in);
        return new StoredTask(taskId, incarnation, request, acceptedAtMs, nextDueAtMs, occurrences, execution, cancelled,
                finishedAtMs, purgeAtMs, catchUpHeld, queuedDueAtMs, pausedAtMs, alongside, calendarSkips, waitTimeoutAtMs,
                outcomes, slices, shardsOutcome, admissionGate, admissionId, admissionSinceMs, history, nominal, previousDueAtMs);
    }

    private static ScheduleRequest readRequest(BinaryDecoder in) throws IOException {
        String jobType = in.readString();
        Object trigger = readTrigger(in);
        ByteBuffer payload = isPresent(in) ? in.readBytes(null) : null;
        int priority = in.readInt();
        String owner = readOptionalString(in);
        Long timeoutMs = readOptionalLong(in);
        int maxRetries = in.readInt();
        Long backoffMs = readOptionalLong(in);
        List<Long> intervals = new ArrayList<>();
        for (long n = in.readArrayStart(); n != 0; n = in.arrayNext()) {
            for (long i = 0; i < n; i++) {
                intervals.add(in.readLong());
            }
        }
        boolean jitter = in.readBoolean();
        IfExists ifExists = IF_EXISTS[in.readEnum()];
        Long endAtMs = readOptionalLong(in);
        Long maxOccurrences = readOptionalLong(in);
        MisfirePolicy misfire = MISFIRES[in.readEnum()];
        int maxCatchUp = in.readInt();
        long occurrenceJitterMs = in.readLong();
        OverlapPolicy overlap = OVERLAPS[in.readEnum()];
        Long scheduleToStartTimeoutMs = readOptionalLong(in);
        Long startToCloseTimeoutMs = readOptionalLong(in);
        Long heartbeatTimeoutMs = readOptionalLong(in);
        String calendar = readOptionalString(in);
        List<Dependency> after = new ArrayList<>();
        for (long n = in.readArrayStart(); n != 0; n = in.arrayNext()) {
            for (long i = 0; i < n; i++) {
                after.add(new Dependency(in.readString(), CONDITIONS[in.readEnum()]));
            }
        }
        long afterDelayMs = in.readLong();
        long afterTimeoutMs = in.readLong();
        boolean afterRunAnyway = in.readBoolean();
        int shards = in.readInt();
        ShardFailurePolicy shardFailure = SHARD_FAILURES[in.readEnum()];
        return new ScheduleRequest(jobType, trigger, payload, priority, owner, timeoutMs, maxRetries, backoffMs, intervals, jitter,
                ifExists, endAtMs, maxOccurrences, misfire, maxCatchUp, occurrenceJitterMs, overlap, scheduleToStartTimeoutMs,
                startToCloseTimeoutMs, heartbeatTimeoutMs, calendar, after, afterDelayMs, afterTimeoutMs, afterRunAnyway, shards,
                shardFailure);
    }

    private static Object readTrigger(BinaryDecoder in) throws IOException {
        int branch = in.readIndex();
        return switch (branch) {
            case 0 -> new AtTrigger(in.readLong());
            case 1 -> new DelayTrigger(in.readLong());
            case 2 -> new IntervalTrigger(in.readLong(), readOptionalLong(in));
            case 3 -> new CronTrigger(in.readString(), in.readString());
            default -> throw new IllegalStateException("a stored trigger has union branch " + branch);
        };
    }

    private static List<StoredExecution> readExecutions(BinaryDecoder in) throws IOException {
        List<StoredExecution> executions = new ArrayList<>();
        for (long n = in.readArrayStart(); n != 0; n = in.arrayNext()) {
            for (long i = 0; i < n; i++) {
                executions.add(readExecution(in));
            }
        }
        return executions;
    }

    private static StoredExecution readExecution(BinaryDecoder in) throws IOException {
        String executionId = in.readString();
        int attempt = in.readInt();
        TaskState state = STATES[in.readEnum()];
        long dueAtMs = in.readLong();
        long firedAtMs = in.readLong();
        long lastSignMs = in.readLong();
        String lastError = readOptionalString(in);
        List<AttemptError> errors = new ArrayList<>();
        for (long n = in.readArrayStart(); n != 0; n = in.arrayNext()) {
            for (long i = 0; i < n; i++) {
                errors.add(new AttemptError(in.readInt(), in.readLong(), in.readBoolean(), in.readBoolean(), readOptionalString(in)));
            }
        }
        Long retryAtMs = readOptionalLong(in);
        String progress = readOptionalString(in);
        Long timeoutAtMs = readOptionalLong(in);
        String workerId = readOptionalString(in);
        Long startedAtMs = readOptionalLong(in);
        Long deadlineAtMs = readOptionalLong(in);
        Long heldSinceMs = readOptionalLong(in);
        List<String> gates = new ArrayList<>();
        for (long n = in.readArrayStart(); n != 0; n = in.arrayNext()) {
            for (long i = 0; i < n; i++) {
                gates.add(in.readString());
            }
        }
        Integer shard = isPresent(in) ? in.readInt() : null;
        return new StoredExecution(executionId, attempt, state, dueAtMs, firedAtMs, lastSignMs, lastError, errors, retryAtMs, progress,
                timeoutAtMs, workerId, startedAtMs, deadlineAtMs, heldSinceMs, gates, shard);
    }

    /** The branch of a {@code ["null", X]} union: true for X. */
    private static boolean isPresent(BinaryDecoder in) throws IOException {
        int branch = in.readIndex();
        if (branch == 0) {
            return false;
        }
        if (branch == 1) {
            return true;
        }
        throw new IllegalStateException("a stored optional field has union branch " + branch);
    }

    private static Long readOptionalLong(BinaryDecoder in) throws IOException {
        return isPresent(in) ? in.readLong() : null;
    }

    private static String readOptionalString(BinaryDecoder in) throws IOException {
        return isPresent(in) ? in.readString() : null;
    }

    /** A thread's encoding buffer and encoder, reused for every task it encodes. */
    private static final class Writing {
        final Buffer buffer = new Buffer();
        BinaryEncoder encoder;
    }

    /** A growable byte buffer without ByteArrayOutputStream's locks. */
    private static final class Buffer extends OutputStream {
        private byte[] bytes = new byte[1024];
        private int size;

        void reset() {
            size = 0;
        }

        @Override
        public void write(int b) {
            ensure(1);
            bytes[size++] = (byte) b;
        }

        @Override
        public void write(byte[] source, int offset, int length) {
            ensure(length);
            System.arraycopy(source, offset, bytes, size, length);
            size += length;
        }

        byte[] toByteArray() {
            return Arrays.copyOf(bytes, size);
        }

        private void ensure(int more) {
            if (size + more > bytes.length) {
                bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
            }
        }
    }
}
