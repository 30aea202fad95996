package io.ax.app.internal.topology;

import io.ax.AxTopics;
import io.ax.InvalidRequestException;
import io.ax.app.internal.core.EventCode;
import io.ax.app.internal.core.FlowGrant;
import io.ax.app.internal.core.Input;
import io.ax.app.internal.core.Rules;
import io.ax.app.internal.flow.FlowCodec;
import io.ax.app.internal.flow.StoreFlowLimits;
import io.ax.app.internal.timer.FireDueTimers;
import io.ax.app.internal.timer.InputWatermarks;
import io.ax.app.internal.metrics.PartitionMetrics;
import io.ax.app.internal.setup.OutputBounds;
import io.ax.app.internal.store.AxStores;
import io.ax.app.internal.store.FlowStores;
import io.ax.app.internal.store.LegacyIndexKeys;
import io.ax.app.internal.store.TaskHistory;
import io.ax.app.internal.store.TaskIndex;
import io.ax.app.internal.store.TaskStore;
import io.ax.app.internal.timer.TimerIndex;
import io.ax.app.internal.core.ArmedTimers;
import io.ax.app.internal.core.Effect;
import io.ax.app.internal.timer.Timers;
import io.ax.app.internal.timer.TimingWheel;
import io.ax.app.internal.timer.PartitionWakeUp;
import io.ax.app.internal.timer.ThreadTimers;
import io.ax.app.internal.timer.WheelTimer;
import io.ax.codec.WireCodec;
import io.ax.schema.AdoptRequest;
import io.ax.schema.CalendarRequest;
import io.ax.schema.CancelRequest;
import io.ax.schema.DependencySignal;
import io.ax.schema.ExecutionReport;
import io.ax.schema.PauseRequest;
import io.ax.schema.ReplayRequest;
import io.ax.schema.ResumeRequest;
import io.ax.schema.RetryRecord;
import io.ax.schema.ScheduleRequest;
import io.ax.schema.SourceRecord;
import io.ax.schema.StoredTask;
import io.ax.schema.TriggerRequest;
import io.ax.validation.Quote;
import io.ax.validation.ScheduleValidator;
import java.time.Duration;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The one processor node of the scheduler, and the adapter between Kafka Streams and the pure {@link Rules}. One
 * instance per stream task (partition) owns every task keyed to it: requests, reports and retry records arrive
 * here (co-partitioned), a wall-clock punctuator ({@link FireDueTimers}) fires its timers. For each input it
 * decodes and bounds the record (the wire edge), reads the task, asks the rules for a decision and applies it
 * ({@link ApplyDecisions}).
 *
 * <p>A record that cannot be decoded or breaks a rule becomes a REJECTED event on {@code ax.state} naming its
 * topic, partition, offset and key; the stream thread goes on with the next record.
 */
public final class TaskProcessor implements Processor<String, byte[], String, byte[]> {
    private static final int RETRY_LOG = 2;
    /** Input index of ax.deps, the dependency protocol (see {@link Dependencies}). */
    private static final int DEPS = 3;
    /** Notifications owed to waiting tasks sent per punctuation (and after a record that ended a task). */
    static final int NOTIFY_BATCH = 1_000; // visible for testing
    /** Index keys deleted, or tasks indexed, per punctuation while the index is rebuilt after an assignment. */
    private static final int REBUILD_BATCH = 5_000;

    private final SchedulerSettings settings;
    private Rules rules;
    private final StoreFlowLimits flowLimits = new StoreFlowLimits();
    private ProcessorContext<String, byte[]> context;
    private TaskStore tasks;
    private Timers timers;
    private ApplyDecisions decisions;
    private TaskIndex index;
    private PartitionMetrics metrics;
    private InputWatermarks inputs;
    /** What schedulers before the unlogged index left in the dependency store, deleted once the index is rebuilt. */
    private LegacyIndexKeys legacyKeys;
    private PartitionWakeUp wakeUp;
    private Dependencies dependencies;

    public TaskProcessor(SchedulerSettings settings) {
        this.settings = settings;
    }

    @Override
    public void init(ProcessorContext<String, byte[]> context) {
        // Kafka Streams may init the same processor again: a task recycled from active to standby and back keeps its
        // topology's processor objects. So everything an assignment keeps lives in the objects made here, none in fields
        // of their own: a flag kept from the first init once skipped the second's rebuild of the index, and so of the
        // timers it had just wiped (TaskProcessorReinitTest).
        this.context = context;
        flowLimits.attach(context.getStateStore(FlowStores.LIMITS), settings.limitsChanges());
        long nowMs = context.currentSystemTimeMs();
        CalendarStore calendars = new CalendarStore(context.getStateStore(AxStores.CALENDARS));
        // The far level holds at most a quarter of what the wheel may: it is for executions in flight and the next
        // minutes' occurrences, so a backlog scheduled minutes ahead cannot double the timers' memory.
        timers = new Timers(new TimerIndex(context.getStateStore(AxStores.TIMERS)),
                new TimingWheel(settings.tickMs(), settings.wheelSize(), nowMs, settings.priorityAgingMs()), settings.maxWheelTimers(),
                settings.farHorizonMs(), Math.max(1, settings.maxWheelTimers() / 4), settings.dispatchAheadMs());
        KeyValueStore<String, StoredTask> taskStore = context.getStateStore(AxStores.TASKS);
        tasks = new TaskStore(taskStore);
        KeyValueStore<Bytes, byte[]> indexStore = context.getStateStore(AxStores.INDEX);
        index = new TaskIndex(indexStore);
        // The timers are derived from the tasks like the index, and rebuilt with it: a task's timers come back as the
        // index's rebuild reaches the task.
        timers.rebuild(nowMs, index::covers);
        index.onRebuilt(task -> {
            for (Effect.SetTimer timer : ArmedTimers.of(task)) {
                timers.set(timer.dueAtMs(), timer.priority(), timer.taskId(), timer.kind(), task.getRequest().getOwner());
            }
        });
        KeyValueStore<Bytes, byte[]> dependencyStore = context.getStateStore(AxStores.DEPENDENCIES);
        legacyKeys = new LegacyIndexKeys(dependencyStore);
        metrics = new PartitionMetrics(settings.metrics(), context.taskId().partition(), index, indexStore, tasks, timers);
        decisions = new ApplyDecisions(tasks, index, new TaskHistory(settings.historyMaxEvents()), timers,
                new Outputs(context, settings.registryOutput()), metrics);
        dependencies = new Dependencies(dependencyStore, tasks, new Outputs(context, settings.registryOutput()), settings.rules().retentionMs());
        rules = new Rules(settings.rules(), calendars, flowLimits, dependencies.reads());
        decisions.dependencies(dependencies);
        dependencies.loadEveryOccurrence(); // once per assignment, before the first record
        AxTopics topics = settings.topics();
        // Indexed as FireDueTimers.REQUESTS and FireDueTimers.RESULTS: the only inputs a decision waits for (a cancel, a
        // report). The retry log and the dependency log are the scheduler's own outputs read back, and watching them
        // doubled what every end-offset request asks the brokers (24 partitions instead of 12 with 6 partitions).
        inputs = new InputWatermarks(settings.positions(), context.taskId().partition(), settings.maxClockSkewMs(),
                topics.requests(), topics.results());
        maybeRebuildIndex(index, taskStore); // a small partition's index is complete before its first record
        FireDueTimers fireDueTimers = new FireDueTimers(timers, inputs, settings.fireBatchMax(), settings.fireBudgetMs(),
                settings.time(), this::fireTimer);
        ThreadTimers thread = settings.threads().current();
        wakeUp = new PartitionWakeUp(timers, settings.tickMs(), nowMs, thread.wakeUps());
        context.schedule(Duration.ofMillis(settings.tickMs()), PunctuationType.WALL_CLOCK_TIME, wallClockMs -> {
            settings.clockSteps().check(); // reports a wall-clock step; the wheel goes on by the wall clock (TIMEOUTS.md)
            maybeRebuildIndex(index, taskStore);
            if (fireDueTimers.punctuate(wallClockMs) > 0 && thread.commitEarly(wallClockMs)) {
                context.commit(); // Kafka Streams commits at the end of this pass of the thread
            }
            index.flush();
            dependencies.sweep(wallClockMs, NOTIFY_BATCH);
            dependencies.maybeExpireTombstones(wallClockMs);
            metrics.maybeRefresh(wallClockMs);
            wakeUp.punctuated(wallClockMs);
        });
        wakeUp.publish();
    }

    /** The pump's handler: a due timer is an input for the rules, decided like a record. */
    private void fireTimer(WheelTimer timer, long nowMs) {
        decisions.decide(rules, tasks.get(timer.taskId()), new Input.TimerFired(timer.taskId(), timer.kind(), timer.dueAtMs()), nowMs);
    }

    /** The index, derived from the task store, is rebuilt a batch per punctuation after each assignment. */
    private void maybeRebuildIndex(TaskIndex index, KeyValueStore<String, StoredTask> taskStore) {
        if (!index.complete()) {
            index.rebuildStep(taskStore, REBUILD_BATCH);
        } else {
            legacyKeys.sweep(REBUILD_BATCH); // once nothing is left, a call costs nothing
        }
    }

    @Override
    public void process(Record<String, byte[]> record) {
        SourceRecord source = sourceOf(context.recordMetadata().orElseThrow());
        if (source.getTopic().equals(settings.topics().flowGrants())) {
            processGrant(record, source);
            return;
        }
        int input = inputIndex(source.getTopic());
        if (input == FireDueTimers.REQUESTS || input == FireDueTimers.RESULTS) {
            inputs.processed(input, source.getOffset(), record.timestamp());
        }
        long nowMs = context.currentSystemTimeMs();
        try {
            Input decoded = decode(record, source, input);
            if (decoded instanceof Input.Calendar) {
                decisions.decide(rules, null, decoded, nowMs); // concerns no task: none is read
                return;
            }
            decisions.decide(rules, tasks.get(decoded.taskId()), decoded, nowMs);
            dependencies.sweep(nowMs, NOTIFY_BATCH);
        } catch (InvalidRequestException e) {
            EventCode code = e instanceof WrongPartitionException ? EventCode.WRONG_PARTITION : EventCode.of(e);
            decisions.apply(rules.reject(record.key(), code, e.getMessage(), source, nowMs), nowMs, metricsInput(input));
        }
        index.flushIfLarge(); // else at the punctuation: one write batch a tick, not one a record
        wakeUp.maybeEarlier();
    }

    /**
     * A grant from the flow-control gates (topology-docs/FLOW-CONTROL.md). The grants topic is the scheduler's own, so it
     * does not take part in the input watermarks; a record that is not a grant is rejected like any bad input.
     */
    private void processGrant(Record<String, byte[]> record, SourceRecord source) {
        long nowMs = context.currentSystemTimeMs();
        try {
            ScheduleValidator.validateTaskId(record.key());
            FlowGrant grant = FlowCodec.decodeGrant(record.value());
            Rules.requireValid(grant); // its tags say which input it is
            Input decoded = grant.input(record.key(), source);
            decisions.decide(rules, tasks.get(record.key()), decoded, nowMs);
        } catch (InvalidRequestException e) {
            decisions.apply(rules.reject(record.key(), EventCode.of(e), e.getMessage(), source, nowMs), nowMs, "grant");
        }
        index.flushIfLarge(); // else at the punctuation: one write batch a tick, not one a record
        wakeUp.maybeEarlier();
    }


    /** The {@code input} label of a record that could not be decoded, by the topic it came from. */
    private static String metricsInput(int topic) {
        return topic == FireDueTimers.REQUESTS ? "request" : topic == FireDueTimers.RESULTS ? "report"
                : topic == DEPS ? "dependency" : "retry";
    }

    /** A record on another partition than its key's. */
    private static final class WrongPartitionException extends InvalidRequestException {
        WrongPartitionException(String message) {
            super("taskId", message);
        }
    }

    /** The wire edge: the record's key, partition and bytes checked and decoded into an input for the rules. */
    private Input decode(Record<String, byte[]> record, SourceRecord source, int input) {
        String taskId = record.key();
        ScheduleValidator.validateTaskId(taskId);
        requireKeyPartition(taskId, source);
        requireBoundedValue(record.value());
        if (input == FireDueTimers.REQUESTS) {
            SpecificRecord request = settings.inputCodec().decodeRequest(record.value());
            if (request instanceof CancelRequest cancel) {
                return valid(new Input.Cancel(taskId, cancel, source));
            }
            if (request instanceof ReplayRequest replay) {
                return valid(new Input.Replay(taskId, replay, source));
            }
            if (request instanceof TriggerRequest trigger) {
                return valid(new Input.Trigger(taskId, trigger, source));
            }
            if (request instanceof PauseRequest pause) {
                return valid(new Input.Pause(taskId, pause, source));
            }
            if (request instanceof ResumeRequest resume) {
                return valid(new Input.Resume(taskId, resume, source));
            }
            if (request instanceof CalendarRequest calendar) {
                return new Input.Calendar(taskId, calendar, source);
            }
            if (request instanceof AdoptRequest adopt) {
                return new Input.Adopt(taskId, adopt, source); // refused by its rule unless ax.adopt.enabled (AdoptTask)
            }
            return new Input.Schedule(taskId, (ScheduleRequest) request, record.timestamp(), source);
        }
        if (input == FireDueTimers.RESULTS) {
            ExecutionReport report = settings.inputCodec().decodeReport(record.value());
            Input.Report decoded = valid(new Input.Report(taskId, report, source));
            // the worker registry's view of workers that never announce: one in-memory update, no record, no store write
            settings.metrics().reportedWorkers().saw(report.getWorkerId(), report.getExecutionId(), taskId, report.getStatus(),
                    context.currentSystemTimeMs());
            return decoded;
        }
        if (input == DEPS) {
            return decodeDependencySignal(taskId, record.value(), source);
        }
        RetryRecord retry = WireCodec.decodeBinary(record.value(), RetryRecord.class);
        return valid(new Input.RetryLogged(taskId, retry, source));
    }

    /** {@code input}, once its fields keep the rules' own checks ({@link Rules#requireValid(Input)}), before its task is read. */
    private static <I extends Input> I valid(I input) {
        Rules.requireValid(input);
        return input;
    }

    /**
     * A message of the dependency protocol, an input for the rules: a NOTIFY, keyed by the task that waits, is the outcome
     * of its upstream; a SUBSCRIBE or UNSUBSCRIBE, keyed by the task waited for, a subscription to it.
     */
    private Input decodeDependencySignal(String taskId, byte[] value, SourceRecord source) {
        DependencySignal signal = WireCodec.decodeBinary(value, DependencySignal.class);
        Rules.requireValid(taskId, signal); // its ids, and keyed by the task whose partition takes it
        return switch (signal.getKind()) {
            case SUBSCRIBE, UNSUBSCRIBE -> new Input.Subscription(taskId, signal, source);
            case NOTIFY -> valid(new Input.DependencyOutcome(taskId, signal.getUpstream(), signal.getOutcome(), signal.getExecutionId(),
                    signal.getNominalAtMs(), source));
        };
    }

    private int inputIndex(String topic) {
        if (topic.equals(settings.topics().requests())) {
            return FireDueTimers.REQUESTS;
        }
        if (topic.equals(settings.topics().deps())) {
            return DEPS;
        }
        return topic.equals(settings.topics().results()) ? FireDueTimers.RESULTS : RETRY_LOG;
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
            throw new WrongPartitionException("taskId " + Quote.of(taskId) + " belongs on partition " + expected + " of "
                    + source.getTopic() + " (murmur2 of the key, the Java client's default) but arrived on partition "
                    + source.getPartition() + "; produce with the default Java partitioner (kcat: -X partitioner=murmur2_random)");
        }
    }

    @Override
    public void close() {
        if (wakeUp != null) {
            wakeUp.close();
        }
        if (inputs != null) {
            inputs.close();
        }
        if (metrics != null) {
            metrics.close();
        }
    }

    private static SourceRecord sourceOf(RecordMetadata metadata) {
        return new SourceRecord(metadata.topic(), metadata.partition(), metadata.offset());
    }
}
