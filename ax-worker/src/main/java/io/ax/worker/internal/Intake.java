package io.ax.worker.internal;

import io.ax.codec.RegistryCodec;
import io.ax.schema.DispatchKind;
import io.ax.schema.DispatchTask;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides, on the poll loop thread, what a dispatch record is: a RUN for a handler here (returned as an
 * {@link Execution}), a cancel signal, a job type this worker does not serve, or a record it cannot decode.
 * The last three are dealt with here, and {@code settled} is called (from any thread) once the record's
 * offset may be committed.
 *
 * <p>A record that cannot be decoded is reported FAILED, not retryable, with the reason, when its headers name
 * the execution; either way it is logged with topic/partition/offset, counted, and committed past. A job type
 * with no handler here is skipped, logged and counted (another worker group may serve it), or, in strict mode,
 * reported FAILED, not retryable. Not thread-safe; the counters may be read from any thread.
 */
final class Intake {
    private static final Logger log = LoggerFactory.getLogger(Intake.class);

    private final ExecutionRunner runner;
    private final Reports reports;
    private final ReportSink sink;
    private final boolean failUnknownJobTypes;
    private final RegistryCodec codec;
    private final AtomicLong skippedUnknownJobType = new AtomicLong();
    private final AtomicLong undecodable = new AtomicLong();

    Intake(ExecutionRunner runner, Reports reports, ReportSink sink, boolean failUnknownJobTypes) {
        this(runner, reports, sink, failUnknownJobTypes, RegistryCodec.NONE);
    }

    /** @param codec decodes dispatches: single-object, or the registry wire format when it has a registry */
    Intake(ExecutionRunner runner, Reports reports, ReportSink sink, boolean failUnknownJobTypes, RegistryCodec codec) {
        this.codec = codec;
        this.runner = runner;
        this.reports = reports;
        this.sink = sink;
        this.failUnknownJobTypes = failUnknownJobTypes;
    }

    /**
     * @param cancel called with the executionId of a cancel signal
     * @return the execution to run, or null when the record was dealt with here
     */
    Execution take(ConsumerRecord<String, byte[]> record, Consumer<String> cancel, Runnable settled) {
        DispatchHeaders headers = DispatchHeaders.of(record.headers());
        if (headers.isCancel() && headers.executionId() != null) {
            return signalCancel(record.key(), headers.executionId(), cancel, settled);
        }
        if (headers.jobType() != null && !runner.serves(headers.jobType()) && !headers.isCancel()) {
            return unknownJobType(record.key(), headers.executionId(), headers.attempt().orElse(0), headers.jobType(), settled);
        }
        DispatchTask task;
        try {
            task = codec.decodeBinary(record.value(), DispatchTask.class);
        } catch (RuntimeException e) {
            return rejectUndecodable(record, headers, e, settled);
        }
        if (task.getKind() == DispatchKind.CANCEL) {
            return signalCancel(task.getTaskId(), task.getExecutionId(), cancel, settled);
        }
        if (!runner.serves(task.getJobType())) {
            return unknownJobType(task.getTaskId(), task.getExecutionId(), task.getAttempt(), task.getJobType(), settled);
        }
        return new Execution(record, task);
    }

    long skippedUnknownJobType() {
        return skippedUnknownJobType.get();
    }

    long undecodable() {
        return undecodable.get();
    }

    private static Execution signalCancel(String taskId, String executionId, Consumer<String> cancel, Runnable settled) {
        log.info("Cancel signal for taskId={} executionId={}", taskId, executionId);
        cancel.accept(executionId);
        settled.run();
        return null;
    }

    private Execution unknownJobType(String taskId, String executionId, int attempt, String jobType, Runnable settled) {
        skippedUnknownJobType.incrementAndGet();
        if (failUnknownJobTypes && executionId != null && attempt > 0) {
            log.warn("No handler for jobType={}; reporting taskId={} executionId={} FAILED (strict mode)",
                    jobType, taskId, executionId);
            report(taskId, reports.failed(executionId, attempt, false, "no handler for jobType " + jobType), settled);
        } else {
            log.warn("No handler for jobType={}; skipped taskId={} executionId={} (another worker group may serve it)",
                    jobType, taskId, executionId);
            settled.run();
        }
        return null;
    }

    private Execution rejectUndecodable(ConsumerRecord<String, byte[]> record, DispatchHeaders headers,
                                        RuntimeException error, Runnable settled) {
        undecodable.incrementAndGet();
        log.error("Cannot decode the dispatch record at {}-{}@{} (taskId={} executionId={}): {}", record.topic(),
                record.partition(), record.offset(), record.key(), headers.executionId(), error.getMessage());
        if (headers.canReport()) {
            report(record.key(), reports.failed(headers.executionId(), headers.attempt().getAsInt(), false,
                    "the worker cannot decode the dispatch record: " + error.getMessage()), settled);
        } else {
            settled.run();
        }
        return null;
    }

    private void report(String taskId, io.ax.schema.ExecutionReport report, Runnable settled) {
        sink.send(taskId, report, error -> {
            if (error != null) {
                log.error("The FAILED report for taskId={} executionId={} was not acknowledged; committing past it anyway",
                        taskId, report.getExecutionId(), error);
            }
            settled.run();
        });
    }
}
