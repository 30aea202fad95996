package io.ax.worker.internal;

import io.ax.schema.ExecutionReport;
import java.util.function.Consumer;

/** Where reports go (the results topic, or a list in tests). Must be thread-safe and must not block. */
@FunctionalInterface
public interface ReportSink {
    /**
     * Sends {@code report} keyed by {@code taskId}; calls {@code onAck} exactly once, from any thread, with
     * {@code null} when the report is acknowledged or with the error when it is not.
     */
    void send(String taskId, ExecutionReport report, Consumer<Exception> onAck);
}
