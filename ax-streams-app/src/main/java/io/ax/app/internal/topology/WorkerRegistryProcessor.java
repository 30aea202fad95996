package io.ax.app.internal.topology;

import io.ax.app.internal.metrics.RefusedRecords;
import io.ax.app.internal.metrics.SchedulerMetrics;
import io.ax.app.internal.workers.WorkerEntry;
import io.ax.app.internal.workers.WorkerEvents;
import io.ax.app.internal.workers.WorkerRegistrySettings;
import io.ax.app.internal.workers.WorkerRules;
import io.ax.codec.WorkerAnnouncement;
import io.ax.validation.Quote;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * The worker registry (README, "Worker registry"): reads the workers topic, keeps each worker's latest announcement in
 * the {@code ax-workers} store, and on a wall-clock punctuation ({@code ax.workers.check.ms}, on Kafka Streams' clock,
 * which tests drive) declares dead the workers {@link WorkerRules} finds silent: a DEAD line on {@code ax.state} naming
 * the executions they had in flight ({@link WorkerEvents}), and {@code ax_workers_dead_total}. A tombstone (the SDK's
 * goodbye on a graceful close) removes the worker with a LEFT line; a dead worker that announces again is ALIVE again.
 *
 * <p>It is a sub-topology of its own, so no task pays for it (DESIGN.md guarantee 9): nothing here runs per task. Every
 * record is checked before it is stored ({@link WorkerAnnouncement#parse}: key, bounds, JSON rules); a bad one changes
 * nothing, and is logged (WARN, key quoted short, topic-partition@offset) and counted ({@code ax_worker_records_refused},
 * {@code GET /workers}), like the calendars topic's. The store holds at most {@code ax.workers.max} workers. Each
 * announcement is one store write (and one changelog record): per worker per heartbeat, never per task.
 *
 * <p>The check keeps what it needs of each worker in memory ({@link WorkerRules.Liveness}: four longs), loaded from the
 * store when the partition is assigned, so a check reads the store only for a worker it declares dead. Not thread-safe:
 * one per stream task.
 *
 * <p>The registry's adapter, here with the other processors: its rules, entry and events are in {@code workers}, which
 * so uses no Kafka API (topology-docs/ARCHITECTURE.md).
 */
final class WorkerRegistryProcessor implements Processor<String, byte[], String, byte[]> {
    private static final Logger log = LoggerFactory.getLogger(WorkerRegistryProcessor.class);

    private final String store;
    private final String stateSink;
    private final String workersSink;
    private final WorkerRules rules;
    private final WorkerRegistrySettings settings;
    private final SchedulerMetrics metrics;
    private final Map<String, WorkerRules.Liveness> liveness = new HashMap<>();
    private ProcessorContext<String, byte[]> context;
    private KeyValueStore<String, byte[]> workers;
    private long watchingSinceMs;

    WorkerRegistryProcessor(String store, String stateSink, String workersSink, WorkerRegistrySettings settings,
                                   SchedulerMetrics metrics) {
        this.store = store;
        this.stateSink = stateSink;
        this.workersSink = workersSink;
        this.settings = settings;
        this.rules = new WorkerRules(settings);
        this.metrics = metrics;
    }

    @Override
    public void init(ProcessorContext<String, byte[]> context) {
        this.context = context;
        this.workers = context.getStateStore(store);
        this.watchingSinceMs = context.currentSystemTimeMs();
        try (KeyValueIterator<String, byte[]> all = workers.all()) {
            while (all.hasNext()) {
                var next = all.next();
                try {
                    liveness.put(next.key, WorkerRules.Liveness.of(WorkerEntry.decode(next.key, next.value)));
                } catch (RuntimeException e) { // a store written by another version: forget it, the worker announces again
                    log.warn("Worker {} in the registry store cannot be read and is forgotten: {}", Quote.of(next.key),
                            Quote.truncate(String.valueOf(e.getMessage()), 300));
                    workers.delete(next.key);
                }
            }
        }
        publishCounts();
        context.schedule(Duration.ofMillis(settings.checkMs()), PunctuationType.WALL_CLOCK_TIME, this::check);
    }

    @Override
    public void process(Record<String, byte[]> record) {
        long nowMs = context.currentSystemTimeMs();
        String workerId = record.key();
        if (record.value() == null) {
            maybeSayGoodbye(workerId, nowMs);
            return;
        }
        WorkerAnnouncement announcement;
        try {
            announcement = WorkerAnnouncement.parse(workerId, record.value());
        } catch (RuntimeException e) {
            refuse(workerId, String.valueOf(e.getMessage()));
            return;
        }
        WorkerRules.Liveness known = liveness.get(workerId);
        if (known == null && !rules.admits(liveness.size())) {
            refuse(workerId, "the registry holds ax.workers.max (" + settings.maxWorkers() + ") workers already");
            return;
        }
        if (known != null && known.dead()) {
            forward(workerId, WorkerEvents.alive(announcement, nowMs, "announced again after it was declared dead at "
                    + Instant.ofEpochMilli(known.deadAtMs())));
            log.info("Worker {} announced again after it was declared dead", Quote.of(workerId));
        }
        remember(WorkerEntry.alive(announcement, nowMs));
    }

    /** The partition moves away (or the instance stops): its workers are no longer counted here. */
    @Override
    public void close() {
        metrics.workers(context.taskId().partition(), 0, 0);
    }

    private void maybeSayGoodbye(String workerId, long nowMs) {
        if (workerId == null || !liveness.containsKey(workerId)) {
            return; // nothing known, or the tombstone this registry wrote when it forgot a dead worker
        }
        byte[] stored = workers.get(workerId);
        liveness.remove(workerId);
        workers.delete(workerId);
        publishCounts();
        if (stored != null) {
            forward(workerId, WorkerEvents.left(WorkerEntry.decode(workerId, stored), nowMs));
        }
        log.info("Worker {} left (goodbye)", Quote.of(workerId));
    }

    private void check(long wallClockMs) {
        long nowMs = context.currentSystemTimeMs();
        List<String> dead = new ArrayList<>();
        List<String> forgotten = new ArrayList<>();
        liveness.forEach((workerId, worker) -> {
            switch (rules.check(worker, nowMs, watchingSinceMs)) {
                case DEAD -> dead.add(workerId);
                case FORGET -> forgotten.add(workerId);
                default -> { }
            }
        });
        dead.forEach(workerId -> declareDead(workerId, nowMs));
        for (String workerId : forgotten) {
            liveness.remove(workerId);
            workers.delete(workerId);
            // so a registry that reads the topic from its start (a reset application) does not list it again
            context.forward(new Record<>(workerId, null, nowMs, new RecordHeaders()), workersSink);
        }
        if (!dead.isEmpty() || !forgotten.isEmpty()) {
            publishCounts();
        }
    }

    private void declareDead(String workerId, long nowMs) {
        byte[] stored = workers.get(workerId);
        if (stored == null) {
            liveness.remove(workerId);
            return;
        }
        WorkerEntry entry = WorkerEntry.decode(workerId, stored);
        long silentMs = nowMs - Math.max(entry.lastSeenMs(), watchingSinceMs);
        String reason = "silent for " + silentMs + " ms (" + settings.missedHeartbeats() + " heartbeats of "
                + entry.announcement().heartbeatMs() + " ms); " + entry.announcement().inFlightCount() + " execution(s) in flight";
        WorkerEntry marked = entry.markedDead(nowMs);
        workers.put(workerId, marked.encode());
        liveness.put(workerId, WorkerRules.Liveness.of(marked));
        forward(workerId, WorkerEvents.dead(entry, nowMs, reason));
        metrics.workerDeclaredDead();
        log.warn("Worker {} declared dead: {}; in flight: {}", Quote.of(workerId), reason,
                entry.announcement().inFlight().stream().map(WorkerAnnouncement.InFlight::executionId).toList());
    }

    private void remember(WorkerEntry entry) {
        workers.put(entry.workerId(), entry.encode());
        WorkerRules.Liveness before = liveness.put(entry.workerId(), WorkerRules.Liveness.of(entry));
        if (before == null) {
            log.info("Worker {} joined (heartbeat {} ms, job types {})", Quote.of(entry.workerId()),
                    entry.announcement().heartbeatMs(), entry.announcement().jobTypes());
        }
        if (before == null || before.dead()) { // the counts change only then: an announcement costs no count otherwise
            publishCounts();
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
