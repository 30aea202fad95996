package io.ax.app.internal.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.ax.schema.AtTrigger;
import io.ax.schema.ScheduleRequest;
import java.util.List;
import org.junit.jupiter.api.Test;

class BackoffTest {
    private static final long BASE = 1_000;
    private static final long CAP = 600_000;

    private static ScheduleRequest.Builder request() {
        return ScheduleRequest.newBuilder().setJobType("j").setTrigger(new AtTrigger(0L));
    }

    @Test
    void shouldDoubleFromTheBaseUpToTheCapWithoutJitter() {
        ScheduleRequest request = request().setJitter(false).build();
        assertThat(Backoff.delayMs(request, 1, "e", BASE, CAP)).isEqualTo(1_000);
        assertThat(Backoff.delayMs(request, 2, "e", BASE, CAP)).isEqualTo(2_000);
        assertThat(Backoff.delayMs(request, 10, "e", BASE, CAP)).isEqualTo(512_000);
        assertThat(Backoff.delayMs(request, 11, "e", BASE, CAP)).as("capped").isEqualTo(CAP);
        assertThat(Backoff.delayMs(request, 101, "e", BASE, CAP)).as("no overflow far past 63 doublings").isEqualTo(CAP);
        assertThat(Backoff.delayMs(request().setJitter(false).setBackoffMs(300L).build(), 3, "e", BASE, CAP))
                .as("the task's own base").isEqualTo(1_200);
    }

    @Test
    void shouldTakeAnExplicitListWhoseLastEntryRepeatsUncapped() {
        ScheduleRequest request = request().setJitter(false).setBackoffIntervalsMs(List.of(5_000L, 30_000L, 7_200_000L)).build();
        assertThat(Backoff.delayMs(request, 1, "e", BASE, CAP)).isEqualTo(5_000);
        assertThat(Backoff.delayMs(request, 2, "e", BASE, CAP)).isEqualTo(30_000);
        assertThat(Backoff.delayMs(request, 3, "e", BASE, CAP)).isEqualTo(7_200_000);
        assertThat(Backoff.delayMs(request, 9, "e", BASE, CAP)).isEqualTo(7_200_000);
    }

    @Test
    void shouldJitterWithinTheUpperHalfDeterministicallyPerExecutionAndRetry() {
        ScheduleRequest request = request().build();
        long spread = 0;
        for (int i = 0; i < 1_000; i++) {
            String executionId = "execution-" + i;
            long delay = Backoff.delayMs(request, 3, executionId, BASE, CAP);
            assertThat(delay).isBetween(2_000L, 3_999L);
            assertThat(Backoff.delayMs(request, 3, executionId, BASE, CAP)).as("the same on re-processing").isEqualTo(delay);
            spread = Math.max(spread, delay - 2_000);
        }
        assertThat(spread).as("executions spread over the half window").isGreaterThan(1_800);
    }
}
