package io.ax.worker;

import static io.ax.worker.WorkerHarness.DEADLINE;
import static io.ax.worker.WorkerHarness.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ax.AxTopics;
import io.ax.codec.WorkerAnnouncement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The worker announces itself on the workers topic every heartbeat of its clock, and says goodbye on a graceful close. */
class WorkerAnnouncementsTest {
    private static final TopicPartition P0 = WorkerHarness.partition(0);
    private static final String WORKERS = AxTopics.defaults().workers();

    private final WorkerHarness harness = new WorkerHarness();
    private final CountDownLatch release = new CountDownLatch(1);
    private final CountDownLatch started = new CountDownLatch(1);

    @AfterEach
    void close() {
        release.countDown();
        harness.close();
    }

    private List<ProducerRecord<String, byte[]>> announcements() {
        return harness.producer.history().stream().filter(r -> r.topic().equals(WORKERS)).toList();
    }

    private WorkerAnnouncement last() {
        List<ProducerRecord<String, byte[]>> sent = announcements();
        ProducerRecord<String, byte[]> record = sent.get(sent.size() - 1);
        return WorkerAnnouncement.parse(record.key(), record.value());
    }

    @Test
    void shouldAnnounceItsLanesAndTheExecutionItRunsEveryHeartbeat() throws Exception {
        harness.start(List.of(P0), builder -> builder.heartbeat(Duration.ofSeconds(10))
                .handler("email", 2, context -> {
                    started.countDown();
                    release.await();
                    return Result.success();
                }).handler("sync", context -> Result.success()), List.of(run("t-1", "email", 0, 0)));
        started.await();
        await().atMost(DEADLINE).until(() -> !announcements().isEmpty());
        int first = announcements().size();

        harness.clock.advance(Duration.ofSeconds(9));
        harness.awaitPolls(3);
        assertThat(announcements()).as("not before a heartbeat has passed").hasSize(first);

        harness.clock.advance(Duration.ofSeconds(1));
        await().atMost(DEADLINE).until(() -> announcements().size() > first);
        WorkerAnnouncement announcement = last();
        assertThat(announcement.workerId()).isEqualTo("w1");
        assertThat(announcement.heartbeatMs()).isEqualTo(10_000);
        assertThat(announcement.jobTypes()).containsExactly("email", "sync");
        assertThat(announcement.lanes()).contains(new WorkerAnnouncement.Lane("email", 2, 1, 0));
        assertThat(announcement.inFlight()).singleElement().satisfies(e -> {
            assertThat(e.taskId()).isEqualTo("t-1");
            assertThat(e.jobType()).isEqualTo("email");
        });
        assertThat(announcement.inFlightCount()).isEqualTo(1);
    }

    @Test
    void shouldSayGoodbyeWithATombstoneWhenClosedGracefully() {
        harness.start(List.of(P0), builder -> builder.handler("email", context -> Result.success()), List.of());
        await().atMost(DEADLINE).until(() -> !announcements().isEmpty());

        harness.worker.close(Duration.ofSeconds(5));

        List<ProducerRecord<String, byte[]>> sent = announcements();
        assertThat(sent.get(sent.size() - 1).key()).isEqualTo("w1");
        assertThat(sent.get(sent.size() - 1).value()).isNull();
    }

    @Test
    void shouldStopAnnouncingWhenTheWorkersTopicDoesNotExist() {
        harness.producer.workersTopicMissing(true);
        harness.start(List.of(P0), builder -> builder.heartbeat(Duration.ofSeconds(1)).handler("email", context -> Result.success()),
                List.of());
        await().atMost(DEADLINE).until(() -> harness.producer.workersSends() == 1);

        for (int i = 0; i < 3; i++) {
            harness.clock.advance(Duration.ofSeconds(1));
            harness.awaitPolls(2);
        }
        assertThat(harness.producer.workersSends()).as("one wait for the missing topic, not one per heartbeat").isEqualTo(1);
    }

    @Test
    void shouldAnnounceNothingWhenTurnedOff() {
        harness.start(List.of(P0), builder -> builder.announce(false).handler("email", context -> Result.success()), List.of());
        harness.awaitPolls(3);
        harness.worker.close(Duration.ofSeconds(5));

        assertThat(announcements()).isEmpty();
    }
}
