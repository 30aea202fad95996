package io.ax.app.internal.topology;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.ax.AxMdc;
import io.ax.app.internal.topology.SchedulerHarness.Dispatched;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The scheduler's lines about an execution (every state change at DEBUG, {@code -Dax.log.events=DEBUG}) carry its
 * taskId and executionId in the MDC, under the keys the worker uses ({@link AxMdc}).
 */
class SchedulerLogsTest {
    private final Logger events = (Logger) LoggerFactory.getLogger(ApplyDecisions.class);
    private final ListAppender<ILoggingEvent> captured = new ListAppender<>();
    private Level before;

    @AfterEach
    void restore() {
        events.detachAppender(captured);
        events.setLevel(before);
    }

    @Test
    void shouldPutTheTaskAndExecutionOnEveryLineAboutIt() {
        before = events.getLevel();
        events.setLevel(Level.DEBUG);
        captured.start();
        events.addAppender(captured);
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("invoice-9", "{\"jobType\":\"email\",\"delayMs\":0}");
            ax.advanceMs(10);
            Dispatched fired = ax.dispatches().get(0);
            ax.report("invoice-9", "{\"executionId\":\"" + fired.executionId() + "\",\"attempt\":1,\"status\":\"SUCCEEDED\"}");
            List<ILoggingEvent> lines = captured.list.stream().filter(e -> e.getFormattedMessage().contains("taskId=invoice-9")).toList();
            assertThat(lines).extracting(e -> e.getFormattedMessage().replaceAll(".* (\\S+ -> \\S+).*", "$1"))
                    .containsExactly("null -> PENDING", "PENDING -> TRIGGERED", "TRIGGERED -> SUCCESS");
            assertThat(lines).allSatisfy(e -> assertThat(e.getMDCPropertyMap()).containsEntry(AxMdc.TASK_ID, "invoice-9")
                    .containsEntry(AxMdc.EXECUTION_ID, fired.executionId()));
        }
        assertThat(org.slf4j.MDC.getCopyOfContextMap()).as("nothing left behind on the thread").isNullOrEmpty();
    }

    @Test
    void shouldLogOneBoundedWarningPerDeadLetterNamingItsExecutionTaskAndOwner() {
        LogCapture logs = LogCapture.root();
        String longMessage = "card declined\nFAKE LINE " + "x".repeat(5_000);
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("charge-7", "{\"jobType\":\"payment\",\"delayMs\":0,\"maxRetries\":0,\"owner\":\"billing\"}");
            ax.request("charge-8", "{\"jobType\":\"payment\",\"delayMs\":0,\"maxRetries\":1,\"backoffMs\":100,\"jitter\":false}");
            ax.advanceMs(10);
            List<Dispatched> fired = ax.dispatches();
            Dispatched seven = fired.stream().filter(d -> d.key().equals("charge-7")).findFirst().orElseThrow();
            Dispatched eight = fired.stream().filter(d -> d.key().equals("charge-8")).findFirst().orElseThrow();
            ax.report("charge-7", "{\"executionId\":\"" + seven.executionId() + "\",\"attempt\":1,\"status\":\"FAILED\","
                    + "\"retryable\":true,\"message\":" + com.fasterxml.jackson.databind.node.TextNode.valueOf(longMessage) + "}");
            ax.report("charge-8", "{\"executionId\":\"" + eight.executionId() + "\",\"attempt\":1,\"status\":\"FAILED\"}");
            assertThat(ax.deadLetters()).hasSize(1);

            List<ILoggingEvent> warnings = logs.events().stream()
                    .filter(e -> e.getLevel() == Level.WARN && e.getFormattedMessage().startsWith("Dead letter")).toList();
            assertThat(warnings).as("charge-8 is retried, not dead-lettered").singleElement().satisfies(e -> {
                assertThat(e.getLoggerName()).isEqualTo(ApplyDecisions.class.getName());
                assertThat(e.getFormattedMessage()).startsWith("Dead letter taskId=\"charge-7\" executionId=\"" + seven.executionId()
                        + "\" owner=\"billing\" jobType=\"payment\" attempt=1: ").contains("card declined?FAKE LINE")
                        .doesNotContain("\n").hasSizeLessThan(600);
                assertThat(e.getMDCPropertyMap()).containsEntry(AxMdc.EXECUTION_ID, seven.executionId());
            });
        } finally {
            logs.stop();
        }
    }
}
