package io.ax.worker.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class BackoffTest {
    @Test
    void shouldDoubleTheDelayAfterEachFailureUpToTheCap() {
        Backoff backoff = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(5));

        assertThat(IntStream.rangeClosed(1, 8).mapToLong(backoff::delayMs).toArray())
                .containsExactly(100, 200, 400, 800, 1600, 3200, 5000, 5000);
        assertThat(backoff.delayMs(Integer.MAX_VALUE)).as("never overflows").isEqualTo(5000);
    }

    @Test
    void shouldRefuseAFailureCountBelowOne() {
        Backoff backoff = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(5));

        assertThatThrownBy(() -> backoff.delayMs(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("failures must be >= 1: 0");
    }
}
