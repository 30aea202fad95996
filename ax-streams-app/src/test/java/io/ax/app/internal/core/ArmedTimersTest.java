package io.ax.app.internal.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.ax.schema.ReportStatus;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The timers derived from a stored task ({@link ArmedTimers}), shape by shape: {@link CoreDriver} checks after every
 * decision that they are the ones the rules armed (every derived timer armed, every other armed timer stale), so each
 * step below would fail there too; these name the shapes the property tests reach only by chance.
 */
class ArmedTimersTest {
    private final CoreDriver ax = new CoreDriver();

    private List<CoreDriver.Timer> derived() {
        return ArmedTimers.of(ax.task()).stream().map(set -> new CoreDriver.Timer(set.kind(), set.dueAtMs())).toList();
    }

    @Test
    void shouldDeriveAOneShotTaskThroughItsLife() {
        ax.schedule("{\"jobType\":\"j\",\"delayMs\":1000,\"timeoutMs\":700,\"maxRetries\":1,\"backoffMs\":300}");
        assertThat(derived()).containsExactly(new CoreDriver.Timer(TimerKind.OCCURRENCE, CoreDriver.T0 + 1000));
        ax.fireEarliest();
        assertThat(derived()).extracting(CoreDriver.Timer::kind).containsExactly(TimerKind.TIMEOUT);
        ax.report(ReportStatus.FAILED, true);
        assertThat(derived()).as("the retry is timed when its record is read back").isEmpty();
        ax.deliverRetry();
        assertThat(derived()).extracting(CoreDriver.Timer::kind).containsExactly(TimerKind.RETRY);
        ax.fireEarliest();
        ax.report(ReportStatus.SUCCEEDED, true);
        assertThat(derived()).extracting(CoreDriver.Timer::kind).containsExactly(TimerKind.PURGE);
        assertThat(derived()).isEqualTo(List.copyOf(ax.timers()));
    }

    @Test
    void shouldDeriveNoOccurrenceWhilePaused() {
        ax.schedule("{\"jobType\":\"j\",\"everyMs\":1000,\"timeoutMs\":700}");
        ax.pause();
        assertThat(derived()).isEmpty();
        assertThat(ax.task().getNextDueAtMs()).isNotNull();
        ax.resume();
        assertThat(derived()).extracting(CoreDriver.Timer::kind).containsExactly(TimerKind.OCCURRENCE);
    }

    @Test
    void shouldDeriveNoOccurrenceForACaughtUpOccurrenceHeldBehindTheExecutionInFlight() {
        ax.schedule("{\"jobType\":\"j\",\"everyMs\":500,\"misfire\":\"FIRE_ALL\",\"timeoutMs\":5000}");
        ax.advanceMs(2_100);
        ax.fire(TimerKind.OCCURRENCE); // the first, fired 2.1 s late: the next four are already due
        ax.fire(TimerKind.OCCURRENCE);
        assertThat(ax.task().getCatchUpHeld()).isTrue();
        assertThat(derived()).extracting(CoreDriver.Timer::kind).containsExactly(TimerKind.TIMEOUT);
        ax.report(ReportStatus.SUCCEEDED, true); // the held one is timed again as the execution ends
        assertThat(derived()).contains(new CoreDriver.Timer(TimerKind.OCCURRENCE, ax.task().getNextDueAtMs()));
    }
}
