package io.ax.app.internal.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.ax.app.internal.timer.ConsumerPositions;
import io.ax.app.internal.timer.Fetched;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A scheduler behind its inputs decides late, never wrongly: a timer whose outcome a not-yet-read input could
 * change waits until the input is read (its position past an end offset asked after the timer's time, or a later-stamped
 * record processed). The consumer's view is played by the test.
 */
class DecisionsFollowTheLogTest {
    /** The consumer's view, as the test sets it; absent: nothing fetched yet (a fresh assignment). */
    private final Map<String, Fetched> view = new HashMap<>();
    private final ConsumerPositions positions = (topic, partition) -> view.get(topic);

    private SchedulerHarness harness() {
        return new SchedulerHarness(SchedulerHarness.tempDir(), Map.of(), positions);
    }

    private void caughtUp(SchedulerHarness ax, String topic) {
        view.put(topic, new Fetched(-1, ax.nowMs()));
    }

    @Test
    void shouldWatchOnlyTheInputsADecisionWaitsFor() {
        java.util.Set<String> watched = new java.util.TreeSet<>();
        ConsumerPositions recording = new ConsumerPositions() {
            @Override
            public Fetched fetched(String topic, int partition) {
                return view.get(topic);
            }

            @Override
            public void watch(String topic, int partition) {
                watched.add(topic + "-" + partition);
            }
        };
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir(), Map.of(), recording)) {
            assertThat(watched).as("the requests (a cancel) and the reports (a timeout's answer), and the workers topic's one"
                    + " partition (an announcement that keeps a worker alive), not the retry and dependency logs the scheduler"
                    + " writes itself: every end-offset request asks for each watched partition")
                    .containsExactly("ax.requests-0", "ax.results-0", "ax.workers-0");
        }
    }

    @Test
    void shouldNotTimeOutBeforeTheReportsUpToTheDeadlineAreRead() {
        try (SchedulerHarness ax = harness()) {
            caughtUp(ax, "ax.requests");
            caughtUp(ax, "ax.results");
            ax.request("t", "{\"jobType\":\"j\",\"delayMs\":0,\"timeoutMs\":1000,\"maxRetries\":0}");
            ax.advanceMs(10);
            String executionId = ax.dispatches().get(0).executionId();
            ax.discardEvents();
            caughtUp(ax, "ax.requests");
            view.remove("ax.results"); // the results partition is behind: say, a restart with a backlog of reports
            ax.advanceMs(5_000);
            caughtUp(ax, "ax.requests");
            ax.advanceMs(10);
            assertThat(ax.transitions()).as("no timeout while the reports are unread").isEmpty();

            ax.report("t", "{\"executionId\":\"" + executionId + "\",\"attempt\":1,\"status\":\"SUCCEEDED\"}");
            caughtUp(ax, "ax.results");
            ax.advanceMs(10);
            assertThat(ax.transitions()).containsExactly("SUCCESS");
        }
    }

    @Test
    void shouldTimeOutOnceTheReportsAreReadWithoutAnAnswer() {
        try (SchedulerHarness ax = harness()) {
            caughtUp(ax, "ax.requests");
            caughtUp(ax, "ax.results");
            ax.request("t", "{\"jobType\":\"j\",\"delayMs\":0,\"timeoutMs\":1000,\"maxRetries\":0}");
            ax.advanceMs(10);
            ax.discardDispatches();
            ax.discardEvents();
            view.remove("ax.results");
            ax.advanceMs(2_000);
            assertThat(ax.transitions()).isEmpty();
            caughtUp(ax, "ax.results");
            caughtUp(ax, "ax.requests");
            ax.advanceMs(10);
            assertThat(ax.transitions()).containsExactly("TIMED_OUT", "FAILED");
        }
    }

    @Test
    void shouldLetACancelQueuedBeforeTheDueTimeWinOverTheFire() {
        try (SchedulerHarness ax = harness()) {
            caughtUp(ax, "ax.requests");
            caughtUp(ax, "ax.results");
            ax.request("t", "{\"jobType\":\"j\",\"delayMs\":1000}");
            ax.discardEvents();
            view.remove("ax.requests"); // the requests partition is behind
            ax.advanceMs(3_000);
            assertThat(ax.dispatches()).as("no fire while the requests are unread").isEmpty();
            ax.request("t", "{\"cancel\":true}");
            caughtUp(ax, "ax.requests");
            ax.advanceMs(10);
            assertThat(ax.dispatches()).isEmpty();
            assertThat(ax.transitions()).containsExactly("CANCELLED");
        }
    }

    @Test
    void shouldDecideWhenALaterStampedRecordHasBeenReadEvenIfTheConsumerNeverCatchesUp() {
        try (SchedulerHarness ax = harness()) {
            caughtUp(ax, "ax.requests");
            ax.request("t", "{\"jobType\":\"j\",\"delayMs\":1000}");
            view.remove("ax.requests"); // a standing backlog: the position never reaches an end offset asked
            ax.advanceMs(1_500);
            ax.request("other", "{\"jobType\":\"j\",\"delayMs\":60000}"); // stamped 1,500 ms: within the 1 s skew
            ax.advanceMs(10);
            assertThat(ax.dispatches()).isEmpty();
            ax.advanceMs(1_000);
            ax.request("later", "{\"jobType\":\"j\",\"delayMs\":60000}"); // stamped 2,510 ms: past due + skew
            ax.advanceMs(10);
            assertThat(ax.dispatches()).extracting(SchedulerHarness.Dispatched::key).containsExactly("t");
        }
    }

    @Test
    void shouldWaitForRecordsHandedToStreamsButNotYetProcessed() {
        try (SchedulerHarness ax = harness()) {
            caughtUp(ax, "ax.requests");
            ax.request("t", "{\"jobType\":\"j\",\"delayMs\":1000}"); // offset 0
            // The position reached an end offset asked now, but the polls handed over records up to offset 5 and only 0
            // is processed.
            ax.advanceMs(1_000);
            view.put("ax.requests", new Fetched(6, ax.nowMs()));
            ax.advanceMs(10);
            assertThat(ax.dispatches()).isEmpty();
            for (int i = 1; i <= 5; i++) {
                ax.request("n" + i, "{\"jobType\":\"j\",\"delayMs\":60000}");
            }
            ax.advanceMs(10);
            assertThat(ax.dispatches()).extracting(SchedulerHarness.Dispatched::key).containsExactly("t");
        }
    }
}
