package io.ax.codec;

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
import io.ax.schema.StateChange;
import io.ax.schema.StoredTask;
import io.ax.schema.TriggerRequest;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.message.SchemaStore;

/**
 * Every schema ax has ever written, by single-object fingerprint (CRC-64-AVRO of the parsing canonical
 * form, as in {@code C3 01} + 8 bytes little-endian + Avro binary).
 *
 * <p>Current schemas come from the generated classes; older released versions are shipped as resources
 * under {@code io/ax/schema/history/} (listed in its {@code index.txt}) so readers resolve old writers.
 * Run {@code main} to print the fingerprint map that non-Java clients use ({@code schemas/fingerprints.json}).
 */
public final class AxSchemas {
    private static final String HISTORY = "/io/ax/schema/history/";

    private static final List<Schema> CURRENT = List.of(
            ScheduleRequest.getClassSchema(), CancelRequest.getClassSchema(), DispatchTask.getClassSchema(),
            ExecutionReport.getClassSchema(), StateChange.getClassSchema(), StoredTask.getClassSchema(),
            ReplayRequest.getClassSchema(), RetryRecord.getClassSchema(), DeadLetter.getClassSchema(),
            AdoptRequest.getClassSchema(), TriggerRequest.getClassSchema(), PauseRequest.getClassSchema(),
            ResumeRequest.getClassSchema(), io.ax.schema.CalendarRequest.getClassSchema(),
            io.ax.schema.DependencySignal.getClassSchema());

    private static final Map<Long, Schema> BY_FINGERPRINT = load();

    private AxSchemas() {
    }

    public static List<Schema> current() {
        return CURRENT;
    }

    /** Every known schema, current and historical, by fingerprint. */
    public static Map<Long, Schema> byFingerprint() {
        return BY_FINGERPRINT;
    }

    public static long fingerprint(Schema schema) {
        return SchemaNormalization.parsingFingerprint64(schema);
    }

    /** A {@link SchemaStore} that finds every known writer schema. */
    public static SchemaStore store() {
        SchemaStore.Cache cache = new SchemaStore.Cache();
        BY_FINGERPRINT.values().forEach(cache::addSchema);
        return cache;
    }

    private static Map<Long, Schema> load() {
        Map<Long, Schema> all = new LinkedHashMap<>();
        CURRENT.forEach(s -> all.put(fingerprint(s), s));
        for (String file : historyFiles()) {
            try (InputStream in = AxSchemas.class.getResourceAsStream(HISTORY + file)) {
                if (in == null) {
                    throw new IllegalStateException("schema history lists a missing file: " + file);
                }
                Schema schema = new Schema.Parser().parse(in);
                all.putIfAbsent(fingerprint(schema), schema);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return Collections.unmodifiableMap(all);
    }

    private static List<String> historyFiles() {
        try (InputStream in = AxSchemas.class.getResourceAsStream(HISTORY + "index.txt")) {
            if (in == null) {
                return List.of();
            }
            List<String> files = new ArrayList<>();
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                String trimmed = line.strip();
                if (!trimmed.isEmpty() && !trimmed.startsWith("#")) {
                    files.add(trimmed);
                }
            }
            return files;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The fingerprint map as JSON: {"fingerprint as on the wire, hex": {"name": full name, "schema": the full schema}}. */
    public static String fingerprintsJson() {
        StringBuilder json = new StringBuilder("{\n");
        List<Map.Entry<Long, Schema>> entries = new ArrayList<>(BY_FINGERPRINT.entrySet());
        entries.sort(Map.Entry.comparingByValue((a, b) -> a.getFullName().compareTo(b.getFullName())));
        for (int i = 0; i < entries.size(); i++) {
            Map.Entry<Long, Schema> e = entries.get(i);
            json.append("  \"").append(hexLittleEndian(e.getKey())).append("\": {\"name\": \"")
                    .append(e.getValue().getFullName()).append("\", \"schema\": ")
                    .append(e.getValue().toString()).append('}')
                    .append(i + 1 < entries.size() ? ",\n" : "\n");
        }
        return json.append("}\n").toString();
    }

    /** The 8 fingerprint bytes as they appear on the wire (little-endian), in hex. */
    static String hexLittleEndian(long fingerprint) {
        StringBuilder hex = new StringBuilder(16);
        for (int i = 0; i < 8; i++) {
            hex.append(String.format("%02x", (fingerprint >>> (8 * i)) & 0xff));
        }
        return hex.toString();
    }

    public static void main(String[] args) {
        System.out.print(fingerprintsJson());
    }
}
