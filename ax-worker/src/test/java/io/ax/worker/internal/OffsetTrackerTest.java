package io.ax.worker.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class OffsetTrackerTest {
    private static final TopicPartition P0 = new TopicPartition("ax.dispatch", 0);
    private final OffsetTracker tracker = new OffsetTracker();

    @Test
    void shouldCommitUpToTheLowestUnfinishedOffsetWhenWorkFinishesOutOfOrder() {
        tracker.register(P0, 10);
        tracker.register(P0, 11);
        tracker.register(P0, 12);
        assertThat(tracker.toCommit(null)).as("nothing done yet").isEmpty();

        tracker.complete(P0, 12);
        tracker.complete(P0, 10);
        assertThat(tracker.toCommit(null)).isEqualTo(Map.of(P0, new OffsetAndMetadata(11)));
        tracker.committed(tracker.toCommit(null));
        assertThat(tracker.toCommit(null)).as("nothing new").isEmpty();

        tracker.complete(P0, 11);
        assertThat(tracker.toCommit(null)).isEqualTo(Map.of(P0, new OffsetAndMetadata(13)));
    }

    @Test
    void shouldIgnoreCompletionsOfARevokedPartition() {
        tracker.register(P0, 0);
        tracker.forget(List.of(P0));

        assertThat(tracker.complete(P0, 0)).isFalse();
        assertThat(tracker.toCommit(null)).isEmpty();
    }
}
