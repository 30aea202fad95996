package io.ax.worker.internal;

import io.ax.schema.ExecutionReport;

/** Where a {@link DispatchRunner} sends its reports (the results topic, or a list in tests). Must be thread-safe. */
@FunctionalInterface
public interface ReportSink {
    /** Sends {@code report} keyed by {@code taskId}; must not block on the acknowledgement. */
    void send(String taskId, ExecutionReport report);
}
