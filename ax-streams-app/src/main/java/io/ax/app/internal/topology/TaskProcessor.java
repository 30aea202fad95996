package io.ax.app.internal.topology;

import io.ax.AxTopics;
import io.ax.InvalidRequestException;
import io.ax.app.internal.inputs.InputWatermarks;
import io.ax.app.internal.lifecycle.ApplyExecutionReport;
import io.ax.app.internal.lifecycle.Attempts;
import io.ax.app.internal.lifecycle.Events;
import io.ax.app.internal.lifecycle.TimeOutSilentExecution;
import io.ax.app.internal.metrics.FireLateness;
import io.ax.app.internal.wakeup.WakeUps;
import io.ax.app.internal.retry.ApplyRetryRecord;
import io.ax.app.internal.retry.RetryOrDeadLetter;
import io.ax.app.internal.schedule.AcceptScheduleRequest;
import io.ax.app.internal.schedule.CancelTask;
import io.ax.app.internal.schedule.FireDueTimers;
import io.ax.app.internal.schedule.ReplayTask;
import io.ax.app.internal.schedule.Timers;
import io.ax.app.internal.store.AxStores;
import io.ax.app.internal.store.TaskStore;
import io.ax.app.internal.store.TimerIndex;
import io.ax.app.internal.wheel.TimingWheel;
import io.ax.codec.WireCodec;
import io.ax.schema.CancelRequest;
import io.ax.schema.ExecutionReport;
import io.ax.schema.ReplayRequest;
import io.ax.schema.RetryRecord;
import io.ax.schema.ScheduleRequest;
import io.ax.schema.SourceRecord;
import io.ax.validation.Quote;
import io.ax.validation.ScheduleValidator;
import java.time.Duration;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * The one processor node of the scheduler. One instance per stream task (partition) owns every task keyed
 * to it: requests, reports and retry records arrive here (co-partitioned), and a wall-clock punctuator fires
 * its timers.
 * It only routes; each transition lives in its own class.
 *
 * <p>A record that cannot be decoded or breaks a rule becomes a REJECTED event on {@code ax.state} naming
 * its topic, partition, offset and key; the stream thread goes on with the next record.
 */
public final class TaskProcessor implements Processor<String, byte[], String, byte[]> {
    private final SchedulerSettings settings;
    private ProcessorContext<String, byte[]> context;
    private SchedulerContext ctx;
    private AcceptScheduleRequest acceptScheduleRequest;
    private CancelTask cancelTask;
    private ReplayTask replayTask;
    private ApplyExecutionReport applyExecutionReport;
    private ApplyRetryRecord applyRetryRecord;
    private FireLateness fireLateness;
    private InputWatermarks inputs;
    private long lastPunctuationMs;
    private long publishedWakeUpMs = Long.MAX_VALUE;

    public TaskProcessor(SchedulerSettings settings) {
        this.settings = settings;
    }

    @Override
    public void init(ProcessorContext<String, byte[]> context) {
        this.context = context;
        long nowMs = context.currentSystemTimeMs();
        Outputs outputs = new Outputs(context);
        Timers timers = new Timers(new TimerIndex(context.getStateStore(AxStores.TIMERS)),
                new TimingWheel(settings.tickMs(), settings.wheelSize(), nowMs), settings.maxWheelTimers(),
                settings.dispatchAheadMs());
        timers.rebuild(nowMs);
        TaskStore tasks = new TaskStore(context.getStateStore(AxStores.TASKS), timers, settings.retentionMs());
        ctx = new SchedulerContext(tasks, timers, outputs, new Events(outputs), settings, context);
        fireLateness = new FireLateness(context.metrics(), context.taskId().toString());
        Attempts attempts = new Attempts(ctx, fireLateness);
        RetryOrDeadLetter retryOrDeadLetter = new RetryOrDeadLetter(ctx, attempts);
        cancelTask = new CancelTask(ctx, attempts);
        acceptScheduleRequest = new AcceptScheduleRequest(ctx, cancelTask);
        replayTask = new ReplayTask(ctx);
        applyExecutionReport = new ApplyExecutionReport(ctx, attempts, retryOrDeadLetter);
        applyRetryRecord = new ApplyRetryRecord(ctx);
        AxTopics topics = settings.topics();
        // Indexed as FireDueTimers.REQUESTS, FireDueTimers.RESULTS, then the retry log.
        inputs = new InputWatermarks(settings.positions(), context.taskId().partition(), settings.maxClockSkewMs(),
                topics.requests(), topics.results(), topics.retry());
        FireDueTimers fireDueTimers = new FireDueTimers(ctx, attempts, new TimeOutSilentExecution(ctx, retryOrDeadLetter), inputs);
        lastPunctuationMs = nowMs;
        context.schedule(Duration.ofMillis(settings.tickMs()), PunctuationType.WALL_CLOCK_TIME, wallClockMs -> {
            fireDueTimers.punctuate(wallClockMs);
            lastPunctuationMs = wallClockMs;
            publishWakeUp();
        });
        publishWakeUp();
    }

    /**
     * Tells the stream thread's consumer when this partition next needs a punctuation: the first punctuation time
     * (the schedule runs every tick from the last one) at or after the earliest timer can fire.
     */
    private void publishWakeUp() {
        publishWakeUpAt(ctx.timers().nextFireMs());
    }

    /**
     * After a record only new timers can make the wake-up earlier (a removed one at worst causes one idle
     * punctuation, which then recomputes it), so the per-record path skips the wheel scan of {@link #publishWakeUp}.
     */
    private void maybeWakeUpEarlier() {
        long setFireAtMs = ctx.timers().takeEarliestSetFireMs();
        if (setFireAtMs != Long.MAX_VALUE && punctuationAtOrAfter(setFireAtMs) < publishedWakeUpMs) {
            publishWakeUpAt(setFireAtMs);
        }
    }

    private void publishWakeUpAt(long fireAtMs) {
        publishedWakeUpMs = fireAtMs == Long.MAX_VALUE ? Long.MAX_VALUE : punctuationAtOrAfter(fireAtMs);
        WakeUps.set(this, publishedWakeUpMs);
    }

    private long punctuationAtOrAfter(long fireAtMs) {
        long tickMs = settings.tickMs();
        long ticks = fireAtMs <= lastPunctuationMs ? 1 : (fireAtMs - lastPunctuationMs + tickMs - 1) / tickMs;
        return lastPunctuationMs + ticks * tickMs;
    }

    @Override
    public void process(Record<String, byte[]> record) {
        SourceRecord source = sourceOf(context.recordMetadata().orElseThrow());
        int input = inputIndex(source.getTopic());
        inputs.processed(input, source.getOffset(), record.timestamp());
        try {
            ScheduleValidator.validateTaskId(record.key());
            requireKeyPartition(record.key(), source);
            requireBoundedValue(record.value());
            if (input == FireDueTimers.REQUESTS) {
                processRequest(record, source);
            } else if (input == FireDueTimers.RESULTS) {
                ExecutionReport report = WireCodec.decodeReport(record.value());
                ScheduleValidator.validateReport(report);
                applyExecutionReport.process(record.key(), report, source);
            } else {
                RetryRecord retry = WireCodec.decodeBinary(record.value(), RetryRecord.class);
                ScheduleValidator.validateRetry(retry);
                applyRetryRecord.process(record.key(), retry, source);
            }
        } catch (InvalidRequestException e) {
            ctx.events().rejected(record.key(), e.getMessage(), source, ctx.nowMs());
        }
        maybeWakeUpEarlier();
    }

    private void processRequest(Record<String, byte[]> record, SourceRecord source) {
        SpecificRecord request = WireCodec.decodeRequest(record.value());
        if (request instanceof CancelRequest cancel) {
            ScheduleValidator.requireLength("reason", cancel.getReason(), ScheduleValidator.MAX_REASON_CHARS);
            cancelTask.process(record.key(), cancel, source);
        } else if (request instanceof ReplayRequest replay) {
            ScheduleValidator.requireLength("reason", replay.getReason(), ScheduleValidator.MAX_REASON_CHARS);
            replayTask.process(record.key(), replay, source);
        } else {
            acceptScheduleRequest.process(record.key(), (ScheduleRequest) request, record.timestamp(), source);
        }
    }

    private int inputIndex(String topic) {
        if (topic.equals(settings.topics().requests())) {
            return FireDueTimers.REQUESTS;
        }
        return topic.equals(settings.topics().results()) ? FireDueTimers.RESULTS : 2;
    }

    /**
     * A value larger than any valid input can be (the largest payload plus the other fields' bounds) is refused
     * before it is decoded at all.
     */
    private void requireBoundedValue(byte[] value) {
        if (value != null && value.length > settings.maxInputBytes()) {
            throw new InvalidRequestException(null, "record value is " + value.length + " bytes, more than the "
                    + settings.maxInputBytes() + " any valid input can take (ax.max.payload.bytes + "
                    + OutputBounds.FIELDS_BYTES + ")");
        }
    }

    /**
     * Every record about a task must reach the partition that owns it. ax (Java producers, Kafka Streams) places
     * keys with murmur2; a producer with another partitioner (librdkafka's default, so kcat's) would split a
     * task's requests, reports and retries over partitions that do not know each other. Refuse such records with
     * a reason that says how to produce them instead.
     */
    private void requireKeyPartition(String taskId, SourceRecord source) {
        int expected = KeyPartition.of(taskId, settings.partitions());
        if (expected >= 0 && expected != source.getPartition()) {
            throw new InvalidRequestException("taskId", "taskId " + taskId + " belongs on partition " + expected + " of "
                    + source.getTopic() + " (murmur2 of the key, the Java client's default) but arrived on partition "
                    + source.getPartition() + "; produce with the default Java partitioner (kcat: -X partitioner=murmur2_random)");
        }
    }

    @Override
    public void close() {
        WakeUps.clear(this);
        if (fireLateness != null) {
            fireLateness.close();
        }
    }

    private static SourceRecord sourceOf(RecordMetadata metadata) {
        return new SourceRecord(metadata.topic(), metadata.partition(), metadata.offset());
    }
}
