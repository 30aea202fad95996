package io.ax.worker;

import static io.ax.worker.WorkerHarness.DEADLINE;
import static io.ax.worker.WorkerHarness.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.ax.AxMdc;
import io.ax.schema.ReportStatus;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** Every line logged on the handler thread about an execution carries its taskId and executionId (MDC). */
class ExecutionLogsTest {
    private final WorkerHarness harness = new WorkerHarness();
    private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    private final ListAppender<ILoggingEvent> captured = new ListAppender<>();

    private final Logger runner = (Logger) LoggerFactory.getLogger(io.ax.worker.internal.ExecutionRunner.class);
    private final Logger handlerLogger = (Logger) LoggerFactory.getLogger("billing.handler");

    @AfterEach
    void close() {
        harness.close();
        root.detachAppender(captured);
        runner.setLevel(null);
        handlerLogger.setLevel(null);
    }

    @Test
    void shouldPutTheTaskAndExecutionOnTheRunnersAndTheHandlersOwnLines() {
        runner.setLevel(Level.INFO); // the tests' logback configuration keeps io.ax at WARN
        handlerLogger.setLevel(Level.INFO);
        captured.start();
        root.addAppender(captured);
        org.slf4j.Logger handlerLog = LoggerFactory.getLogger("billing.handler");
        harness.start(List.of(WorkerHarness.partition(0)), b -> b.handler("email", context -> {
            handlerLog.info("sending the invoice");
            return Result.retryable("smtp down");
        }), List.of(run("invoice-9", "email", 0, 0)));
        await().atMost(DEADLINE).until(() -> harness.reports(ReportStatus.FAILED).size() == 1);

        List<ILoggingEvent> own = captured.list.stream().filter(e -> e.getFormattedMessage().equals("sending the invoice")).toList();
        List<ILoggingEvent> runner = captured.list.stream().filter(e -> e.getFormattedMessage().startsWith("Failed taskId=invoice-9")).toList();
        assertThat(own).singleElement().satisfies(e -> assertThat(e.getMDCPropertyMap())
                .containsEntry(AxMdc.TASK_ID, "invoice-9").containsEntry(AxMdc.EXECUTION_ID, "exec-invoice-9"));
        assertThat(runner).singleElement().satisfies(e -> assertThat(e.getMDCPropertyMap())
                .containsEntry(AxMdc.TASK_ID, "invoice-9").containsEntry(AxMdc.EXECUTION_ID, "exec-invoice-9"));
        assertThat(captured.list).filteredOn(e -> e.getThreadName().startsWith("ax-handler-"))
                .allSatisfy(e -> assertThat(e.getMDCPropertyMap()).containsKey(AxMdc.EXECUTION_ID));
    }
}
