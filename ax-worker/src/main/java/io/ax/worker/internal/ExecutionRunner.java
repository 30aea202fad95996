package io.ax.worker.internal;

import io.ax.schema.DispatchTask;
import io.ax.worker.JobHandler;
import io.ax.worker.Result;
import java.time.Clock;
import java.time.Duration;
import io.ax.validation.Quote;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Runs one {@link Execution} on a handler thread: wait for its due time, report STARTED, run the handler with
 * heartbeats, report how it ended, and hand a {@link Completion} to the loop once every report is acknowledged.
 *
 * <p>Never starts a handler before the task's {@code dueAt} by the worker's clock. A handler that throws is a
 * retryable failure unless the exception is declared fatal ({@link Outcomes}). An execution cancelled before it
 * started is reported FAILED (not retryable) without running; one interrupted by a shutdown is reported
 * retryable. Thread-safe: one instance serves all handler threads. The handler map must not change.
 */
public final class ExecutionRunner {
    /**
     * MDC keys set on the handler thread for the whole of an execution's run (waiting for its due time, the handler,
     * its reports), so every line logged there, the handler's own included, carries the task and the execution.
     */
    public static final String MDC_TASK_ID = io.ax.AxMdc.TASK_ID;
    public static final String MDC_EXECUTION_ID = io.ax.AxMdc.EXECUTION_ID;

    private static final Logger log = LoggerFactory.getLogger(ExecutionRunner.class);

    private final Map<String, JobHandler> handlers;
    private final Reports reports;
    private final ReportSink sink;
    private final Outcomes outcomes;
    private final Heartbeats heartbeats;
    private final Clock clock;
    private final Sleeper sleeper;
    private final WorkerMetrics metrics;
    private final SlowRuns slowRuns;
    private final LongSupplier nanoTime;

    /**
     * @param clock    when a task is due, and when its handler starts (against the dispatch's fire time)
     * @param nanoTime how long handlers run (monotonic: {@code System::nanoTime}; tests drive it)
     */
    public ExecutionRunner(Map<String, JobHandler> handlers, Reports reports, ReportSink sink, Outcomes outcomes,
                           Heartbeats heartbeats, Clock clock, Sleeper sleeper, WorkerMetrics metrics, SlowRuns slowRuns,
                           LongSupplier nanoTime) {
        this.handlers = Map.copyOf(handlers);
        this.reports = reports;
        this.sink = sink;
        this.outcomes = outcomes;
        this.heartbeats = heartbeats;
        this.clock = clock;
        this.sleeper = sleeper;
        this.metrics = metrics;
        this.slowRuns = slowRuns;
        this.nanoTime = nanoTime;
    }

    boolean serves(String jobType) {
        return handlers.containsKey(jobType);
    }

    /** Runs {@code execution} on the calling thread; calls {@code done} exactly once, maybe from another thread. */
    void run(Execution execution, Consumer<Completion> done) {
        execution.attach(Thread.currentThread());
        MDC.put(MDC_TASK_ID, execution.taskId());
        MDC.put(MDC_EXECUTION_ID, execution.executionId());
        try {
            Acks acks = new Acks(error -> done.accept(new Completion(execution,
                    error == null ? Completion.Kind.DONE : Completion.Kind.NOT_ACKNOWLEDGED)));
            if (!execution.isCancelled() && !waitUntilDue(execution) && !execution.isCancelled()) {
                log.info("Stopped before the due time of {}; not started, it will be redelivered", execution);
                done.accept(new Completion(execution, Completion.Kind.NOT_STARTED));
                return;
            }
            if (execution.isCancelled()) {
                log.info("Cancelled before it started: {}", execution);
                send(execution, reports.failed(execution.executionId(), execution.task().getAttempt(), false,
                        "cancelled before the handler started"), acks);
            } else {
                execute(execution, acks);
            }
            acks.seal();
        } catch (VirtualMachineError e) {
            log.error("Handler of {} threw {}; stopping the worker without committing it", execution, e.toString());
            done.accept(new Completion(execution, Completion.Kind.WORKER_ERROR));
            throw e;
        } finally {
            execution.detach();
            MDC.remove(MDC_TASK_ID);
            MDC.remove(MDC_EXECUTION_ID);
        }
    }

    private void execute(Execution execution, Acks acks) {
        DispatchTask task = execution.task();
        send(execution, reports.started(task.getExecutionId(), task.getAttempt()), acks);
        log.debug("Started {} jobType={}", execution, task.getJobType());
        Heartbeats.Beat beat = heartbeats.start(task.getTimeoutMs(), () -> heartbeat(execution));
        Result result;
        metrics.dispatchWait(task.getJobType(), clock.millis() - Math.max(task.getFiredAtMs(), task.getDueAtMs()));
        long startedNanos = nanoTime.getAsLong();
        try {
            result = runHandler(execution, new ExecutionControl() {
                @Override
                public void heartbeat() {
                    beat.beat();
                }

                @Override
                public void heartbeat(long extendMs) {
                    beat.beat(() -> sendBestEffort(execution, reports.extend(execution.executionId(), task.getAttempt(), extendMs)));
                }

                @Override
                public boolean isCancelled() {
                    return execution.isCancelled();
                }

                @Override
                public void saveProgress(String progress) {
                    sendBestEffort(execution, reports.progress(execution.executionId(), task.getAttempt(), progress));
                }
            });
        } finally {
            beat.stop();
        }
        record(execution, result, nanoTime.getAsLong() - startedNanos);
        send(execution, reports.finished(task.getExecutionId(), task.getAttempt(), result), acks);
        if (result.isSuccess()) {
            log.debug("Succeeded {}", execution);
        } else {
            log.info("Failed {} retryable={} message={}", execution, result.isRetryable(), result.message());
        }
    }

    private void record(Execution execution, Result result, long nanos) {
        String outcome = result.isSuccess() ? "success" : execution.isCancelled() ? "cancelled" : "failure";
        metrics.handled(execution.jobType(), outcome, nanos);
        if (result.isAlreadyDone()) {
            metrics.redeliverySkipped(execution.jobType());
        } else if (!execution.isCancelled()) {
            maybeWarnSlow(execution, nanos);
        }
    }

    /**
     * One WARN line for a run far slower than its job type's recent ones ({@link SlowRuns}), logged as it ends (once per
     * run of an attempt), its ids quoted short. A skipped redelivery or a cancelled run says nothing of the handler's
     * speed, so neither is counted.
     */
    private void maybeWarnSlow(Execution execution, long nanos) {
        long p95 = slowRuns.record(execution.jobType(), nanos);
        if (p95 >= 0) {
            log.warn("Slow run taskId={} executionId={} attempt={} jobType={}: {} ms, over {} x the p95 of its job type's"
                            + " last runs ({} ms)", Quote.of(execution.taskId()), Quote.of(execution.executionId()),
                    execution.task().getAttempt(), Quote.of(execution.jobType()), TimeUnit.NANOSECONDS.toMillis(nanos),
                    slowRuns.factor(), String.format(Locale.ROOT, "%.1f", p95 / 1e6));
        }
    }

    private Result runHandler(Execution execution, ExecutionControl control) {
        try {
            return explain(execution, outcomes.of(handlers.get(execution.jobType())
                    .handle(DispatchJobContext.of(execution.task(), control))));
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Throwable e) {
            log.warn("Handler threw for {}", execution, e);
            return explain(execution, outcomes.of(e));
        }
    }

    /** A failure caused by a cancel signal or a shutdown says so; a shutdown never makes a failure final. */
    private static Result explain(Execution execution, Result result) {
        if (result.isSuccess()) {
            return result;
        }
        if (execution.isCancelled()) {
            return Result.fatal("cancelled while running: " + result.message());
        }
        if (execution.isStopping()) {
            return Result.retryable("interrupted by worker shutdown: " + result.message());
        }
        return result;
    }

    private void heartbeat(Execution execution) {
        sendBestEffort(execution, reports.heartbeat(execution.executionId(), execution.task().getAttempt()));
    }

    /** Heartbeats and checkpoints are signs of life, not outcomes: the offset commit does not wait for them. */
    private void sendBestEffort(Execution execution, io.ax.schema.ExecutionReport report) {
        sink.send(execution.taskId(), report, error -> {
            if (error != null) {
                log.warn("A {} report for {} was not acknowledged: {}", report.getStatus(), execution, error.toString());
            }
        });
    }

    private void send(Execution execution, io.ax.schema.ExecutionReport report, Acks acks) {
        Consumer<Exception> ack = acks.expect();
        sink.send(execution.taskId(), report, error -> {
            if (error != null) {
                log.error("A {} report for {} was not acknowledged; it will run again after a backoff",
                        report.getStatus(), execution, error);
            }
            ack.accept(error);
        });
    }

    /** @return false when interrupted before the due time: the handler must not run */
    private boolean waitUntilDue(Execution execution) {
        long waitMs = execution.task().getDueAtMs() - clock.millis();
        while (waitMs > 0) {
            log.debug("Holding {} for {} ms until its due time", execution, waitMs);
            try {
                sleeper.sleep(Duration.ofMillis(waitMs));
            } catch (InterruptedException e) {
                return false;
            }
            waitMs = execution.task().getDueAtMs() - clock.millis();
        }
        return true;
    }
}
