package io.ax.worker.internal;

import static io.ax.worker.internal.Dispatches.record;
import static io.ax.worker.internal.Dispatches.task;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ax.AxHeaders;
import io.ax.schema.DispatchKind;
import io.ax.schema.DispatchTask;
import io.ax.schema.ExecutionReport;
import io.ax.schema.ReportStatus;
import io.ax.worker.JobContext;
import io.ax.worker.JobHandler;
import io.ax.worker.Result;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

class DispatchRunnerTest {
    private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");

    private final SettableClock clock = new SettableClock(NOW);
    private final List<Duration> sleeps = new ArrayList<>();
    private Sleeper sleeper = duration -> {
        sleeps.add(duration);
        clock.advance(duration);
    };
    private final Map<String, JobHandler> handlers = new HashMap<>();
    private final List<Sent> sent = new CopyOnWriteArrayList<>();
    private final ReportSink sink = (taskId, report) -> sent.add(new Sent(taskId, report));

    private record Sent(String taskId, ExecutionReport report) {
    }

    @Test
    void shouldReportStartedThenSucceededWhenHandlerSucceeds() {
        AtomicReference<JobContext> seen = new AtomicReference<>();
        AtomicReference<List<Sent>> sentBeforeHandler = new AtomicReference<>();
        handlers.put("email", context -> {
            seen.set(context);
            sentBeforeHandler.set(List.copyOf(sent));
            return Result.success();
        });

        Disposition disposition = runner().run(record(task("t1", "email", NOW)), sink);

        assertThat(disposition).isEqualTo(Disposition.RAN);
        assertThat(sentBeforeHandler.get()).extracting(s -> s.report().getStatus()).containsExactly(ReportStatus.STARTED);
        assertThat(sent).extracting(Sent::taskId).containsOnly("t1");
        assertThat(sent).extracting(s -> s.report().getStatus()).containsExactly(ReportStatus.STARTED, ReportStatus.SUCCEEDED);
        ExecutionReport succeeded = sent.get(1).report();
        assertThat(succeeded.getExecutionId()).isEqualTo("exec-t1");
        assertThat(succeeded.getAttempt()).isEqualTo(1);
        assertThat(succeeded.getWorkerId()).isEqualTo("worker-1");
        assertThat(succeeded.getReportedAtMs()).isEqualTo(NOW.toEpochMilli());
        assertThat(succeeded.getMessage()).isNull();
    }

    @Test
    void shouldGiveHandlerTheTaskAsJobContext() {
        AtomicReference<JobContext> seen = new AtomicReference<>();
        handlers.put("email", context -> {
            seen.set(context);
            return Result.success();
        });

        runner().run(record(task("t1", "email", NOW)), sink);

        JobContext context = seen.get();
        assertThat(context.taskId()).isEqualTo("t1");
        assertThat(context.executionId()).isEqualTo("exec-t1");
        assertThat(context.attempt()).isEqualTo(1);
        assertThat(context.jobType()).isEqualTo("email");
        assertThat(context.payload()).isEqualTo("payload of t1".getBytes(StandardCharsets.UTF_8));
        assertThat(context.payloadAsString()).isEqualTo("payload of t1");
        assertThat(context.dueAt()).isEqualTo(NOW);
        assertThat(context.owner()).isEqualTo("team-a");
        assertThat(context.priority()).isEqualTo(6);
        assertThat(context.timeout()).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void shouldGiveHandlerNullPayloadWhenTaskHasNone() {
        AtomicReference<JobContext> seen = new AtomicReference<>();
        handlers.put("email", context -> {
            seen.set(context);
            return Result.success();
        });
        DispatchTask task = task("t1", "email", NOW);
        task.setPayload(null);

        runner().run(record(task), sink);

        assertThat(seen.get().payload()).isNull();
        assertThat(seen.get().payloadAsString()).isNull();
    }

    @Test
    void shouldReportRetryableFailure() {
        handlers.put("email", context -> Result.retryable("smtp unavailable"));

        runner().run(record(task("t1", "email", NOW)), sink);

        assertFinalReport(ReportStatus.FAILED, true, "smtp unavailable");
    }

    @Test
    void shouldReportFatalFailure() {
        handlers.put("email", context -> Result.fatal("no such mailbox"));

        runner().run(record(task("t1", "email", NOW)), sink);

        assertFinalReport(ReportStatus.FAILED, false, "no such mailbox");
    }

    @Test
    void shouldReportRetryableFailureWithExceptionClassAndMessageWhenHandlerThrows() {
        handlers.put("email", context -> {
            throw new java.io.IOException("connection reset");
        });

        Disposition disposition = runner().run(record(task("t1", "email", NOW)), sink);

        assertThat(disposition).isEqualTo(Disposition.RAN);
        assertFinalReport(ReportStatus.FAILED, true, "java.io.IOException: connection reset");
    }

    @Test
    void shouldReportExceptionClassWhenExceptionHasNoMessage() {
        handlers.put("email", context -> {
            throw new IllegalStateException();
        });

        runner().run(record(task("t1", "email", NOW)), sink);

        assertFinalReport(ReportStatus.FAILED, true, "java.lang.IllegalStateException");
    }

    @Test
    void shouldReportRetryableFailureWhenHandlerReturnsNull() {
        handlers.put("email", context -> null);

        runner().run(record(task("t1", "email", NOW)), sink);

        assertFinalReport(ReportStatus.FAILED, true, "the handler returned null instead of a Result");
    }

    @Test
    void shouldLetVirtualMachineErrorStopTheWorker() {
        handlers.put("email", context -> {
            throw new OutOfMemoryError("test");
        });

        assertThatThrownBy(() -> runner().run(record(task("t1", "email", NOW)), sink)).isInstanceOf(OutOfMemoryError.class);
    }

    @Test
    void shouldTruncateVeryLongFailureMessages() {
        handlers.put("email", context -> Result.fatal("x".repeat(10_000)));

        runner().run(record(task("t1", "email", NOW)), sink);

        assertThat(sent.get(1).report().getMessage()).hasSize(Reports.MAX_MESSAGE_CHARS).endsWith("...");
    }

    @Test
    void shouldReportUndecodableValueAsFatalFailureWhenHeadersNameTheExecution() {
        handlers.put("email", context -> Result.success());
        ConsumerRecord<String, byte[]> record = Dispatches.withoutHeaders("t1", new byte[] {1, 2, 3}, 0, 7);
        Dispatches.header(record, AxHeaders.EXECUTION_ID, "exec-t1");
        Dispatches.header(record, AxHeaders.ATTEMPT, "2");
        Dispatches.header(record, AxHeaders.JOB_TYPE, "email");

        Disposition disposition = runner().run(record, sink);

        assertThat(disposition).isEqualTo(Disposition.UNDECODABLE);
        assertThat(sent).hasSize(1);
        ExecutionReport failed = sent.get(0).report();
        assertThat(sent.get(0).taskId()).isEqualTo("t1");
        assertThat(failed.getExecutionId()).isEqualTo("exec-t1");
        assertThat(failed.getAttempt()).isEqualTo(2);
        assertThat(failed.getStatus()).isEqualTo(ReportStatus.FAILED);
        assertThat(failed.getRetryable()).isFalse();
        assertThat(failed.getMessage()).startsWith("the worker cannot decode the dispatch record: not Avro single-object encoding");
    }

    @Test
    void shouldSkipUndecodableValueWithoutReportWhenHeadersAreMissing() {
        handlers.put("email", context -> Result.success());

        Disposition disposition = runner().run(Dispatches.withoutHeaders("t1", new byte[] {(byte) 0xC3, 1, 0}, 0, 7), sink);

        assertThat(disposition).isEqualTo(Disposition.UNDECODABLE);
        assertThat(sent).isEmpty();
    }

    @Test
    void shouldSkipUnknownJobTypeWithoutReporting() {
        handlers.put("email", context -> Result.success());
        DispatchRunner runner = runner();

        Disposition disposition = runner.run(record(task("t1", "sms", NOW)), sink);

        assertThat(disposition).isEqualTo(Disposition.SKIPPED_UNKNOWN_JOB_TYPE);
        assertThat(sent).isEmpty();
        assertThat(runner.skippedUnknownJobType()).isEqualTo(1);
    }

    @Test
    void shouldSkipJobTypeUnknownByHeaderWithoutDecodingOrReporting() {
        handlers.put("email", context -> Result.success());
        ConsumerRecord<String, byte[]> record = Dispatches.withoutHeaders("t1", new byte[] {1, 2, 3}, 0, 7);
        Dispatches.header(record, AxHeaders.EXECUTION_ID, "exec-t1");
        Dispatches.header(record, AxHeaders.ATTEMPT, "1");
        Dispatches.header(record, AxHeaders.JOB_TYPE, "sms");
        DispatchRunner runner = runner();

        Disposition disposition = runner.run(record, sink);

        assertThat(disposition).as("another worker group may serve sms, and decode it").isEqualTo(Disposition.SKIPPED_UNKNOWN_JOB_TYPE);
        assertThat(sent).isEmpty();
        assertThat(runner.skippedUnknownJobType()).isEqualTo(1);
    }

    @Test
    void shouldIgnoreCancelSignal() {
        handlers.put("email", context -> Result.success());
        DispatchTask cancel = task("t1", "email", NOW);
        cancel.setKind(DispatchKind.CANCEL);

        Disposition disposition = runner().run(record(cancel), sink);

        assertThat(disposition).isEqualTo(Disposition.CANCEL_IGNORED);
        assertThat(sent).isEmpty();
    }

    @Test
    void shouldIgnoreCancelSignalWithoutHeaders() {
        handlers.put("email", context -> Result.success());
        DispatchTask cancel = task("t1", "email", NOW);
        cancel.setKind(DispatchKind.CANCEL);

        Disposition disposition = runner().run(Dispatches.withoutHeaders("t1", io.ax.codec.WireCodec.encode(cancel), 0, 0), sink);

        assertThat(disposition).isEqualTo(Disposition.CANCEL_IGNORED);
        assertThat(sent).isEmpty();
    }

    @Test
    void shouldNotStartBeforeDueTime() {
        Instant dueAt = NOW.plusMillis(1_000);
        sleeper = duration -> {
            sleeps.add(duration);
            clock.advance(duration.dividedBy(2).plusMillis(1)); // wakes early: the runner must look at the clock again
        };
        AtomicReference<Instant> startedAt = new AtomicReference<>();
        handlers.put("email", context -> {
            startedAt.set(clock.instant());
            return Result.success();
        });

        Disposition disposition = runner().run(record(task("t1", "email", dueAt)), sink);

        assertThat(disposition).isEqualTo(Disposition.RAN);
        assertThat(startedAt.get()).isAfterOrEqualTo(dueAt);
        assertThat(sleeps).first().isEqualTo(Duration.ofMillis(1_000));
        assertThat(sleeps).hasSizeGreaterThan(1);
        assertThat(sent.get(0).report().getStatus()).isEqualTo(ReportStatus.STARTED);
        assertThat(sent.get(0).report().getReportedAtMs()).isGreaterThanOrEqualTo(dueAt.toEpochMilli());
    }

    @Test
    void shouldStartAtOnceWhenAlreadyDue() {
        handlers.put("email", context -> Result.success());

        runner().run(record(task("t1", "email", NOW.minusSeconds(5))), sink);

        assertThat(sleeps).isEmpty();
        assertThat(sent).hasSize(2);
    }

    @Test
    void shouldNeitherRunNorReportWhenInterruptedBeforeDueTime() {
        sleeper = duration -> {
            throw new InterruptedException("closing");
        };
        List<JobContext> ran = new ArrayList<>();
        handlers.put("email", context -> {
            ran.add(context);
            return Result.success();
        });

        Disposition disposition = runner().run(record(task("t1", "email", NOW.plusSeconds(1))), sink);

        assertThat(disposition).isEqualTo(Disposition.NOT_STARTED);
        assertThat(ran).isEmpty();
        assertThat(sent).isEmpty();
        assertThat(Thread.interrupted()).as("interrupt flag restored (and cleared here)").isTrue();
    }

    private DispatchRunner runner() {
        return new DispatchRunner(handlers, new Reports("worker-1", clock), clock, duration -> sleeper.sleep(duration));
    }

    private void assertFinalReport(ReportStatus status, boolean retryable, String message) {
        assertThat(sent).hasSize(2);
        ExecutionReport report = sent.get(1).report();
        assertThat(report.getStatus()).isEqualTo(status);
        assertThat(report.getRetryable()).isEqualTo(retryable);
        assertThat(report.getMessage()).isEqualTo(message);
    }
}
