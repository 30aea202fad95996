package io.ax.codec;

import io.ax.InvalidRequestException;
import io.ax.schema.AdoptRequest;
import io.ax.schema.CancelRequest;
import io.ax.schema.DeadLetter;
import io.ax.schema.DispatchTask;
import io.ax.schema.ExecutionReport;
import io.ax.schema.PauseRequest;
import io.ax.schema.ReplayRequest;
import io.ax.schema.ResumeRequest;
import io.ax.schema.RetryRecord;
import io.ax.schema.ScheduleRequest;
import io.ax.schema.StoredTask;
import io.ax.schema.TriggerRequest;
import io.ax.validation.Quote;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.message.BinaryMessageDecoder;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.avro.message.SchemaStore;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;

/**
 * Avro single-object encoding ({@code C3 01}, 8-byte fingerprint, Avro binary) for every ax record, and
 * decoding of input topics that accept either that or JSON (told apart by the first byte).
 *
 * <p>Thread-safe: Avro's message encoders and decoders are.
 */
public final class WireCodec {
    static {
        AvroTrust.ensureAxSchemasTrusted();
    }

    /** Most collection items (array elements, map entries) one decoded record may hold. */
    public static final int MAX_COLLECTION_ITEMS = AvroBounds.MAX_ITEMS;

    private static final byte MAGIC_0 = (byte) 0xC3;
    private static final byte MAGIC_1 = (byte) 0x01;
    private static final int HEADER_BYTES = 10;

    private static final SchemaStore STORE = AxSchemas.store();
    /**
     * The current ScheduleRequest schema as {@link AxSchemas#byFingerprint} holds it: a request written under it is read
     * by the task record's own reader ({@link StoredTaskCodec#readRequest}), not Avro's generic one.
     */
    private static final Schema CURRENT_REQUEST = AxSchemas.byFingerprint().get(AxSchemas.fingerprint(ScheduleRequest.getClassSchema()));
    private static final Map<Class<?>, BinaryMessageDecoder<?>> DECODERS = withPauseAndResume(Map.of(
            ScheduleRequest.class, decoderFor(ScheduleRequest.getClassSchema()),
            CancelRequest.class, decoderFor(CancelRequest.getClassSchema()),
            DispatchTask.class, decoderFor(DispatchTask.getClassSchema()),
            ExecutionReport.class, decoderFor(ExecutionReport.getClassSchema()),
            StoredTask.class, decoderFor(StoredTask.getClassSchema()),
            ReplayRequest.class, decoderFor(ReplayRequest.getClassSchema()),
            RetryRecord.class, decoderFor(RetryRecord.getClassSchema()),
            DeadLetter.class, decoderFor(DeadLetter.getClassSchema()),
            AdoptRequest.class, decoderFor(AdoptRequest.getClassSchema()),
            TriggerRequest.class, decoderFor(TriggerRequest.getClassSchema())));


    private static final Map<Schema, BinaryMessageEncoder<SpecificRecord>> ENCODERS = new ConcurrentHashMap<>();

    /**
     * Writes records with the field-by-field coders Avro generates for records whose unions are all {@code [null, X]}
     * (DispatchTask, StateChange, ExecutionReport, StoredExecution, ...): Avro leaves them off unless asked, and its
     * schema-driven writer took twice as long. The bytes are the same ({@code WireCodecTest}).
     */
    private static final SpecificData WRITING = withCustomCoders();

    private WireCodec() {
    }

    private static SpecificData withCustomCoders() {
        SpecificData data = new SpecificData();
        data.setCustomCoders(true);
        return data;
    }

    private static <T> BinaryMessageDecoder<T> decoderFor(Schema readerSchema) {
        return new BinaryMessageDecoder<>(SpecificData.getForSchema(readerSchema), readerSchema, STORE);
    }

    /** The request kinds pause and resume, beyond the ten {@code Map.of} takes. */
    private static Map<Class<?>, BinaryMessageDecoder<?>> withPauseAndResume(Map<Class<?>, BinaryMessageDecoder<?>> decoders) {
        Map<Class<?>, BinaryMessageDecoder<?>> all = new java.util.HashMap<>(decoders);
        all.put(PauseRequest.class, decoderFor(PauseRequest.getClassSchema()));
        all.put(ResumeRequest.class, decoderFor(ResumeRequest.getClassSchema()));
        all.put(io.ax.schema.CalendarRequest.class, decoderFor(io.ax.schema.CalendarRequest.getClassSchema()));
        all.put(io.ax.schema.DependencySignal.class, decoderFor(io.ax.schema.DependencySignal.getClassSchema()));
        return Map.copyOf(all);
    }

    /** Single-object encoding of any generated ax record. */
    public static byte[] encode(SpecificRecord record) {
        // An encoder computes its schema's fingerprint when built (schema normalisation, CRC-64): build each once.
        BinaryMessageEncoder<SpecificRecord> encoder = ENCODERS.computeIfAbsent(record.getSchema(),
                schema -> new BinaryMessageEncoder<>(WRITING, schema));
        try {
            ByteBuffer buffer = encoder.encode(record);
            byte[] bytes = new byte[buffer.remaining()];
            buffer.get(bytes);
            return bytes;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static boolean isSingleObject(byte[] bytes) {
        return bytes != null && bytes.length >= 2 && bytes[0] == MAGIC_0 && bytes[1] == MAGIC_1;
    }

    /**
     * Decodes a value from {@code ax.requests}: a {@link ScheduleRequest}, {@link CancelRequest}, {@link ReplayRequest},
     * {@link TriggerRequest}, {@link PauseRequest} or {@link ResumeRequest},
     * single-object encoded or in the JSON forms of {@link JsonForms}; or an {@link AdoptRequest} (written by
     * {@code ./ax migrate}), single-object encoded only: it has no JSON form.
     *
     * @throws InvalidRequestException naming what is wrong with the bytes
     */
    public static SpecificRecord decodeRequest(byte[] bytes) {
        if (isSingleObject(bytes)) {
            Schema writer = writerSchema(bytes);
            if (writer.getFullName().equals(ScheduleRequest.getClassSchema().getFullName())) {
                return decodeBinary(bytes, ScheduleRequest.class);
            }
            if (writer.getFullName().equals(CancelRequest.getClassSchema().getFullName())) {
                return decodeBinary(bytes, CancelRequest.class);
            }
            if (writer.getFullName().equals(ReplayRequest.getClassSchema().getFullName())) {
                return decodeBinary(bytes, ReplayRequest.class);
            }
            if (writer.getFullName().equals(TriggerRequest.getClassSchema().getFullName())) {
                return decodeBinary(bytes, TriggerRequest.class);
            }
            if (writer.getFullName().equals(PauseRequest.getClassSchema().getFullName())) {
                return decodeBinary(bytes, PauseRequest.class);
            }
            if (writer.getFullName().equals(ResumeRequest.getClassSchema().getFullName())) {
                return decodeBinary(bytes, ResumeRequest.class);
            }
            if (writer.getFullName().equals(AdoptRequest.getClassSchema().getFullName())) {
                return decodeBinary(bytes, AdoptRequest.class);
            }
            if (writer.getFullName().equals(io.ax.schema.CalendarRequest.getClassSchema().getFullName())) {
                return decodeBinary(bytes, io.ax.schema.CalendarRequest.class);
            }
            throw new InvalidRequestException(null, "expected a ScheduleRequest, CancelRequest, ReplayRequest, TriggerRequest,"
                    + " PauseRequest, ResumeRequest or CalendarRequest (or an AdoptRequest"
                    + " from ./ax migrate) on the requests topic, got " + writer.getFullName());
        }
        return JsonForms.parseRequest(requireJson(bytes));
    }

    /**
     * Decodes a calendar as the calendars topic holds it: a {@link io.ax.schema.CalendarRequest} written as one (single-object
     * encoded, or its JSON form {@code {"calendar":{...}}}), and nothing else. A record of another type is refused even
     * where Avro's schema resolution would read it (every field of a calendar has a default, so any record would read
     * as an empty calendar).
     *
     * @throws InvalidRequestException naming what the bytes are instead
     */
    public static io.ax.schema.CalendarRequest decodeCalendar(byte[] bytes) {
        if (bytes == null) {
            throw new InvalidRequestException(null, "no value");
        }
        if (isSingleObject(bytes)) {
            Schema writer = writerSchema(bytes);
            if (!writer.getFullName().equals(io.ax.schema.CalendarRequest.getClassSchema().getFullName())) {
                throw new InvalidRequestException(null, "expected a CalendarRequest, got " + writer.getFullName());
            }
            return decodeBinary(bytes, io.ax.schema.CalendarRequest.class);
        }
        SpecificRecord record = JsonForms.parseRequest(requireJson(bytes));
        if (!(record instanceof io.ax.schema.CalendarRequest calendar)) {
            throw new InvalidRequestException(null, "expected a CalendarRequest, got the JSON form of a " + record.getSchema().getName());
        }
        return calendar;
    }

    /** Decodes a value from {@code ax.results}: single-object encoded or JSON. */
    public static ExecutionReport decodeReport(byte[] bytes) {
        if (isSingleObject(bytes)) {
            return decodeBinary(bytes, ExecutionReport.class);
        }
        return JsonForms.parseReport(requireJson(bytes));
    }

    /** Decodes a single-object encoded record whose writer schema resolves to {@code type}. */
    public static <T> T decodeBinary(byte[] bytes, Class<T> type) {
        if (!isSingleObject(bytes)) {
            throw new InvalidRequestException(null, "not Avro single-object encoding (expected first bytes C3 01)");
        }
        Schema writer = writerSchema(bytes);
        try {
            AvroBounds.check(bytes, HEADER_BYTES, writer);
        } catch (InvalidRequestException e) {
            throw new InvalidRequestException(null, "cannot decode " + writer.getFullName() + " as " + type.getSimpleName()
                    + ": " + e.getMessage(), e);
        }
        BinaryMessageDecoder<T> decoder = decoder(type);
        try {
            if (writer == CURRENT_REQUEST && type == ScheduleRequest.class) {
                return type.cast(StoredTaskCodec.readRequest(bytes));
            }
            return decoder.decode(bytes);
        } catch (IOException | RuntimeException e) {
            throw new InvalidRequestException(null, "cannot decode " + writer.getFullName() + " as " + type.getSimpleName()
                    + ": " + Quote.truncate(String.valueOf(e.getMessage()), 300), e);
        }
    }

    /**
     * Decodes a record this program's own stores wrote (a state store's value, read back from RocksDB or its changelog),
     * without {@link #decodeBinary}'s bounds walk over the bytes: the store's writer encoded it from a record in memory,
     * so its lengths and counts are those of a real record. Input from a topic others write goes through
     * {@link #decodeBinary}.
     */
    public static <T> T decodeStored(byte[] bytes, Class<T> type) {
        if (!isSingleObject(bytes)) {
            throw new IllegalStateException("a stored " + type.getSimpleName() + " is not Avro single-object encoding");
        }
        try {
            return decoder(type).decode(bytes);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot decode a stored " + type.getSimpleName(), e);
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> BinaryMessageDecoder<T> decoder(Class<T> type) {
        BinaryMessageDecoder<T> decoder = (BinaryMessageDecoder<T>) DECODERS.get(type);
        if (decoder == null) {
            throw new IllegalArgumentException("no decoder for " + type.getName());
        }
        return decoder;
    }

    private static Schema writerSchema(byte[] bytes) {
        if (bytes.length < HEADER_BYTES) {
            throw new InvalidRequestException(null, "truncated single-object record: " + bytes.length + " bytes");
        }
        long fingerprint = ByteBuffer.wrap(bytes, 2, 8).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
        Schema writer = AxSchemas.byFingerprint().get(fingerprint);
        if (writer == null) {
            throw new InvalidRequestException(null, "unknown schema fingerprint " + AxSchemas.hexLittleEndian(fingerprint)
                    + " (not an ax schema, or written by a newer ax)");
        }
        return writer;
    }

    private static byte[] requireJson(byte[] bytes) {
        if (bytes == null || bytes.length == 0) {
            throw new InvalidRequestException(null, "empty value");
        }
        for (byte b : bytes) {
            if (b == '{') {
                return bytes;
            }
            if (b != ' ' && b != '\t' && b != '\r' && b != '\n') {
                break;
            }
        }
        throw new InvalidRequestException(null, "neither Avro single-object encoding (C3 01 ...) nor a JSON object ({...})");
    }
}
