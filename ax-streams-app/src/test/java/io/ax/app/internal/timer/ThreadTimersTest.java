package io.ax.app.internal.timer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * When a punctuation that fired asks for a commit at once: the thread keeps up with its inputs (its last poll handed over
 * few records) and asked for none in the last {@link ThreadTimers#EARLY_COMMIT_GAP_MS}.
 */
class ThreadTimersTest {
    private static final TopicPartition P = new TopicPartition("ax.requests", 0);

    private static ConsumerRecords<byte[], byte[]> records(int n) {
        List<ConsumerRecord<byte[], byte[]>> list = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            list.add(new ConsumerRecord<>(P.topic(), P.partition(), i, new byte[0], new byte[0]));
        }
        return new ConsumerRecords<>(n == 0 ? Map.of() : Map.of(P, list), Map.of());
    }

    @Test
    void shouldCommitAFireAtOnceThenNotAgainWithinTheGap() {
        ThreadTimers thread = new ThreadTimers();
        thread.view().polled(records(1), partition -> -1L);
        assertThat(thread.commitEarly(0)).as("the first fire, at any clock").isTrue();
        assertThat(thread.commitEarly(ThreadTimers.EARLY_COMMIT_GAP_MS - 1)).as("within the gap").isFalse();
        assertThat(thread.commitEarly(ThreadTimers.EARLY_COMMIT_GAP_MS)).as("a gap later").isTrue();
        assertThat(thread.commitEarly(ThreadTimers.EARLY_COMMIT_GAP_MS + 1)).isFalse();
    }

    @Test
    void shouldLeaveTheCommitsToTheIntervalWhileTheThreadIsBehind() {
        ThreadTimers thread = new ThreadTimers();
        thread.view().polled(records(ConsumerView.KEEPING_UP_MAX_RECORDS + 1), partition -> -1L);
        assertThat(thread.commitEarly(1_000)).as("a poll's worth of records waiting").isFalse();
        thread.view().polled(records(ConsumerView.KEEPING_UP_MAX_RECORDS), partition -> -1L);
        assertThat(thread.commitEarly(1_001)).as("caught up again").isTrue();
        thread.view().polled(records(0), partition -> -1L);
        assertThat(thread.commitEarly(1_002)).as("within the gap, however idle").isFalse();
    }
}
