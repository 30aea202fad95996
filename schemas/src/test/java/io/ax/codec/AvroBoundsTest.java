package io.ax.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ax.InvalidRequestException;
import io.ax.schema.AtTrigger;
import io.ax.schema.ScheduleRequest;
import io.ax.schema.StoredTask;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

class AvroBoundsTest {
    private static final Schema REQUEST = ScheduleRequest.getClassSchema();

    /** Avro's zig-zag varint of {@code value}. */
    private static void varint(ByteArrayOutputStream out, long value) {
        long zigzag = (value << 1) ^ (value >> 63);
        while ((zigzag & ~0x7FL) != 0) {
            out.write((int) ((zigzag & 0x7F) | 0x80));
            zigzag >>>= 7;
        }
        out.write((int) zigzag);
    }

    @Test
    void shouldAcceptEveryRecordAvroWritesItself() {
        List<Long> intervals = new ArrayList<>();
        for (long i = 1; i <= 100; i++) {
            intervals.add(i * 1000);
        }
        ScheduleRequest request = ScheduleRequest.newBuilder().setJobType("email").setTrigger(new AtTrigger(5L))
                .setPayload(ByteBuffer.wrap(new byte[200_000])).setOwner("team").setBackoffIntervalsMs(intervals).build();
        byte[] bytes = WireCodec.encode(request);
        AvroBounds.check(bytes, 10, REQUEST);
        assertThat(WireCodec.decodeBinary(bytes, ScheduleRequest.class)).isEqualTo(request);
    }

    @Test
    void shouldRefuseALengthPastTheEndANegativeLengthAndAnIndexOutOfRange() {
        ByteArrayOutputStream huge = new ByteArrayOutputStream();
        varint(huge, 2_000_000_000L);
        assertThatThrownBy(() -> AvroBounds.check(huge.toByteArray(), 0, REQUEST)).isInstanceOf(InvalidRequestException.class)
                .hasMessage("malformed Avro record: string of 2000000000 bytes at byte 5 runs past the end of the 5-byte record");

        ByteArrayOutputStream negative = new ByteArrayOutputStream();
        varint(negative, -3);
        assertThatThrownBy(() -> AvroBounds.check(negative.toByteArray(), 0, REQUEST)).hasMessageContaining("string length -3 is negative");

        ByteArrayOutputStream badUnion = new ByteArrayOutputStream();
        varint(badUnion, 1);
        badUnion.write('j');
        varint(badUnion, 7); // the trigger union has 4 branches
        assertThatThrownBy(() -> AvroBounds.check(badUnion.toByteArray(), 0, REQUEST)).hasMessageContaining("union index 7 out of range (4 branches)");
    }

    @Test
    void shouldRefuseMoreCollectionItemsThanTheBoundEvenWhenEachTakesNoBytes() {
        Schema nulls = new Schema.Parser().parse("{\"type\":\"array\",\"items\":\"null\"}");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        varint(out, 2_000_000_000L);
        varint(out, 0);
        assertThatThrownBy(() -> AvroBounds.check(out.toByteArray(), 0, nulls)).hasMessageContaining("more than 10000 collection items");
    }

    @Test
    void shouldRefuseANumberThatNeverEnds() {
        byte[] endless = new byte[20];
        java.util.Arrays.fill(endless, (byte) 0xFF);
        assertThatThrownBy(() -> AvroBounds.check(endless, 0, REQUEST)).hasMessageContaining("number longer than 10 bytes");
        assertThatThrownBy(() -> AvroBounds.check(new byte[] {(byte) 0x80}, 0, REQUEST)).hasMessageContaining("record ends inside a number");
    }

    @Test
    void shouldWalkTheNestedStoredTaskSchema() {
        byte[] bytes = WireCodec.encode(StoredTask.newBuilder().setTaskId("t").setIncarnation(1).setAcceptedAtMs(0)
                .setRequest(ScheduleRequest.newBuilder().setJobType("j").setTrigger(new AtTrigger(1L)).build()).build());
        AvroBounds.check(bytes, 10, StoredTask.getClassSchema());
        byte[] cut = java.util.Arrays.copyOf(bytes, bytes.length - 3);
        assertThatThrownBy(() -> AvroBounds.check(cut, 10, StoredTask.getClassSchema())).isInstanceOf(InvalidRequestException.class);
    }
}
