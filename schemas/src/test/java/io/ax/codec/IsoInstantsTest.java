package io.ax.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class IsoInstantsTest {
    @Test
    void shouldWriteWhatInstantToStringWrites() {
        long[] edges = {0, 1, -1, 999, 1_000, -1_000, -1_001, 86_399_999, 86_400_000, 951_782_400_000L /* 2000-02-29 */,
                -62_167_219_200_000L, -62_167_219_200_001L, 253_402_300_799_999L, 253_402_300_800_000L, Long.MAX_VALUE, Long.MIN_VALUE,
                1_700_000_000_000L, 4_102_444_800_000L /* 2100-01-01 */, -2_208_988_800_000L /* 1900-01-01 */};
        for (long ms : edges) {
            assertThat(IsoInstants.of(ms)).as("%d", ms).isEqualTo(Instant.ofEpochMilli(ms).toString());
        }
        SplittableRandom random = new SplittableRandom(20261203L);
        for (int i = 0; i < 200_000; i++) {
            long ms = i % 2 == 0 ? random.nextLong(-70_000_000_000_000L, 260_000_000_000_000L) : random.nextLong();
            ms = i % 5 == 0 ? ms / 1_000 * 1_000 : ms; // whole seconds too: no fraction then
            assertThat(IsoInstants.of(ms)).as("%d", ms).isEqualTo(Instant.ofEpochMilli(ms).toString());
        }
    }
}
