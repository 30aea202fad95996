package io.ax.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ax.schema.AtTrigger;
import io.ax.schema.CronTrigger;
import io.ax.schema.DelayTrigger;
import io.ax.schema.IntervalTrigger;
import io.ax.schema.ScheduleRequest;
import io.ax.schema.StoredTask;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.util.RandomData;
import org.junit.jupiter.api.Test;

/**
 * The task store's hand-written codec writes and reads exactly what Avro's own writer and reader do, for tasks whose
 * every field, optional or not, and every trigger branch is exercised (Avro's {@link RandomData} over the current
 * StoredTask schema): a field added to the schema and not to the codec fails here.
 */
class StoredTaskCodecTest {
    private static final Schema SCHEMA = StoredTask.getClassSchema();

    @Test
    void shouldWriteAndReadTheBytesAvroDoesForEveryFieldAndBranch() throws IOException {
        Set<Class<?>> triggers = new HashSet<>();
        int withExecution = 0;
        int withPayload = 0;
        for (Object random : new RandomData(SCHEMA, 2_000, 20261203L)) {
            byte[] avroBody = avroBinary((GenericData.Record) random);
            StoredTask task = new SpecificDatumReader<StoredTask>(SCHEMA).read(null,
                    DecoderFactory.get().binaryDecoder(avroBody, null));
            triggers.add(task.getRequest().getTrigger().getClass());
            withExecution += task.getExecution() == null ? 0 : 1;
            withPayload += task.getRequest().getPayload() == null ? 0 : 1;

            byte[] ours = StoredTaskCodec.encode(task);

            assertThat(ours).as("the codec's bytes for %s", task.getTaskId()).isEqualTo(WireCodec.encode(task));
            assertThat(StoredTaskCodec.decode(ours)).isEqualTo(task);
            assertThat(WireCodec.decodeStored(ours, StoredTask.class)).isEqualTo(task);
        }
        assertThat(triggers).containsExactlyInAnyOrder(AtTrigger.class, DelayTrigger.class, IntervalTrigger.class, CronTrigger.class);
        assertThat(withExecution).isBetween(1, 1_999);
        assertThat(withPayload).isBetween(1, 1_999);
    }

    @Test
    void shouldReadARequestFromTheRequestsTopicAsAvrosReaderDoes() throws IOException {
        Schema schema = ScheduleRequest.getClassSchema();
        Set<Class<?>> triggers = new HashSet<>();
        for (Object random : new RandomData(schema, 2_000, 20261206L)) {
            ScheduleRequest request = (ScheduleRequest) org.apache.avro.specific.SpecificData.get().deepCopy(schema,
                    new SpecificDatumReader<ScheduleRequest>(schema).read(null,
                            DecoderFactory.get().binaryDecoder(avroBinary((GenericData.Record) random, schema), null)));
            triggers.add(request.getTrigger().getClass());
            byte[] bytes = WireCodec.encode(request);

            ScheduleRequest ours = StoredTaskCodec.readRequest(bytes);

            assertThat(ours).as("read field by field").isNotNull().isEqualTo(WireCodec.decodeStored(bytes, ScheduleRequest.class))
                    .isEqualTo(request);
            assertThat(WireCodec.decodeRequest(bytes)).isEqualTo(request);
        }
        assertThat(triggers).containsExactlyInAnyOrder(AtTrigger.class, DelayTrigger.class, IntervalTrigger.class, CronTrigger.class);
    }

    @Test
    void shouldLeaveARequestWrittenUnderAnOlderSchemaToAvrosResolution() throws IOException {
        Schema v3;
        try (InputStream in = AxSchemas.class.getResourceAsStream("/io/ax/schema/history/ScheduleRequest-v3.avsc")) {
            v3 = new Schema.Parser().parse(in);
        }
        ScheduleRequest request = ScheduleRequest.newBuilder().setJobType("email").setTrigger(new AtTrigger(1_000L)).build();
        ByteBuffer written = new BinaryMessageEncoder<ScheduleRequest>(org.apache.avro.specific.SpecificData.get(), v3).encode(request);
        byte[] bytes = new byte[written.remaining()];
        written.get(bytes);

        assertThat(AxSchemas.byFingerprint().get(java.nio.ByteBuffer.wrap(bytes, 2, 8).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong()))
                .as("not the current schema's bytes, so not the field-by-field reader's")
                .isNotSameAs(AxSchemas.byFingerprint().get(AxSchemas.fingerprint(ScheduleRequest.getClassSchema()))).isNotNull();
        assertThat(WireCodec.decodeRequest(bytes)).isEqualTo(request);
    }

    @Test
    void shouldLeaveThePayloadsPositionAlone() {
        ByteBuffer payload = ByteBuffer.wrap(new byte[] {1, 2, 3});
        StoredTask task = task(payload);

        StoredTaskCodec.encode(task);

        assertThat(payload.position()).isZero();
        assertThat(StoredTaskCodec.decode(StoredTaskCodec.encode(task)).getRequest().getPayload()).isEqualTo(ByteBuffer.wrap(new byte[] {1, 2, 3}));
    }

    @Test
    void shouldReadATaskWrittenUnderAnOlderSchemaThroughAvrosResolution() throws IOException {
        Schema v5;
        try (InputStream in = AxSchemas.class.getResourceAsStream("/io/ax/schema/history/StoredTask-v5.avsc")) {
            v5 = new Schema.Parser().parse(in);
        }
        StoredTask task = task(null);
        ByteBuffer written = new BinaryMessageEncoder<StoredTask>(org.apache.avro.specific.SpecificData.get(), v5).encode(task);
        byte[] bytes = new byte[written.remaining()];
        written.get(bytes);

        assertThat(StoredTaskCodec.decode(bytes)).isEqualTo(WireCodec.decodeStored(bytes, StoredTask.class)).isEqualTo(task);
    }

    @Test
    void shouldRefuseBytesAfterTheLastField() {
        byte[] bytes = StoredTaskCodec.encode(task(null));
        byte[] longer = java.util.Arrays.copyOf(bytes, bytes.length + 1);

        assertThatThrownBy(() -> StoredTaskCodec.decode(longer)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("after its last field");
    }

    private static StoredTask task(ByteBuffer payload) {
        return StoredTask.newBuilder().setTaskId("t1").setIncarnation(3)
                .setRequest(ScheduleRequest.newBuilder().setJobType("email").setTrigger(new AtTrigger(1_000L)).setPayload(payload).build())
                .setAcceptedAtMs(500L).setNextDueAtMs(1_000L).build();
    }

    private static byte[] avroBinary(GenericData.Record record) throws IOException {
        return avroBinary(record, SCHEMA);
    }

    private static byte[] avroBinary(GenericData.Record record, Schema schema) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericData.Record>(schema).write(record, encoder);
        encoder.flush();
        return out.toByteArray();
    }
}
