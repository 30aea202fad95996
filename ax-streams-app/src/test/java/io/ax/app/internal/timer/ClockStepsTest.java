package io.ax.app.internal.timer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.ax.app.internal.timer.ClockSteps.Direction;
import io.ax.app.internal.timer.ClockSteps.Step;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The wall-clock step detector on readings the test gives it: progress of the wall clock against the monotonic clock. */
class ClockStepsTest {
    private static final long HOUR_MS = 3_600_000;
    private static final long WALL_MS = 1_796_083_200_000L; // 2026-12-01T00:00:00Z
    private static final long MS = 1_000_000; // ns

    private final Logger logger = (Logger) LoggerFactory.getLogger(ClockSteps.class);
    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
    private final ClockSteps steps = new ClockSteps(Time.SYSTEM, 1_000);

    @BeforeEach
    void capture() {
        lines.start();
        logger.addAppender(lines);
    }

    @AfterEach
    void release() {
        logger.detachAppender(lines);
    }

    @Test
    void shouldReportAWallClockStepBackOfAnHourOnceWithBothClocks() {
        assertThat(steps.observe(WALL_MS, 5 * MS)).as("the first reading is the baseline").isNull();
        Step step = steps.observe(WALL_MS - HOUR_MS + 10, 15 * MS);

        assertThat(step).isEqualTo(new Step(Direction.BACKWARD, WALL_MS, WALL_MS - HOUR_MS + 10, 10, -HOUR_MS));
        assertThat(steps.count(Direction.BACKWARD)).isEqualTo(1);
        assertThat(steps.count(Direction.FORWARD)).isZero();
        assertThat(lines.list).singleElement().satisfies(line -> {
            assertThat(line.getLevel().toString()).isEqualTo("ERROR");
            assertThat(line.getFormattedMessage()).startsWith("Wall clock stepped backward by 3600000 ms: it went from "
                    + "2026-12-01T00:00:00Z to 2026-11-30T23:00:00.010Z (-3599990 ms) while the monotonic clock "
                    + "advanced 10 ms (threshold ax.clock.step.threshold.ms=1000)");
        });

        assertThat(steps.observe(WALL_MS - HOUR_MS + 20, 25 * MS)).as("compared with the readings after the step").isNull();
        assertThat(steps.count(Direction.BACKWARD)).isEqualTo(1);
        assertThat(lines.list).hasSize(1);
    }

    @Test
    void shouldReportAWallClockStepForwardOfAnHour() {
        steps.observe(WALL_MS, 0);
        Step step = steps.observe(WALL_MS + HOUR_MS + 10, 10 * MS);

        assertThat(step).isEqualTo(new Step(Direction.FORWARD, WALL_MS, WALL_MS + HOUR_MS + 10, 10, HOUR_MS));
        assertThat(steps.count(Direction.FORWARD)).isEqualTo(1);
        assertThat(steps.count(Direction.BACKWARD)).isZero();
        assertThat(lines.list).singleElement().extracting(ILoggingEvent::getFormattedMessage).asString()
                .contains("stepped forward by 3600000 ms", "from 2026-12-01T00:00:00Z to 2026-12-01T01:00:00.010Z (3600010 ms)",
                        "monotonic clock advanced 10 ms");
    }

    @Test
    void shouldReportOnlyADifferenceBeyondTheThresholdInEitherDirection() {
        steps.observe(WALL_MS, 0);
        long wallMs = WALL_MS;
        long nanos = 0;
        for (long differenceMs : new long[] {1_000, -1_000, 999, -999, 0}) {
            wallMs += 10 + differenceMs;
            nanos += 10 * MS;
            assertThat(steps.observe(wallMs, nanos)).as("a difference of %d ms", differenceMs).isNull();
        }
        wallMs += 10 + 1_001;
        nanos += 10 * MS;
        assertThat(steps.observe(wallMs, nanos)).extracting(Step::direction).isEqualTo(Direction.FORWARD);
        wallMs += 10;
        nanos += (10 + 1_001) * MS;
        assertThat(steps.observe(wallMs, nanos)).extracting(Step::direction).isEqualTo(Direction.BACKWARD);
        assertThat(steps.count(Direction.FORWARD)).isEqualTo(1);
        assertThat(steps.count(Direction.BACKWARD)).isEqualTo(1);
    }

    @Test
    void shouldNotMistakeAStallOfTheThreadForAStep() {
        steps.observe(WALL_MS, 0);
        // A ten-minute GC pause or a stream thread that did not check for ten minutes: both clocks moved as much.
        assertThat(steps.observe(WALL_MS + 600_000, 600_000 * MS)).isNull();
        // Sub-millisecond monotonic progress is not rounded into a step either.
        assertThat(steps.observe(WALL_MS + 600_001, 600_000 * MS + 999_999)).isNull();
        assertThat(steps.count(Direction.FORWARD) + steps.count(Direction.BACKWARD)).isZero();
        assertThat(lines.list).isEmpty();
    }

    @Test
    void shouldReadBothClocksOfTheTimeItIsGiven() {
        SteppingTime time = new SteppingTime(WALL_MS, 0);
        ClockSteps onClock = new ClockSteps(time, 1_000);
        assertThat(onClock.check()).isNull();
        time.move(-HOUR_MS, 10);
        assertThat(onClock.check()).extracting(Step::direction, Step::stepMs).containsExactly(Direction.BACKWARD, -HOUR_MS - 10);
    }

    @Test
    void shouldBeCheckedAtEveryPollSoAStepBackIsReportedWhileKafkaStreamsPunctuatesNothing() {
        SteppingTime time = new SteppingTime(WALL_MS, 0);
        ClockSteps onClock = new ClockSteps(time, 1_000);
        try (TimedPolls polls = new TimedPolls(time, null, 10, onClock, new StreamThreads())) {
            java.util.function.Function<java.time.Duration, org.apache.kafka.clients.consumer.ConsumerRecords<byte[], byte[]>> poll =
                    timeout -> org.apache.kafka.clients.consumer.ConsumerRecords.empty();
            polls.poll(java.time.Duration.ofMillis(100), poll, partition -> -1);
            time.move(-HOUR_MS + 100, 100);
            polls.poll(java.time.Duration.ofMillis(100), poll, partition -> -1);
        }
        assertThat(onClock.count(Direction.BACKWARD)).isEqualTo(1);
        assertThat(lines.list).singleElement().extracting(ILoggingEvent::getFormattedMessage).asString()
                .startsWith("Wall clock stepped backward by 3600000 ms");
    }

    @Test
    void shouldRefuseAThresholdBelowOneMillisecond() {
        assertThatThrownBy(() -> new ClockSteps(Time.SYSTEM, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("thresholdMs must be >= 1: 0");
    }
}
