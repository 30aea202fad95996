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
}
