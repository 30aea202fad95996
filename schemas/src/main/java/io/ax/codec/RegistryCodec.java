package io.ax.codec;

import io.ax.InvalidRequestException;
import io.ax.codec.RegistrySchemas.UnavailableSchemaException;
import io.ax.schema.AdoptRequest;
import io.ax.schema.CancelRequest;
import io.ax.schema.ExecutionReport;
import io.ax.schema.ReplayRequest;
import io.ax.schema.ScheduleRequest;
import io.ax.schema.TriggerRequest;
import io.ax.validation.Quote;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;

/**
 * ax's input decoding with the schema-registry wire format ({@link RegistryWire}) added in front of
 * {@link WireCodec}: a record starting with byte 0 has its writer schema fetched by id ({@link RegistrySchemas}) and
 * resolved against ax's reader schema with Avro's schema resolution, so a producer on an older or newer compatible
 * version works; every other record goes to {@link WireCodec} unchanged. The writer schema's record name tells which
 * request a record on {@code ax.requests} is, as the single-object fingerprint's schema does in
 * {@link WireCodec#decodeRequest}.
 *
 * <p>{@link #NONE} (no registry configured) refuses registry-format records with a reason that says so. Every failure
 * is an {@link InvalidRequestException}, which the scheduler turns into a REJECTED event.
 *
 * <p>Thread-safe.
 */
public final class RegistryCodec {
    static {
        AvroTrust.ensureAxSchemasTrusted();
    }

    /** Decoding without a registry: registry-format records are refused. */
    public static final RegistryCodec NONE = new RegistryCodec(null);

    private static final Map<String, Class<? extends SpecificRecord>> REQUESTS = byName(List.of(ScheduleRequest.class,
            CancelRequest.class, ReplayRequest.class, TriggerRequest.class, AdoptRequest.class));
    private static final int MAX_READERS = 4_096;

    private final RegistrySchemas schemas;
    /** Per (schema id, reader type): a resolving reader, or the reason the writer cannot be read as that type. */
    private final Map<String, Object> readers = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Object> eldest) {
            return size() > MAX_READERS;
        }
    };

    private RegistryCodec(RegistrySchemas schemas) {
        this.schemas = schemas;
    }

    /** Decoding with the registry of {@code settings}. */
    public static RegistryCodec of(RegistrySettings settings, Clock clock) {
        return new RegistryCodec(new RegistrySchemas(new SchemaRegistryClient(settings), settings, clock));
    }

    /** A codec for {@code settings} if there are any, else {@link #NONE}. */
    public static RegistryCodec of(Optional<RegistrySettings> settings, Clock clock) {
        return settings.map(s -> of(s, clock)).orElse(NONE);
    }

    /** As {@link WireCodec#decodeRequest}, and the registry format. */
    public SpecificRecord decodeRequest(byte[] bytes) {
        if (!RegistryWire.isRegistryFormat(bytes)) {
            return WireCodec.decodeRequest(bytes);
        }
        int id = RegistryWire.schemaId(bytes);
        Schema writer = writerSchema(id);
        Class<? extends SpecificRecord> type = REQUESTS.get(writer.getFullName());
        if (type == null) {
            throw new InvalidRequestException(null, "schema id " + id + " is " + writer.getFullName() + "; expected a ScheduleRequest,"
                    + " CancelRequest, ReplayRequest or TriggerRequest (namespace io.ax.schema) on the requests topic");
        }
        return read(bytes, id, writer, type);
    }

    /** As {@link WireCodec#decodeReport}, and the registry format. */
    public ExecutionReport decodeReport(byte[] bytes) {
        if (!RegistryWire.isRegistryFormat(bytes)) {
            return WireCodec.decodeReport(bytes);
        }
        return decodeRegistry(bytes, ExecutionReport.class);
    }

    /** As {@link WireCodec#decodeBinary}, and the registry format (a worker reading dispatches either way). */
    public <T extends SpecificRecord> T decodeBinary(byte[] bytes, Class<T> type) {
        if (!RegistryWire.isRegistryFormat(bytes)) {
            return WireCodec.decodeBinary(bytes, type);
        }
        return decodeRegistry(bytes, type);
    }

    private <T extends SpecificRecord> T decodeRegistry(byte[] bytes, Class<T> type) {
        int id = RegistryWire.schemaId(bytes);
        return read(bytes, id, writerSchema(id), type);
    }

    private Schema writerSchema(int id) {
        if (schemas == null) {
            throw new InvalidRequestException(null, "schema-registry wire format (00 + schema id " + id + ") but this ax has no"
                    + " schema registry configured (ax.schema.registry.url)");
        }
        try {
            return schemas.writerSchema(id);
        } catch (UnavailableSchemaException e) {
            throw new InvalidRequestException(null, e.getMessage());
        }
    }

    private <T> T read(byte[] bytes, int id, Schema writer, Class<T> type) {
        Schema reader = SpecificData.get().getSchema(type);
        SpecificDatumReader<T> datumReader = resolving(id, writer, reader, type);
        try {
            AvroBounds.check(bytes, RegistryWire.HEADER_BYTES, writer);
        } catch (InvalidRequestException e) {
            throw new InvalidRequestException(null, "cannot decode schema id " + id + " (" + writer.getFullName() + ") as "
                    + type.getSimpleName() + ": " + e.getMessage(), e);
        }
        BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(bytes, RegistryWire.HEADER_BYTES,
                bytes.length - RegistryWire.HEADER_BYTES, null);
        try {
            T value = datumReader.read(null, decoder);
            if (!decoder.isEnd()) {
                throw new InvalidRequestException(null, "schema id " + id + " (" + writer.getFullName() + "): bytes left after the record");
            }
            return value;
        } catch (IOException | RuntimeException e) {
            if (e instanceof InvalidRequestException invalid) {
                throw invalid;
            }
            throw new InvalidRequestException(null, "cannot decode schema id " + id + " (" + writer.getFullName() + ") as "
                    + type.getSimpleName() + ": " + Quote.truncate(String.valueOf(e.getMessage()), 300), e);
        }
    }

    @SuppressWarnings("unchecked")
    private <T> SpecificDatumReader<T> resolving(int id, Schema writer, Schema reader, Class<T> type) {
        String key = id + "/" + type.getName();
        Object known;
        synchronized (readers) {
            known = readers.get(key);
        }
        if (known == null) {
            SchemaCompatibility.SchemaPairCompatibility compatibility = SchemaCompatibility.checkReaderWriterCompatibility(reader, writer);
            if (compatibility.getType() == SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE) {
                known = new SpecificDatumReader<T>(writer, reader, SpecificData.getForSchema(reader));
            } else {
                known = "schema id " + id + " (" + writer.getFullName() + ") cannot be read as ax's " + type.getSimpleName()
                        + ": " + Quote.truncate(describe(compatibility), 400);
            }
            synchronized (readers) {
                readers.put(key, known);
            }
        }
        if (known instanceof String reason) {
            throw new InvalidRequestException(null, reason);
        }
        return (SpecificDatumReader<T>) known;
    }

    /** The incompatibilities, each with the field path it is at: "/fields/1/type: reader type: LONG not compatible with ...". */
    static String describe(SchemaCompatibility.SchemaPairCompatibility compatibility) {
        return compatibility.getResult().getIncompatibilities().stream()
                .map(i -> i.getLocation() + ": " + i.getType() + " " + i.getMessage())
                .collect(Collectors.joining("; "));
    }

    /** The Avro binary body of a record, without any header (to frame with {@link RegistryWire#frame}). */
    public static byte[] avroBody(SpecificRecord record) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
        try {
            new SpecificDatumWriter<SpecificRecord>(record.getSchema()).write(record, encoder);
            encoder.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /** The registry wire format of a record whose schema is registered as {@code id}. */
    public static byte[] encode(SpecificRecord record, int id) {
        return RegistryWire.frame(id, avroBody(record));
    }

    private static Map<String, Class<? extends SpecificRecord>> byName(List<Class<? extends SpecificRecord>> types) {
        Map<String, Class<? extends SpecificRecord>> byName = new LinkedHashMap<>();
        types.forEach(type -> byName.put(SpecificData.get().getSchema(type).getFullName(), type));
        return Map.copyOf(byName);
    }
}
