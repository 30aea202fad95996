package io.ax.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ax.InvalidRequestException;
import io.ax.schema.AdoptRequest;
import io.ax.schema.AtTrigger;
import io.ax.schema.CancelRequest;
import io.ax.schema.ExecutionReport;
import io.ax.schema.IfExists;
import io.ax.schema.IntervalTrigger;
import io.ax.schema.ReportStatus;
import io.ax.schema.ScheduleRequest;
import io.ax.schema.StoredTask;
import io.ax.schema.TriggerRequest;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class WireCodecTest {
    /** Every current record, written with Avro's generated coders, is byte for byte what its schema-driven writer writes. */
    @Test
    void shouldWriteWhatAvrosSchemaDrivenWriterWritesWithTheGeneratedCoders() throws java.io.IOException {
        for (org.apache.avro.Schema schema : AxSchemas.current()) {
            org.apache.avro.specific.SpecificData schemaDriven = new org.apache.avro.specific.SpecificData();
            schemaDriven.setCustomCoders(false);
            for (Object random : new org.apache.avro.util.RandomData(schema, 300, 20261203L)) {
                byte[] generic = binary(new org.apache.avro.generic.GenericDatumWriter<>(schema), random);
                org.apache.avro.specific.SpecificRecord record = new org.apache.avro.specific.SpecificDatumReader<org.apache.avro.specific.SpecificRecord>(schema)
                        .read(null, org.apache.avro.io.DecoderFactory.get().binaryDecoder(generic, null));

                byte[] written = WireCodec.encode(record);

                assertThat(java.util.Arrays.copyOfRange(written, 10, written.length)).as(schema.getName())
                        .isEqualTo(binary(new org.apache.avro.specific.SpecificDatumWriter<>(schema, schemaDriven), record));
            }
        }
    }

    private static byte[] binary(org.apache.avro.io.DatumWriter<Object> writer, Object datum) throws java.io.IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        org.apache.avro.io.BinaryEncoder encoder = org.apache.avro.io.EncoderFactory.get().binaryEncoder(out, null);
        writer.write(datum, encoder);
        encoder.flush();
        return out.toByteArray();
    }

    @Test
    void shouldRoundTripARequestInSingleObjectEncoding() {
        ScheduleRequest request = ScheduleRequest.newBuilder().setJobType("email").setTrigger(new AtTrigger(1_000L))
                .setPayload(ByteBuffer.wrap("hi".getBytes(StandardCharsets.UTF_8))).setPriority(7).setOwner("team")
                .setBackoffIntervalsMs(List.of(5_000L, 30_000L)).setIfExists(IfExists.REPLACE).build();
        byte[] bytes = WireCodec.encode(request);
        assertThat(bytes[0]).isEqualTo((byte) 0xC3);
        assertThat(bytes[1]).isEqualTo((byte) 0x01);
        assertThat(WireCodec.decodeRequest(bytes)).isEqualTo(request);
        assertThat(WireCodec.decodeRequest(WireCodec.encode(new CancelRequest("why")))).isEqualTo(new CancelRequest("why"));
    }

    @Test
    void shouldDecodeATriggerRequestInEitherEncoding() {
        assertThat(WireCodec.decodeRequest(WireCodec.encode(new TriggerRequest("month end"))))
                .isEqualTo(new TriggerRequest("month end"));
        assertThat(WireCodec.decodeRequest("{\"trigger\":true,\"reason\":\"month end\"}".getBytes(StandardCharsets.UTF_8)))
                .isEqualTo(new TriggerRequest("month end"));
        assertThat(WireCodec.decodeRequest("{\"trigger\":true}".getBytes(StandardCharsets.UTF_8))).isEqualTo(new TriggerRequest(null));
        assertThatThrownBy(() -> WireCodec.decodeRequest("{\"trigger\":false}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("trigger must be true");
        assertThatThrownBy(() -> WireCodec.decodeRequest("{\"trigger\":true,\"jobType\":\"x\"}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("trigger request");
    }

    @Test
    void shouldDecodePauseAndResumeRequestsInEitherEncoding() {
        assertThat(WireCodec.decodeRequest(WireCodec.encode(new io.ax.schema.PauseRequest("maintenance"))))
                .isEqualTo(new io.ax.schema.PauseRequest("maintenance"));
        assertThat(WireCodec.decodeRequest(WireCodec.encode(new io.ax.schema.ResumeRequest(null))))
                .isEqualTo(new io.ax.schema.ResumeRequest(null));
        assertThat(WireCodec.decodeRequest("{\"pause\":true,\"reason\":\"maintenance\"}".getBytes(StandardCharsets.UTF_8)))
                .isEqualTo(new io.ax.schema.PauseRequest("maintenance"));
        assertThat(WireCodec.decodeRequest("{\"resume\":true}".getBytes(StandardCharsets.UTF_8)))
                .isEqualTo(new io.ax.schema.ResumeRequest(null));
        assertThatThrownBy(() -> WireCodec.decodeRequest("{\"pause\":false}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("pause must be true");
        assertThatThrownBy(() -> WireCodec.decodeRequest("{\"resume\":true,\"everyMs\":1000}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("resume request");
    }

    @Test
    void shouldReadTheOverlapPolicyAndUpdate() {
        ScheduleRequest request = (ScheduleRequest) WireCodec.decodeRequest(
                "{\"jobType\":\"sync\",\"everyMs\":60000,\"overlap\":\"QUEUE_ONE\",\"ifExists\":\"UPDATE\"}".getBytes(StandardCharsets.UTF_8));
        assertThat(request.getOverlap()).isEqualTo(io.ax.schema.OverlapPolicy.QUEUE_ONE);
        assertThat(request.getIfExists()).isEqualTo(IfExists.UPDATE);
        ScheduleRequest plain = (ScheduleRequest) WireCodec.decodeRequest(
                "{\"jobType\":\"sync\",\"everyMs\":60000}".getBytes(StandardCharsets.UTF_8));
        assertThat(plain.getOverlap()).isEqualTo(io.ax.schema.OverlapPolicy.SKIP);
        ScheduleRequest allow = (ScheduleRequest) WireCodec.decodeRequest(
                "{\"jobType\":\"sync\",\"everyMs\":60000,\"overlap\":\"ALLOW\"}".getBytes(StandardCharsets.UTF_8));
        assertThat(allow.getOverlap()).isEqualTo(io.ax.schema.OverlapPolicy.ALLOW);
        assertThatThrownBy(() -> WireCodec.decodeRequest(
                "{\"jobType\":\"sync\",\"everyMs\":60000,\"overlap\":\"BESIDE\"}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("overlap must be one of [SKIP, QUEUE_ONE, ALLOW]");
    }

    @Test
    void shouldReadTheDocumentedJsonForms() {
        ScheduleRequest at = (ScheduleRequest) WireCodec.decodeRequest(
                "{\"jobType\":\"email\",\"at\":\"2026-12-01T02:00:00Z\",\"payload\":{\"to\":\"a@b.c\"}}".getBytes(StandardCharsets.UTF_8));
        assertThat(at.getTrigger()).isEqualTo(new AtTrigger(1_796_090_400_000L));
        assertThat(StandardCharsets.UTF_8.decode(at.getPayload()).toString()).isEqualTo("{\"to\":\"a@b.c\"}");
        assertThat(at.getPriority()).isEqualTo(4);
        assertThat(at.getIfExists()).isEqualTo(IfExists.KEEP);

        ScheduleRequest every = (ScheduleRequest) WireCodec.decodeRequest(
                " {\"jobType\":\"sync\",\"everyMs\":60000,\"startAt\":0,\"maxRetries\":5}".getBytes(StandardCharsets.UTF_8));
        assertThat(every.getTrigger()).isEqualTo(new IntervalTrigger(60_000L, 0L));
        assertThat(every.getMaxRetries()).isEqualTo(5);

        ScheduleRequest offset = (ScheduleRequest) WireCodec.decodeRequest(
                "{\"jobType\":\"x\",\"at\":\"2026-12-01T10:00:00+08:00\"}".getBytes(StandardCharsets.UTF_8));
        assertThat(offset.getTrigger()).isEqualTo(new AtTrigger(1_796_090_400_000L));

        ExecutionReport report = WireCodec.decodeReport(("{\"executionId\":\"e1\",\"attempt\":2,\"status\":\"FAILED\","
                + "\"retryable\":false,\"message\":\"boom\",\"workerId\":\"w\"}").getBytes(StandardCharsets.UTF_8));
        assertThat(report.getStatus()).isEqualTo(ReportStatus.FAILED);
        assertThat(report.getRetryable()).isFalse();
        assertThat(report.getAttempt()).isEqualTo(2);
    }

    @Test
    void shouldNameWhatIsWrongWithBadBytes() {
        assertThatThrownBy(() -> WireCodec.decodeRequest(new byte[0])).isInstanceOf(InvalidRequestException.class)
                .hasMessage("empty value");
        assertThatThrownBy(() -> WireCodec.decodeRequest(new byte[] {(byte) 0xC3, 0x01, 0}))
                .hasMessageContaining("truncated single-object record");
        byte[] truncated = WireCodec.encode(ScheduleRequest.newBuilder().setJobType("email").setTrigger(new AtTrigger(1L)).build());
        byte[] cut = java.util.Arrays.copyOf(truncated, 12);
        assertThatThrownBy(() -> WireCodec.decodeRequest(cut)).isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("cannot decode io.ax.schema.ScheduleRequest");
    }

    @Test
    void shouldTellAnAdoptFromTheOtherRequestsByItsSchema() {
        StoredTask task = StoredTask.newBuilder().setTaskId("t1").setIncarnation(7)
                .setRequest(ScheduleRequest.newBuilder().setJobType("email").setTrigger(new AtTrigger(1_000L)).build())
                .setAcceptedAtMs(500L).setNextDueAtMs(1_000L).build();
        AdoptRequest adopt = AdoptRequest.newBuilder().setTask(task).setFromApplicationId("ax-scheduler")
                .setFromTopic("ax.requests").setFromPartition(2).setMigratedAtMs(900L).build();
        assertThat(WireCodec.decodeRequest(WireCodec.encode(adopt))).isEqualTo(adopt);
    }
}
