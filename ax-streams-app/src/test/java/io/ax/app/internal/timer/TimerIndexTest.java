package io.ax.app.internal.timer;

import io.ax.app.internal.core.TimerKind;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.utils.Bytes;
import org.junit.jupiter.api.Test;

class TimerIndexTest {

    @Test
    void shouldOrderKeysByDueTimeForEveryLongAsRocksDbComparesThem() {
        long[] dueTimes = {Long.MIN_VALUE, -1_000, -1, 0, 1, 255, 256, 1_796_090_400_000L, 253_402_300_799_999L, Long.MAX_VALUE};
        List<Bytes> keys = new ArrayList<>();
        for (long dueAtMs : dueTimes) {
            keys.add(TimerIndex.key(dueAtMs, "t", TimerKind.OCCURRENCE));
        }
        List<Bytes> sorted = new ArrayList<>(keys);
        sorted.sort(null); // Bytes compares unsigned, byte by byte: RocksDB's order
        assertThat(sorted).containsExactlyElementsOf(keys);
    }

    @Test
    void shouldReadBackDueTimeTaskIdAndKind() {
        for (long dueAtMs : new long[] {Long.MIN_VALUE, -5, 0, 42, Long.MAX_VALUE}) {
            Bytes key = TimerIndex.key(dueAtMs, "task-ü", TimerKind.TIMEOUT);
            assertThat(TimerIndex.dueAtMs(key)).isEqualTo(dueAtMs);
            assertThat(TimerIndex.taskId(key)).isEqualTo("task-ü");
            assertThat(TimerIndex.kind(key)).isEqualTo(TimerKind.TIMEOUT);
        }
    }

    @Test
    void shouldOrderTaskIdsOfOneDueTimeAfterTheDueTime() {
        Bytes early = TimerIndex.key(1000, "zzz", TimerKind.RETRY);
        Bytes late = TimerIndex.key(1001, "a", TimerKind.RETRY);
        assertThat(early.compareTo(late)).isNegative();
    }

    @Test
    void shouldReadThePriorityAndOwnerBackAndAValueWrittenBeforeOwnersWereKept() {
        assertThat(TimerIndex.priority(new byte[] {7})).isEqualTo(7);
        assertThat(TimerIndex.owner(new byte[] {7})).as("a one-byte value, as written before owners were kept").isNull();
        assertThat(TimerIndex.owner(null)).isNull();
        byte[] withOwner = {3, (byte) 0xc3, (byte) 0xa9, 'q', 'u', 'i', 'p', 'e'};
        assertThat(TimerIndex.priority(withOwner)).isEqualTo(3);
        assertThat(TimerIndex.owner(withOwner)).isEqualTo("\u00e9quipe");
    }
}
