package io.ax.app.internal.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.function.Supplier;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.junit.jupiter.api.Test;

class StreamThreadFailuresTest {
    /** A clock the test moves. */
    private static final class SettableTime implements Time {
        private long nowMs = 1_000_000;

        @Override
        public long milliseconds() {
            return nowMs;
        }

        @Override
        public long nanoseconds() {
            return nowMs * 1_000_000;
        }

        @Override
        public void sleep(long ms) {
            nowMs += ms;
        }

        @Override
        public void waitObject(Object obj, Supplier<Boolean> condition, long deadlineMs) {
            throw new UnsupportedOperationException();
        }
    }

    private final SettableTime time = new SettableTime();
    private final StreamThreadFailures failures = new StreamThreadFailures(time, 3, 600_000);

    @Test
    void shouldReplaceAThreadThatDiesNowAndThen() {
        for (int i = 0; i < 10; i++) {
            assertThat(failures.handle(new IllegalStateException("once"))).isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
            time.sleep(301_000); // at most two deaths fall within any 10-minute window
        }
    }

    @Test
    void shouldShutTheInstanceDownWhenAThreadKeepsDying() {
        assertThat(failures.handle(new IllegalStateException("1"))).isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
        time.sleep(1_000);
        assertThat(failures.handle(new IllegalStateException("2"))).isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
        time.sleep(1_000);
        assertThat(failures.handle(new IllegalStateException("3"))).isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
    }
}
