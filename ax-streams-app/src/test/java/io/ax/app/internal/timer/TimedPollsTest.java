package io.ax.app.internal.timer;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.internals.KafkaFutureImpl;
import org.junit.jupiter.api.Test;

class TimedPollsTest {
    private static final String TOPIC = "ax.requests";
    private final SteppingTime time = new SteppingTime(1_000_000, 0);
    private final AskedEndOffsets endOffsets = new AskedEndOffsets();
    private final List<KafkaFutureImpl<Map<TopicPartition, Long>>> asked = endOffsets.asked;
    private final EndOffsetProbe probe = endOffsets.probe(10);
    private final Object owner = new Object();
    private final StreamThreads threads = new StreamThreads();
    private final WakeUps wakeUps = threads.current().wakeUps();

    @Test
    void shouldAskTheEndOffsetsOnceAsSoonAsInputsAreWatchedThenOnlyWhileTimersAreDue() {
        TimedPolls polls = new TimedPolls(time, probe, 10, threads);
        wakeUps.set(owner, Long.MAX_VALUE, Long.MAX_VALUE); // no timer due

        poll(polls);
        assertThat(asked).as("nothing watched yet: nothing to ask").isEmpty();

        threads.current().view().watch(TOPIC, 0);
        poll(polls);
        assertThat(asked).as("the first request goes at once, no timer due: it readies the client").hasSize(1);

        asked.get(0).complete(Map.of(new TopicPartition(TOPIC, 0), 0L));
        time.move(100, 100);
        poll(polls);
        poll(polls);
        assertThat(asked).as("then none while no timer is due").hasSize(1);

        wakeUps.set(owner, time.milliseconds(), time.milliseconds());
        poll(polls);
        assertThat(asked).as("a timer due: asked again").hasSize(2);
    }

    @Test
    void shouldAskTheEndOffsetsOnceATimerCanFireEvenWhenARecordEndsThePollBeforeItsPunctuation() {
        TimedPolls polls = pollsWithTheFirstAnswerTakenUp();

        long dueMs = time.milliseconds();
        wakeUps.set(owner, dueMs + 10, dueMs); // fire time come, its punctuation (the wake-up) 10 ms later
        pollWithARecord(polls);
        assertThat(asked).as("asked at the first poll after the fire time, though a record ended it before the wake-up")
                .hasSize(2);
    }

    @Test
    void shouldPollAMillisecondAtATimeWhileADueTimerWaitsForTheAnswerOnlyUntilTheWaitIsOver() {
        TimedPolls polls = pollsWithTheFirstAnswerTakenUp();
        long dueMs = time.milliseconds();
        wakeUps.set(owner, dueMs + 50, dueMs);
        pollWithARecord(polls); // asks; the answer does not come
        assertThat(asked).hasSize(2);

        List<Duration> timeouts = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            polls.poll(Duration.ofMillis(100), timeout -> {
                timeouts.add(timeout);
                time.move(1, 1);
                return oneRecord();
            }, partition -> 0L);
        }
        assertThat(timeouts.subList(0, 9)).as("a millisecond at a time while the answer may come")
                .allSatisfy(timeout -> assertThat(timeout).isEqualTo(Duration.ofMillis(1)));
        assertThat(timeouts.get(11)).as("up to the wake-up again once the wait is over, answer or not")
                .isGreaterThan(Duration.ofMillis(1));
    }

    @Test
    void shouldAskAgainInThePollThatTakesTheAnswerUpWhenThePositionHasReachedIt() {
        TimedPolls polls = new TimedPolls(time, probe, 10, threads);
        threads.current().view().watch(TOPIC, 0);
        wakeUps.set(owner, time.milliseconds(), time.milliseconds()); // a timer due all along
        long askedAtMs = time.milliseconds() + 1; // after the poll, which takes a millisecond
        poll(polls);
        assertThat(asked).hasSize(1);

        asked.get(0).complete(Map.of(new TopicPartition(TOPIC, 0), 0L));
        time.move(20, 20);
        poll(polls); // takes the answer up; the position (0) has reached it
        assertThat(threads.current().view().fetched(TOPIC, 0)).as("proven in the poll that took the answer up")
                .isEqualTo(new Fetched(-1, askedAtMs));
        assertThat(asked).as("and the next request sent by that same poll, not a poll later").hasSize(2);
    }

    /** Polls that asked the end offsets of one watched partition once, had the answer and took it up: none pending. */
    private TimedPolls pollsWithTheFirstAnswerTakenUp() {
        TimedPolls polls = new TimedPolls(time, probe, 10, threads);
        threads.current().view().watch(TOPIC, 0);
        poll(polls);
        asked.get(0).complete(Map.of(new TopicPartition(TOPIC, 0), 0L));
        time.move(100, 100);
        poll(polls); // takes the answer up: the input is read up to its end offset
        return polls;
    }

    private void pollWithARecord(TimedPolls polls) {
        polls.poll(Duration.ofMillis(100), timeout -> {
            time.move(1, 1);
            return oneRecord();
        }, partition -> 0L);
    }

    private static ConsumerRecords<byte[], byte[]> oneRecord() {
        TopicPartition partition = new TopicPartition(TOPIC, 0);
        return new ConsumerRecords<>(Map.of(partition, List.of(new ConsumerRecord<>(TOPIC, 0, 0, new byte[0], new byte[0]))), Map.of());
    }

    private void poll(TimedPolls polls) {
        polls.poll(Duration.ofMillis(100), timeout -> {
            time.move(1, 1); // a poll takes time: the wait for an answer ends after probeWaitMs
            return ConsumerRecords.empty();
        }, partition -> 0L);
    }
}
