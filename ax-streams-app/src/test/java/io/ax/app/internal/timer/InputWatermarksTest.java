package io.ax.app.internal.timer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class InputWatermarksTest {
    private final Map<String, Fetched> view = new HashMap<>();
    private final InputWatermarks inputs = new InputWatermarks((topic, partition) -> view.get(topic + "-" + partition), 3, 1_000,
            "requests", "results");

    @Test
    void shouldKnowNothingBeforeTheFirstProof() {
        assertThat(inputs.readUpToMs(0, 50_000)).isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void shouldBeReadUpToTheTimeTheEndOffsetWasAskedOnceEverythingHandedOverIsProcessed() {
        view.put("requests-3", new Fetched(101, 40_000));
        assertThat(inputs.readUpToMs(0, 50_000)).as("offset 100 handed over, not processed").isEqualTo(Long.MIN_VALUE);
        inputs.processed(0, 99, 39_000);
        assertThat(inputs.readUpToMs(0, 50_000)).as("only what offset 99's timestamp proves").isEqualTo(39_000 - 1_000 - 1);
        inputs.processed(0, 100, 39_500);
        assertThat(inputs.readUpToMs(0, 50_000)).isEqualTo(40_000);
        assertThat(inputs.readUpToMs(0, 30_000)).as("never past now").isEqualTo(30_000);
        assertThat(inputs.readUpToMs(1, 50_000)).as("each input on its own").isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void shouldKeepTheLastProofThatHeldWhileANewerOneWaitsForItsRecordsToBeProcessed() {
        view.put("requests-3", new Fetched(101, 40_000));
        inputs.processed(0, 100, 39_500);
        assertThat(inputs.readUpToMs(0, 50_000)).isEqualTo(40_000);

        view.put("requests-3", new Fetched(201, 45_000)); // the position reached a newer answer: offset 200 handed over
        inputs.processed(0, 150, 40_500); // its timestamp proves 39,499 only
        assertThat(inputs.readUpToMs(0, 50_000)).as("what was read up to 40 s is read still, not only what a timestamp proves")
                .isEqualTo(40_000);
        inputs.processed(0, 200, 40_900);
        assertThat(inputs.readUpToMs(0, 50_000)).isEqualTo(45_000);
    }

    @Test
    void shouldTrustAProofWithNothingHandedOver() {
        view.put("requests-3", new Fetched(-1, 40_000));
        assertThat(inputs.readUpToMs(0, 50_000)).as("position at the end offset, nothing ever returned").isEqualTo(40_000);
    }

    @Test
    void shouldBeReadUpToJustBeforeTheLatestTimestampLessTheSkew() {
        view.put("results-3", new Fetched(200, 40_000));
        inputs.processed(1, 7, 45_000);
        assertThat(inputs.readUpToMs(1, 50_000)).isEqualTo(45_000 - 1_000 - 1);
    }

    // ---- the consumer's side: ConsumerView, as the stream thread's consumer drives it ----

    private static final TopicPartition REQUESTS_3 = new TopicPartition("ax.requests", 3);
    private final Map<TopicPartition, Long> positions = new HashMap<>();
    private final ConsumerView consumerView = new ConsumerView();
    private final InputWatermarks live = new InputWatermarks(consumerView, 3, 1_000, "ax.requests");

    @AfterEach
    void unwatch() {
        live.close();
    }

    private void poll(long... offsets) {
        List<ConsumerRecord<byte[], byte[]>> returned = new java.util.ArrayList<>();
        for (long offset : offsets) {
            returned.add(new ConsumerRecord<>(REQUESTS_3.topic(), REQUESTS_3.partition(), offset, new byte[0], new byte[0]));
        }
        consumerView.polled(new ConsumerRecords<>(returned.isEmpty() ? Map.of() : Map.of(REQUESTS_3, returned), Map.of()),
                partition -> positions.getOrDefault(partition, -1L));
    }

    @Test
    void shouldWatchOnlyTheInputsOfTheStreamTasksOpenOnTheThread() {
        assertThat(consumerView.watched()).containsExactly(REQUESTS_3);
        live.close();
        assertThat(consumerView.watched()).isEmpty();
        consumerView.watch("ax.requests", 3); // for @AfterEach
    }

    @Test
    void shouldProveReadUpToTheAskTimeOnlyOnceThePositionReachesTheEndOffsetAsked() {
        positions.put(REQUESTS_3, 10L);
        poll(8, 9);
        live.processed(0, 9, 1_000);
        consumerView.probed(50_000, Map.of(REQUESTS_3, 14L)); // 4 records appended before 50,000 are unread
        poll();
        assertThat(live.readUpToMs(0, 60_000)).as("position 10 < end offset 14: a cancel may still lie in 10..13")
                .isEqualTo(1_000 - 1_000 - 1);
        positions.put(REQUESTS_3, 14L);
        poll(10, 11, 12, 13);
        assertThat(live.readUpToMs(0, 60_000)).as("returned, not yet processed").isEqualTo(1_000 - 1_000 - 1);
        live.processed(0, 13, 2_000);
        assertThat(live.readUpToMs(0, 60_000)).isEqualTo(50_000);
    }

    @Test
    void shouldWaitOnlyForTheRecordsBelowTheEndOffsetAsked() {
        positions.put(REQUESTS_3, 10L);
        poll(8, 9);
        live.processed(0, 9, 1_000);
        consumerView.probed(50_000, Map.of(REQUESTS_3, 12L)); // 10 and 11 were appended before 50,000
        positions.put(REQUESTS_3, 16L);
        poll(10, 11, 12, 13, 14, 15); // 12..15 after it: a fire due at 50,000 need not wait for them
        live.processed(0, 10, 1_100);
        assertThat(live.readUpToMs(0, 60_000)).as("offset 11 not processed yet").isEqualTo(1_100 - 1_000 - 1);
        live.processed(0, 11, 1_200);
        assertThat(live.readUpToMs(0, 60_000)).isEqualTo(50_000);
    }

    @Test
    void shouldStepOverTransactionMarkersByThePosition() {
        // The last data record is offset 4; the commit marker takes offset 5; the last stable offset is 6.
        positions.put(REQUESTS_3, 6L);
        poll(4);
        live.processed(0, 4, 1_000);
        consumerView.probed(50_000, Map.of(REQUESTS_3, 6L));
        poll();
        assertThat(live.readUpToMs(0, 60_000)).isEqualTo(50_000);
    }

    @Test
    void shouldKeepTheEarlierAnswerUntilThePositionReachesIt() {
        positions.put(REQUESTS_3, 0L);
        consumerView.probed(50_000, Map.of(REQUESTS_3, 5L));
        consumerView.probed(50_100, Map.of(REQUESTS_3, 500L)); // behind a growing backlog
        positions.put(REQUESTS_3, 5L);
        poll(0, 1, 2, 3, 4);
        live.processed(0, 4, 1_000);
        assertThat(live.readUpToMs(0, 60_000)).as("the earlier answer, reached first").isEqualTo(50_000);
        assertThat(consumerView.anyPending()).isFalse();
        consumerView.probed(49_000, Map.of(REQUESTS_3, 5L));
        assertThat(consumerView.anyPending()).as("an answer older than the proof is no use").isFalse();
    }

    @Test
    void shouldIgnoreAnswersForPartitionsNotWatched() {
        consumerView.probed(50_000, Map.of(new TopicPartition("ax.requests", 4), 5L));
        assertThat(consumerView.anyPending()).isFalse();
        assertThat(consumerView.watched()).isEqualTo(Set.of(REQUESTS_3));
    }
}
