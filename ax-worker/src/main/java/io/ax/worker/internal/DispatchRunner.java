package io.ax.worker.internal;

import io.ax.codec.WireCodec;
import io.ax.schema.DispatchKind;
import io.ax.schema.DispatchTask;
import io.ax.worker.JobHandler;
import io.ax.worker.Result;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Everything a worker does with one dispatch record, without Kafka: route it by kind and job type, decode
 * it, wait for its due time, report STARTED, run the handler, report how it ended.
 *
 * <p>Never starts a handler before the task's {@code dueAt} by the worker's clock (the scheduler may
 * dispatch ahead in its opt-in mode). A handler that throws is a retryable failure; a
 * {@link VirtualMachineError} is not caught, so it stops the worker before the record is committed.
 *
 * <p>Thread-safe: one instance serves all handler threads. The handler map must not change.
 */
public final class DispatchRunner {
    /** MDC keys set while a handler runs, so the handler's own log lines carry the task. */
    public static final String MDC_TASK_ID = "ax.taskId";
    public static final String MDC_EXECUTION_ID = "ax.executionId";

    private static final Logger log = LoggerFactory.getLogger(DispatchRunner.class);

    private final Map<String, JobHandler> handlers;
    private final Reports reports;
    private final Clock clock;
    private final Sleeper sleeper;
    private final AtomicLong skippedUnknownJobType = new AtomicLong();

    public DispatchRunner(Map<String, JobHandler> handlers, Reports reports, Clock clock, Sleeper sleeper) {
        this.handlers = Map.copyOf(handlers);
        this.reports = reports;
        this.clock = clock;
        this.sleeper = sleeper;
    }

    /** Deals with one record, sending its reports to {@code sink}; never throws for a bad record or a failing handler. */
    public Disposition run(ConsumerRecord<String, byte[]> record, ReportSink sink) {
        DispatchHeaders headers = DispatchHeaders.of(record.headers());
        if (headers.isCancel()) {
            return ignoreCancel(record.key(), headers.executionId());
        }
        if (headers.jobType() != null && !handlers.containsKey(headers.jobType())) {
            return skipUnknownJobType(record.key(), headers.executionId(), headers.jobType());
        }
        DispatchTask task;
        try {
            task = WireCodec.decodeBinary(record.value(), DispatchTask.class);
        } catch (RuntimeException e) {
            return rejectUndecodable(record, headers, e, sink);
        }
        if (task.getKind() == DispatchKind.CANCEL) {
            return ignoreCancel(task.getTaskId(), task.getExecutionId());
        }
        JobHandler handler = handlers.get(task.getJobType());
        if (handler == null) {
            return skipUnknownJobType(task.getTaskId(), task.getExecutionId(), task.getJobType());
        }
        if (!waitUntilDue(task)) {
            return Disposition.NOT_STARTED;
        }
        execute(task, handler, sink);
        return Disposition.RAN;
    }

    /** Dispatches skipped because no handler here serves their job type. */
    public long skippedUnknownJobType() {
        return skippedUnknownJobType.get();
    }

    private void execute(DispatchTask task, JobHandler handler, ReportSink sink) {
        sink.send(task.getTaskId(), reports.started(task.getExecutionId(), task.getAttempt()));
        log.debug("Started taskId={} executionId={} attempt={} jobType={}",
                task.getTaskId(), task.getExecutionId(), task.getAttempt(), task.getJobType());
        Result result = runHandler(task, handler);
        sink.send(task.getTaskId(), reports.finished(task.getExecutionId(), task.getAttempt(), result));
        if (result.isSuccess()) {
            log.debug("Succeeded taskId={} executionId={} attempt={}", task.getTaskId(), task.getExecutionId(), task.getAttempt());
        } else {
            log.info("Failed taskId={} executionId={} attempt={} retryable={} message={}", task.getTaskId(),
                    task.getExecutionId(), task.getAttempt(), result.isRetryable(), result.message());
        }
    }

    private Result runHandler(DispatchTask task, JobHandler handler) {
        MDC.put(MDC_TASK_ID, task.getTaskId());
        MDC.put(MDC_EXECUTION_ID, task.getExecutionId());
        try {
            Result result = handler.handle(DispatchJobContext.of(task));
            return result != null ? result : Result.retryable("the handler returned null instead of a Result");
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Throwable e) {
            log.warn("Handler threw for taskId={} executionId={} attempt={}",
                    task.getTaskId(), task.getExecutionId(), task.getAttempt(), e);
            return Result.retryable(e.getMessage() == null ? e.getClass().getName() : e.getClass().getName() + ": " + e.getMessage());
        } finally {
            MDC.remove(MDC_TASK_ID);
            MDC.remove(MDC_EXECUTION_ID);
        }
    }

    /** @return false when interrupted before the due time: the handler must not run */
    private boolean waitUntilDue(DispatchTask task) {
        long waitMs = task.getDueAtMs() - clock.millis();
        while (waitMs > 0) {
            log.debug("Holding taskId={} executionId={} for {} ms until its due time",
                    task.getTaskId(), task.getExecutionId(), waitMs);
            try {
                sleeper.sleep(Duration.ofMillis(waitMs));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                log.info("Interrupted before the due time of taskId={} executionId={}; not started, it will be redelivered",
                        task.getTaskId(), task.getExecutionId());
                return false;
            }
            waitMs = task.getDueAtMs() - clock.millis();
        }
        return true;
    }

    private Disposition rejectUndecodable(ConsumerRecord<String, byte[]> record, DispatchHeaders headers,
                                          RuntimeException error, ReportSink sink) {
        log.error("Cannot decode the dispatch record at {}-{}@{} (taskId={} executionId={}): {}", record.topic(),
                record.partition(), record.offset(), record.key(), headers.executionId(), error.getMessage());
        if (headers.canReport()) {
            sink.send(record.key(), reports.failed(headers.executionId(), headers.attempt().getAsInt(), false,
                    "the worker cannot decode the dispatch record: " + error.getMessage()));
        }
        return Disposition.UNDECODABLE;
    }

    private Disposition skipUnknownJobType(String taskId, String executionId, String jobType) {
        skippedUnknownJobType.incrementAndGet();
        log.warn("No handler for jobType={}; skipped taskId={} executionId={} (another worker group may serve it)",
                jobType, taskId, executionId);
        return Disposition.SKIPPED_UNKNOWN_JOB_TYPE;
    }

    private static Disposition ignoreCancel(String taskId, String executionId) {
        log.debug("Ignoring cancel signal for taskId={} executionId={} (cancelling running handlers is not supported yet)",
                taskId, executionId);
        return Disposition.CANCEL_IGNORED;
    }
}
