package io.ax.app.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ax.app.demo.Demo;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The README's first command, `./ax demo`, does what it promises: the demo's tasks, on its real broker, scheduler and
 * worker, end as it says. The test drives the demo's steps itself and waits for each outcome, where {@code ./ax demo}
 * paces them for a reader.
 */
@Tag("integration")
class DemoIT {
    private static final Duration OUTCOMES = Duration.ofMinutes(2);

    @Test
    void shouldScheduleFireExecuteRetryTimeOutFailCancelAndRejectInTheDemo() throws Exception {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(captured, true, StandardCharsets.UTF_8);

        try (Demo.Session demo = new Demo(out, Clock.systemUTC(), Duration.ZERO).start()) {
            // Due 6 s after it was scheduled; a cancel Kafka acknowledged before then wins, however late it is read.
            demo.cancel("reminder", "customer unsubscribed");

            await().atMost(OUTCOMES).untilAsserted(() -> assertThat(demo.latestStates())
                    .containsEntry("welcome-email", "SUCCESS")
                    .containsEntry("nightly-report", "FAILED")
                    .containsEntry("reminder", "CANCELLED")
                    .containsEntry("typo-task", "REJECTED")
                    .containsEntry("charge-card", "SUCCESS")
                    .containsEntry("legacy-export", "FAILED"));
            await().atMost(OUTCOMES).untilAsserted(() -> assertThat(demo.transitions("inventory-sync"))
                    .as("the interval task fires again and again").filteredOn("TRIGGERED"::equals).hasSizeGreaterThanOrEqualTo(2));
            demo.cancel("inventory-sync", "demo over");
            await().atMost(OUTCOMES).untilAsserted(() -> assertThat(demo.latestStates())
                    .containsEntry("inventory-sync", "CANCELLED"));

            assertThat(demo.transitions("reminder")).containsExactly("PENDING", "CANCELLED");
            assertThat(demo.transitions("welcome-email")).as("the duplicate request is ignored")
                    .containsSubsequence("PENDING", "IGNORED", "TRIGGERED", "RUNNING", "SUCCESS");
            assertThat(demo.transitions("charge-card")).as("fails twice, then succeeds on its third attempt")
                    .filteredOn("RETRY_WAITING"::equals).hasSize(2);
        }

        String printed = captured.toString(StandardCharsets.UTF_8);
        System.out.print(printed);
        assertThat(printed).contains("welcome-email    TRIGGERED → RUNNING")
                .contains("IGNORED")
                .contains("charge-card      RUNNING → RETRY_WAITING")
                .contains("legacy-export    TRIGGERED → TIMED_OUT")
                .contains("unknown field delayMS");
    }
}
