package io.ax.app.internal.timer;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class WakeUpsTest {

    @Test
    void shouldWakeAtTheEarliestTimeAnyTaskOnThisThreadPublished() {
        Object a = new Object();
        Object b = new Object();
        assertThat(WakeUps.earliest()).isEqualTo(Long.MAX_VALUE);
        WakeUps.set(a, 5_000);
        WakeUps.set(b, 3_000);
        assertThat(WakeUps.earliest()).isEqualTo(3_000);
        WakeUps.clear(b);
        assertThat(WakeUps.earliest()).isEqualTo(5_000);
        WakeUps.set(a, Long.MAX_VALUE);
        assertThat(WakeUps.earliest()).isEqualTo(Long.MAX_VALUE);
        WakeUps.clear(a);
    }

    @Test
    void shouldNotSeeWakeUpsPublishedOnAnotherThread() throws InterruptedException {
        Thread other = new Thread(() -> WakeUps.set(new Object(), 1));
        other.start();
        other.join();
        assertThat(WakeUps.earliest()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void shouldCutThePollShortAtTheWakeUpTimeOnly() {
        Duration pollMs = Duration.ofMillis(100);
        assertThat(TimedPolls.boundedBy(pollMs, Long.MAX_VALUE, 1_000)).isEqualTo(pollMs);
        assertThat(TimedPolls.boundedBy(pollMs, 1_500, 1_000)).isEqualTo(pollMs);
        assertThat(TimedPolls.boundedBy(pollMs, 1_030, 1_000)).isEqualTo(Duration.ofMillis(30));
        assertThat(TimedPolls.boundedBy(pollMs, 900, 1_000)).isEqualTo(Duration.ZERO);
        assertThat(TimedPolls.boundedBy(Duration.ZERO, 1_030, 1_000)).isEqualTo(Duration.ZERO);
    }

    @Test
    void shouldWakeAtThePunctuationAtOrAfterTheFireTime() {
        assertThat(PartitionWakeUp.punctuationAtOrAfter(1_023, 1_000, 10)).isEqualTo(1_030);
        assertThat(PartitionWakeUp.punctuationAtOrAfter(1_020, 1_000, 10)).isEqualTo(1_020);
        assertThat(PartitionWakeUp.punctuationAtOrAfter(1_001, 1_000, 10)).isEqualTo(1_010);
        assertThat(PartitionWakeUp.punctuationAtOrAfter(1_000, 1_000, 10)).as("due now: the next punctuation").isEqualTo(1_010);
        assertThat(PartitionWakeUp.punctuationAtOrAfter(400, 1_000, 10)).as("overdue: the next punctuation").isEqualTo(1_010);
    }
}
