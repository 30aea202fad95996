package io.ax.app.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.ax.app.demo.Demo;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The README's first command, `./ax demo`, does what it promises. */
@Tag("integration")
class DemoIT {

    @Test
    void shouldScheduleFireExecuteRetryTimeOutFailCancelAndRejectInTheDemo() throws Exception {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(captured, true, StandardCharsets.UTF_8);

        Map<String, String> finalStates = new Demo(out, Clock.systemUTC(), Duration.ofSeconds(8)).run();

        String printed = captured.toString(StandardCharsets.UTF_8);
        System.out.print(printed);
        assertThat(finalStates).containsEntry("welcome-email", "SUCCESS")
                .containsEntry("nightly-report", "FAILED")
                .containsEntry("reminder", "CANCELLED")
                .containsEntry("inventory-sync", "CANCELLED")
                .containsEntry("typo-task", "REJECTED")
                .containsEntry("charge-card", "SUCCESS")
                .containsEntry("legacy-export", "FAILED");
        assertThat(printed).contains("welcome-email    TRIGGERED → RUNNING")
                .contains("IGNORED")
                .contains("charge-card      RUNNING → RETRY_WAITING")
                .contains("legacy-export    TRIGGERED → TIMED_OUT")
                .contains("unknown field delayMS");
    }
}
