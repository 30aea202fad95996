package io.ax.worker.internal;

import io.ax.schema.ExecutionReport;
import io.ax.schema.ReportStatus;
import io.ax.worker.Result;
import java.time.Clock;

/** Builds the {@link ExecutionReport}s one worker sends, stamped with its id and clock. Thread-safe. */
public final class Reports {
    /** Longer failure messages (deep exception chains) are cut so a report stays a small record. */
    static final int MAX_MESSAGE_CHARS = 4000;

    private final String workerId;
    private final Clock clock;

    public Reports(String workerId, Clock clock) {
        this.workerId = workerId;
        this.clock = clock;
    }

    public ExecutionReport started(String executionId, int attempt) {
        return report(executionId, attempt, ReportStatus.STARTED, true, null);
    }

    public ExecutionReport heartbeat(String executionId, int attempt) {
        return report(executionId, attempt, ReportStatus.HEARTBEAT, true, null);
    }

    /** A HEARTBEAT asking the scheduler for {@code extendMs} more running time (start-to-close) from now. */
    public ExecutionReport extend(String executionId, int attempt, long extendMs) {
        ExecutionReport report = heartbeat(executionId, attempt);
        report.setExtendMs(extendMs);
        return report;
    }

    /** A HEARTBEAT carrying a progress checkpoint for the next attempt. */
    public ExecutionReport progress(String executionId, int attempt, String progress) {
        ExecutionReport report = heartbeat(executionId, attempt);
        report.setProgress(progress);
        return report;
    }

    /** SUCCEEDED, or FAILED with the result's retryable flag and message. */
    public ExecutionReport finished(String executionId, int attempt, Result result) {
        if (result.isSuccess()) {
            return report(executionId, attempt, ReportStatus.SUCCEEDED, true, null);
        }
        return failed(executionId, attempt, result.isRetryable(), result.message());
    }

    public ExecutionReport failed(String executionId, int attempt, boolean retryable, String message) {
        return report(executionId, attempt, ReportStatus.FAILED, retryable, truncate(message));
    }

    private ExecutionReport report(String executionId, int attempt, ReportStatus status, boolean retryable, String message) {
        return ExecutionReport.newBuilder().setExecutionId(executionId).setAttempt(attempt).setStatus(status)
                .setRetryable(retryable).setMessage(message).setWorkerId(workerId).setReportedAtMs(clock.millis()).build();
    }

    private static String truncate(String message) {
        if (message == null || message.length() <= MAX_MESSAGE_CHARS) {
            return message;
        }
        return message.substring(0, MAX_MESSAGE_CHARS - 3) + "...";
    }
}
