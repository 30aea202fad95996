package io.ax.app.internal.topology;

import io.ax.app.internal.metrics.RefusedRecords;
import io.ax.app.internal.metrics.SchedulerMetrics;
import io.ax.app.internal.timer.InputWatermarks;
import io.ax.app.internal.timer.PartitionWakeUp;
import io.ax.app.internal.timer.WakeUps;
import io.ax.app.internal.workers.WorkerEntry;
import io.ax.app.internal.workers.WorkerRegistrySettings;
import io.ax.app.internal.workers.WorkerRules;
import io.ax.codec.WorkerAnnouncement;
import io.ax.validation.Quote;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BiConsumer;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker registry's adapter (README, "Worker registry"): reads the workers topic into the {@code ax-workers} store,
 * and checks for silent workers on a wall-clock punctuation ({@code ax.workers.check.ms}, on Kafka Streams' clock, which
 * tests drive). A silence counts only as far as the workers partition is proven read ({@link InputWatermarks}, as the
 * stream tasks' fires do with their inputs): the earliest time a worker could be declared dead is published to the stream
 * thread's consumer as a wake-up ({@link WakeUps}), at the first check at or after it, so the consumer asks the end offsets
 * then and the check has its proof; nothing is asked while every worker announces in time. {@link WorkerRules} decides
 * everything: which announcement is kept or refused, who joined, who is ALIVE again, who LEFT, who is DEAD and who is
 * forgotten. This class only reads the store and the memory beside it, calls the
 * rules and applies their effects: the store, the lines on {@code ax.state}, the tombstones on the workers topic, the
 * metrics ({@code ax_workers}, {@code ax_workers_dead_total}, {@code ax_worker_records_refused}) and the log (a refused
 * record: WARN, key quoted short, topic-partition@offset, and listed by {@code GET /workers}, like the calendars topic's).
 *
 * <p>It is a sub-topology of its own, so no task pays for it (DESIGN.md guarantee 9): nothing here runs per task. The
 * store holds at most {@code ax.workers.max} workers. Each announcement is one store write (and one changelog record):
 * per worker per heartbeat, never per task.
 *
 * <p>The check keeps what it needs of each worker in memory ({@link WorkerRules.Liveness}: four longs), loaded from the
 * store when the partition is assigned ({@link WorkerRules#load}, which also decides what to do with an entry that does
 * not read), so a check reads the store only for a worker it declares dead. Not thread-safe:
 * one per stream task.
 *
 * <p>Here with the other processors: the registry's rules, entry and events are in {@code workers}, which so uses no
 * Kafka API (topology-docs/ARCHITECTURE.md).
 */
final class WorkerRegistryProcessor implements Processor<String, byte[], String, byte[]> {
    private static final Logger log = LoggerFactory.getLogger(WorkerRegistryProcessor.class);

    private final String store;
    private final String stateSink;
    private final String workersSink;
    private final WorkerRules rules;
    private final WorkerRegistrySettings settings;
    private final SchedulerMetrics metrics;
    private final SchedulerSettings scheduler;
    private final Map<String, WorkerRules.Liveness> liveness = new HashMap<>();
    private final Registry registry = new Registry();
    private ProcessorContext<String, byte[]> context;
    private KeyValueStore<String, byte[]> workers;
    private long watchingSinceMs;
    private InputWatermarks input;
    private WakeUps wakeUps;
    private long lastCheckMs;

    WorkerRegistryProcessor(String store, String stateSink, String workersSink, SchedulerSettings scheduler) {
        this.store = store;
        this.stateSink = stateSink;
        this.workersSink = workersSink;
        this.scheduler = scheduler;
        this.settings = scheduler.workers();
        this.rules = new WorkerRules(settings);
        this.metrics = scheduler.metrics();
    }

    @Override
    public void init(ProcessorContext<String, byte[]> context) {
        this.context = context;
        this.workers = context.getStateStore(store);
        this.watchingSinceMs = context.currentSystemTimeMs();
        this.lastCheckMs = watchingSinceMs;
        // Kafka Streams inits the same object again after a standby spell: what it held then may have left the store since.
        liveness.clear();
        if (input != null) {
            input.close();
        }
        input = new InputWatermarks(scheduler.positions(), context.taskId().partition(), scheduler.maxClockSkewMs(),
                scheduler.topics().workers());
        wakeUps = scheduler.threads().current().wakeUps();
        rules.load(this::readStore, registry);
        context.schedule(Duration.ofMillis(settings.checkMs()), PunctuationType.WALL_CLOCK_TIME, this::check);
        publishWakeUp();
    }

    @Override
    public void process(Record<String, byte[]> record) {
        rules.decide(record.key(), record.value(), context.currentSystemTimeMs(), registry, registry);
        context.recordMetadata().ifPresent(where -> input.processed(0, where.offset(), record.timestamp()));
    }

    /** The partition moves away (or the instance stops): its workers are no longer counted here. */
    @Override
    public void close() {
        metrics.workers(context.taskId().partition(), 0, 0);
        if (wakeUps != null) {
            wakeUps.clear(this);
        }
        if (input != null) {
            input.close();
            input = null;
        }
    }

    private void readStore(BiConsumer<String, byte[]> each) {
        try (KeyValueIterator<String, byte[]> all = workers.all()) {
            while (all.hasNext()) {
                var next = all.next();
                each.accept(next.key, next.value);
            }
        }
    }

    private void check(long wallClockMs) {
        long nowMs = context.currentSystemTimeMs();
        lastCheckMs = wallClockMs;
        rules.checkAll(nowMs, watchingSinceMs, input.readUpToMs(0, nowMs), registry, registry);
        publishWakeUp();
    }

    /**
     * The thread's consumer is to wake at the first check at or after the earliest time a worker could be declared dead,
     * and to ask the end offsets then (the poll waits for the answer while it has nothing else to hand over), so that
     * check finds the workers partition proven read up to its time. While every worker announces in time that moment
     * moves ahead with each check and is never reached: nothing is asked.
     */
    private void publishWakeUp() {
        long deathMs = rules.earliestDeathMs(liveness, watchingSinceMs);
        long checkAtMs = deathMs == Long.MAX_VALUE ? Long.MAX_VALUE
                : PartitionWakeUp.punctuationAtOrAfter(deathMs, lastCheckMs, settings.checkMs());
        wakeUps.set(this, checkAtMs, checkAtMs);
    }

    /** What the rules read of the store and the memory beside it, and where their effects go. */
    private final class Registry implements WorkerRules.Reads, WorkerRules.Effects {
        private final Map<String, WorkerRules.Liveness> listed = Collections.unmodifiableMap(liveness);

        @Override
        public void list(WorkerEntry entry) {
            liveness.put(entry.workerId(), WorkerRules.Liveness.of(entry));
        }

        @Override
        public WorkerRules.Liveness liveness(String workerId) {
            return liveness.get(workerId);
        }

        @Override
        public Map<String, WorkerRules.Liveness> listed() {
            return listed;
        }

        @Override
        public WorkerEntry entry(String workerId) {
            byte[] stored = workers.get(workerId);
            return stored == null ? null : WorkerEntry.decode(workerId, stored);
        }

        @Override
        public void put(WorkerEntry entry) {
            workers.put(entry.workerId(), entry.encode());
            liveness.put(entry.workerId(), WorkerRules.Liveness.of(entry));
        }

        @Override
        public void delete(String workerId) {
            liveness.remove(workerId);
            workers.delete(workerId);
        }

        @Override
        public void unlist(String workerId) {
            liveness.remove(workerId);
        }

        @Override
        public void stateLine(String workerId, byte[] line) {
            forward(workerId, line);
        }

        @Override
        public void tombstoneAnnouncement(String workerId) {
            context.forward(new Record<>(workerId, null, context.currentSystemTimeMs(), new RecordHeaders()), workersSink);
        }

        @Override
        public void refuse(String workerId, String reason) {
            WorkerRegistryProcessor.this.refuse(workerId, reason);
        }

        @Override
        public void declaredDead(WorkerEntry entry, String reason) {
            metrics.workerDeclaredDead();
            log.warn("Worker {} declared dead: {}; in flight: {}", Quote.of(entry.workerId()), reason,
                    entry.announcement().inFlight().stream().map(WorkerAnnouncement.InFlight::executionId).toList());
        }

        @Override
        public void countsChanged() {
            publishCounts();
        }

        @Override
        public void note(String message) {
            log.info("{}", message);
        }

        @Override
        public void warn(String message) {
            log.warn("{}", message);
        }
    }

    private void forward(String workerId, byte[] line) {
        context.forward(new Record<>(workerId, line, context.currentSystemTimeMs(), new RecordHeaders()), stateSink);
    }

    private void publishCounts() {
        long dead = liveness.values().stream().filter(WorkerRules.Liveness::dead).count();
        metrics.workers(context.taskId().partition(), liveness.size() - dead, dead);
    }

    private void refuse(String workerId, String reason) {
        RecordMetadata where = context.recordMetadata().orElse(null);
        int partition = where == null ? -1 : where.partition();
        long offset = where == null ? -1 : where.offset();
        String shortReason = Quote.truncate(reason, 500);
        RefusedRecords refused = metrics.workerErrors();
        refused.refused(new RefusedRecords.Refused(Quote.key(workerId), partition, offset, shortReason));
        log.warn("Refused workers record key={} at {}-{}@{}: {} (not stored; the worker's previous announcement stays)",
                Quote.of(workerId), where == null ? "?" : where.topic(), partition, offset, shortReason);
    }
}
