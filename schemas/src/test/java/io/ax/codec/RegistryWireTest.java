package io.ax.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ax.InvalidRequestException;
import org.junit.jupiter.api.Test;

/** The schema-registry wire format's header, with no registry. */
class RegistryWireTest {

    @Test
    void shouldReadTheBigEndianSchemaIdAfterTheMagicByte() {
        assertThat(RegistryWire.schemaId(new byte[] {0, 0, 0, 1, 2, 42})).isEqualTo(258);
        assertThat(RegistryWire.schemaId(new byte[] {0, 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff})).isEqualTo(Integer.MAX_VALUE);
        assertThat(RegistryWire.schemaId(new byte[] {0, 0, 0, 0, 0})).isZero();
    }

    @Test
    void shouldFrameABodyBehindItsId() {
        byte[] framed = RegistryWire.frame(7, new byte[] {9, 8});
        assertThat(framed).containsExactly(0, 0, 0, 0, 7, 9, 8);
        assertThat(RegistryWire.schemaId(framed)).isEqualTo(7);
        assertThatThrownBy(() -> RegistryWire.frame(-1, new byte[0])).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldRefuseInputShorterThanTheHeader() {
        for (int length = 1; length < RegistryWire.HEADER_BYTES; length++) {
            byte[] bytes = new byte[length];
            assertThatThrownBy(() -> RegistryWire.schemaId(bytes)).isInstanceOf(InvalidRequestException.class)
                    .hasMessageContaining("truncated schema-registry record: " + length + " bytes");
        }
    }

    @Test
    void shouldRefuseABadMagicByteOrNoBytes() {
        assertThatThrownBy(() -> RegistryWire.schemaId(new byte[] {1, 0, 0, 0, 1})).isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("expected first byte 00");
        assertThatThrownBy(() -> RegistryWire.schemaId(new byte[0])).isInstanceOf(InvalidRequestException.class);
        assertThatThrownBy(() -> RegistryWire.schemaId(null)).isInstanceOf(InvalidRequestException.class);
        assertThat(RegistryWire.isRegistryFormat(new byte[] {(byte) 0xC3, 1})).isFalse();
        assertThat(RegistryWire.isRegistryFormat("{}".getBytes())).isFalse();
        assertThat(RegistryWire.isRegistryFormat(new byte[0])).isFalse();
        assertThat(RegistryWire.isRegistryFormat(new byte[] {0})).isTrue();
    }

    @Test
    void shouldRefuseANegativeSchemaId() {
        assertThatThrownBy(() -> RegistryWire.schemaId(new byte[] {0, (byte) 0x80, 0, 0, 0}))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("negative schema id -2147483648");
        assertThatThrownBy(() -> RegistryWire.schemaId(new byte[] {0, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff}))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("negative schema id -1");
    }

    @Test
    void shouldRefuseRegistryFormatWhenNoRegistryIsConfigured() {
        assertThatThrownBy(() -> RegistryCodec.NONE.decodeRequest(new byte[] {0, 0, 0, 0, 5, 2}))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("schema id 5").hasMessageContaining("no schema registry configured (ax.schema.registry.url)");
        assertThatThrownBy(() -> RegistryCodec.NONE.decodeRequest(new byte[] {0, 0, 0}))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("truncated");
    }
}
