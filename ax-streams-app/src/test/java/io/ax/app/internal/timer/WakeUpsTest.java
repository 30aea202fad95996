package io.ax.app.internal.timer;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class WakeUpsTest {

    @Test
    void shouldWakeAtTheEarliestTimeAnyTaskOnThisThreadPublished() {
        WakeUps wakeUps = new StreamThreads().current().wakeUps();
        Object a = new Object();
        Object b = new Object();
        assertThat(wakeUps.earliest()).isEqualTo(Long.MAX_VALUE);
        wakeUps.set(a, 5_000, 5_000);
        wakeUps.set(b, 3_000, 3_000);
        assertThat(wakeUps.earliest()).isEqualTo(3_000);
        wakeUps.clear(b);
        assertThat(wakeUps.earliest()).isEqualTo(5_000);
        wakeUps.set(a, Long.MAX_VALUE, Long.MAX_VALUE);
        assertThat(wakeUps.earliest()).isEqualTo(Long.MAX_VALUE);
        wakeUps.clear(a);
    }

    @Test
    void shouldTellTheEarliestFireTimeApartFromTheEarliestWakeUp() {
        WakeUps wakeUps = new StreamThreads().current().wakeUps();
        Object a = new Object();
        Object b = new Object();
        assertThat(wakeUps.earliestFire()).isEqualTo(Long.MAX_VALUE);
        wakeUps.set(a, 1_010, 1_001); // can fire at 1_001, punctuated at 1_010
        wakeUps.set(b, 1_005, 1_005);
        assertThat(wakeUps.earliest()).isEqualTo(1_005);
        assertThat(wakeUps.earliestFire()).isEqualTo(1_001);
        wakeUps.clear(a);
        assertThat(wakeUps.earliestFire()).isEqualTo(1_005);
        wakeUps.clear(b);
    }

    @Test
    void shouldNotSeeWakeUpsPublishedOnAnotherThread() throws InterruptedException {
        StreamThreads threads = new StreamThreads();
        Thread other = new Thread(() -> threads.current().wakeUps().set(new Object(), 1, 1));
        other.start();
        other.join();
        assertThat(threads.current().wakeUps().earliest()).isEqualTo(Long.MAX_VALUE);
        assertThat(new StreamThreads().current().wakeUps().earliest()).as("another instance's registry").isEqualTo(Long.MAX_VALUE);
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
