package io.ax.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ax.InvalidRequestException;
import io.ax.schema.AtTrigger;
import io.ax.schema.CancelRequest;
import io.ax.schema.DispatchTask;
import io.ax.schema.ExecutionReport;
import io.ax.schema.ScheduleRequest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Registry-format decoding against {@link TestRegistry}, a JDK HTTP server standing in for the registry's
 * {@code GET /schemas/ids/{id}} (a unit test: the integration tests run against Apicurio).
 */
class RegistryCodecTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final TestRegistry registry;
    private final SettableClock clock = new SettableClock();

    RegistryCodecTest() throws IOException {
        registry = new TestRegistry();
    }

    @AfterEach
    void stop() {
        registry.close();
    }

    /**
     * The registry is in this process and answers in milliseconds; tests that are not about the timeout give it 30 s, since a
     * 2 s bound timed out once on a loaded box (load 12, a cold first request took 6.8 s). The timeout's own test sets 200 ms.
     */
    private RegistryCodec codec(Duration timeout, Duration backoff) {
        return RegistryCodec.of(RegistrySettings.of(registry.url()).withTimeouts(timeout, backoff), clock);
    }

    private static ScheduleRequest request() {
        return ScheduleRequest.newBuilder().setJobType("email").setTrigger(new AtTrigger(1_000L)).setOwner("team").setPriority(6).build();
    }

    @Test
    void shouldDecodeRequestsByTheWriterSchemasRecordName() {
        registry.put(1, ScheduleRequest.getClassSchema());
        registry.put(2, CancelRequest.getClassSchema());
        RegistryCodec codec = codec(Duration.ofSeconds(30), Duration.ofSeconds(30));

        assertThat(codec.decodeRequest(RegistryCodec.encode(request(), 1))).isEqualTo(request());
        assertThat(codec.decodeRequest(RegistryCodec.encode(new CancelRequest("done"), 2))).isEqualTo(new CancelRequest("done"));
        assertThat(codec.decodeRequest(RegistryCodec.encode(request(), 1))).isEqualTo(request());
        assertThat(registry.calls()).as("each id fetched once").isEqualTo(2);
        // The other forms still go to WireCodec.
        assertThat(codec.decodeRequest(WireCodec.encode(request()))).isEqualTo(request());
    }

    @Test
    void shouldDecodeAReportInTheRegistryFormat() {
        registry.put(7, ExecutionReport.getClassSchema());
        ExecutionReport report = ExecutionReport.newBuilder().setExecutionId("e1").setAttempt(2)
                .setStatus(io.ax.schema.ReportStatus.SUCCEEDED).setWorkerId("w1").build();

        assertThat(codec(Duration.ofSeconds(30), Duration.ofSeconds(30)).decodeReport(RegistryCodec.encode(report, 7))).isEqualTo(report);
    }

    @Test
    void shouldFollowSchemaReferencesToNamedTypesRegisteredApart() throws IOException {
        // As Apicurio's serde registers a record: its enum under a subject of its own, referenced by name.
        ObjectNode report = (ObjectNode) JSON.readTree(ExecutionReport.getClassSchema().toString());
        ObjectNode status = null;
        for (var field : report.withArray("fields")) {
            if (field.get("name").asText().equals("status")) {
                status = (ObjectNode) field.get("type");
                ((ObjectNode) field).put("type", "io.ax.schema.ReportStatus");
            }
        }
        status.put("namespace", "io.ax.schema");
        ObjectNode answer = JSON.createObjectNode().put("schema", report.toString());
        answer.putArray("references").addObject().put("name", "io.ax.schema.ReportStatus").put("subject", "ReportStatus").put("version", 1);
        registry.putAnswer(8, answer.toString());
        registry.putVersion("ReportStatus", 1, JSON.createObjectNode().put("schema", status.toString()).toString());
        ExecutionReport sent = ExecutionReport.newBuilder().setExecutionId("e1").setAttempt(1)
                .setStatus(io.ax.schema.ReportStatus.STARTED).build();

        assertThat(codec(Duration.ofSeconds(30), Duration.ofSeconds(30)).decodeReport(RegistryCodec.encode(sent, 8))).isEqualTo(sent);
    }

    @Test
    void shouldResolveAWriterWithAFieldAddedWithADefault() throws IOException {
        Schema newer = evolve(ScheduleRequest.getClassSchema(), "addedLater", null);
        registry.put(3, newer);
        byte[] bytes = RegistryWire.frame(3, write(newer, request()));

        assertThat(codec(Duration.ofSeconds(30), Duration.ofSeconds(30)).decodeRequest(bytes)).isEqualTo(request());
    }

    @Test
    void shouldResolveAWriterWithAFieldRemovedThatTheReaderDefaults() throws IOException {
        Schema older = evolve(ScheduleRequest.getClassSchema(), null, "owner");
        registry.put(4, older);
        byte[] bytes = RegistryWire.frame(4, write(older, request()));

        ScheduleRequest read = (ScheduleRequest) codec(Duration.ofSeconds(30), Duration.ofSeconds(30)).decodeRequest(bytes);

        assertThat(read.getOwner()).isNull();
        assertThat(read.getPriority()).isEqualTo(6);
        assertThat(read.getJobType()).isEqualTo("email");
    }

    @Test
    void shouldRejectAnIncompatibleWriterNamingTheField() throws IOException {
        ObjectNode schema = (ObjectNode) JSON.readTree(ScheduleRequest.getClassSchema().toString());
        for (var field : schema.withArray("fields")) {
            if (field.get("name").asText().equals("jobType")) {
                ((ObjectNode) field).put("type", "int");
            }
        }
        registry.put(5, new Schema.Parser().parse(schema.toString()));

        assertThatThrownBy(() -> codec(Duration.ofSeconds(30), Duration.ofSeconds(30)).decodeRequest(new byte[] {0, 0, 0, 0, 5, 2}))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("schema id 5 (io.ax.schema.ScheduleRequest) cannot be read as ax's ScheduleRequest")
                .hasMessageContaining("/fields/0/type");
    }

    @Test
    void shouldRejectAnUnknownIdAndRememberItForTheBackoff() {
        RegistryCodec codec = codec(Duration.ofSeconds(30), Duration.ofSeconds(30));
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> codec.decodeRequest(new byte[] {0, 0, 0, 0, 99, 2}))
                    .isInstanceOf(InvalidRequestException.class).hasMessage("schema id 99 is not in the schema registry");
        }
        assertThat(registry.calls()).isEqualTo(1);
        registry.put(99, CancelRequest.getClassSchema());
        clock.advance(Duration.ofSeconds(31));
        assertThat(codec.decodeRequest(RegistryCodec.encode(new CancelRequest("x"), 99))).isEqualTo(new CancelRequest("x"));
    }

    @Test
    void shouldRejectARecordOfAnotherTypeOnTheRequestsTopic() {
        registry.put(6, DispatchTask.getClassSchema());
        assertThatThrownBy(() -> codec(Duration.ofSeconds(30), Duration.ofSeconds(30)).decodeRequest(new byte[] {0, 0, 0, 0, 6}))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("schema id 6 is io.ax.schema.DispatchTask; expected a ScheduleRequest");
        assertThatThrownBy(() -> codec(Duration.ofSeconds(30), Duration.ofSeconds(30)).decodeReport(new byte[] {0, 0, 0, 0, 6}))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("cannot be read as ax's ExecutionReport");
    }

    @Test
    void shouldRejectABodyThatDoesNotMatchItsSchema() {
        registry.put(1, ScheduleRequest.getClassSchema());
        // A string length of 2^31 announced in 6 bytes: refused before Avro would allocate.
        assertThatThrownBy(() -> codec(Duration.ofSeconds(30), Duration.ofSeconds(30))
                .decodeRequest(new byte[] {0, 0, 0, 0, 1, (byte) 0xfe, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f}))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("cannot decode schema id 1");
    }

    @Test
    void shouldCostOneTimeoutPerBackoffPeriodWhileTheRegistryHangs() {
        registry.mode(TestRegistry.Mode.HANG);
        RegistryCodec codec = codec(Duration.ofMillis(200), Duration.ofSeconds(30));

        assertThatThrownBy(() -> codec.decodeRequest(new byte[] {0, 0, 0, 0, 1, 2}))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("schema registry unavailable")
                .hasMessageContaining("did not answer within PT0.2S");
        long startNs = System.nanoTime();
        for (int id = 2; id < 100; id++) {
            byte[] bytes = {0, 0, 0, 0, (byte) id, 2};
            assertThatThrownBy(() -> codec.decodeRequest(bytes)).isInstanceOf(InvalidRequestException.class)
                    .hasMessageContaining("schema registry unavailable (not called again until");
        }
        assertThat(Duration.ofNanos(System.nanoTime() - startNs)).as("no call while the breaker is open").isLessThan(Duration.ofMillis(200));
        assertThat(registry.calls()).isEqualTo(1);

        registry.mode(TestRegistry.Mode.SERVE);
        registry.put(1, ScheduleRequest.getClassSchema());
        clock.advance(Duration.ofSeconds(30));
        assertThat(codec.decodeRequest(RegistryCodec.encode(request(), 1))).isEqualTo(request());
    }

    @Test
    void shouldOpenTheBreakerOnAServerErrorWithItsReason() {
        registry.mode(TestRegistry.Mode.FAIL);
        RegistryCodec codec = codec(Duration.ofSeconds(30), Duration.ofSeconds(30));
        assertThatThrownBy(() -> codec.decodeReport(new byte[] {0, 0, 0, 0, 1, 2}))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("HTTP 503").hasMessageContaining("down for maintenance");
        assertThatThrownBy(() -> codec.decodeReport(new byte[] {0, 0, 0, 0, 2, 2}))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("not called again until");
        assertThat(registry.calls()).isEqualTo(1);

        clock.advance(Duration.ofSeconds(30));
        assertThatThrownBy(() -> codec.decodeReport(new byte[] {0, 0, 0, 0, 2, 2}))
                .as("one probe after the backoff").isInstanceOf(InvalidRequestException.class).hasMessageContaining("HTTP 503");
        assertThatThrownBy(() -> codec.decodeReport(new byte[] {0, 0, 0, 0, 3, 2}))
                .as("failed probe: open again").isInstanceOf(InvalidRequestException.class).hasMessageContaining("not called again until");
        assertThat(registry.calls()).isEqualTo(2);
    }

    @Test
    void shouldRefuseAnAnswerLargerThanTheBoundWithoutOpeningTheBreaker() {
        registry.mode(TestRegistry.Mode.HUGE);
        RegistryCodec codec = codec(Duration.ofSeconds(30), Duration.ofSeconds(30));
        assertThatThrownBy(() -> codec.decodeRequest(new byte[] {0, 0, 0, 0, 1, 2}))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("is larger than 524288 bytes");
        registry.mode(TestRegistry.Mode.SERVE);
        registry.put(2, CancelRequest.getClassSchema());
        assertThat(codec.decodeRequest(RegistryCodec.encode(new CancelRequest("x"), 2))).isEqualTo(new CancelRequest("x"));
    }

    @Test
    void shouldRejectWhenTheRegistryIsNotListening() throws IOException {
        String url = registry.url();
        registry.close();
        RegistryCodec codec = RegistryCodec.of(RegistrySettings.of(url), clock);
        assertThatThrownBy(() -> codec.decodeBinary(new byte[] {0, 0, 0, 0, 1, 2}, ExecutionReport.class))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("unreachable");
    }

    /** The schema with a string field {@code added} (default "later") appended and/or the field {@code removed} left out. */
    static Schema evolve(Schema schema, String added, String removed) throws IOException {
        ObjectNode json = (ObjectNode) JSON.readTree(schema.toString());
        ArrayNode fields = json.withArray("fields");
        ArrayNode kept = JSON.createArrayNode();
        fields.forEach(field -> {
            if (!field.get("name").asText().equals(removed)) {
                kept.add(field);
            }
        });
        if (added != null) {
            kept.add(JSON.createObjectNode().put("name", added).put("type", "string").put("default", "later"));
        }
        json.set("fields", kept);
        return new Schema.Parser().parse(json.toString());
    }

    /** The Avro body of {@code record} written with the {@code writer} schema (a producer on another version). */
    static byte[] write(Schema writer, org.apache.avro.specific.SpecificRecord record) throws IOException {
        byte[] current = RegistryCodec.avroBody(record);
        GenericRecord generic = new GenericDatumReader<GenericRecord>(record.getSchema(), writer, GenericData.get())
                .read(null, DecoderFactory.get().binaryDecoder(current, null));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(writer).write(generic, encoder);
        encoder.flush();
        return out.toByteArray();
    }

    private static final class SettableClock extends Clock {
        private Instant now = Instant.parse("2026-12-01T00:00:00Z");

        void advance(Duration by) {
            now = now.plus(by);
        }

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}
