package io.ax.app.internal.flow;

import io.ax.FlowLimit;
import io.ax.InvalidRequestException;
import io.ax.app.internal.core.FlowGrant;
import io.ax.app.internal.core.FlowMessage;
import io.ax.app.internal.core.GateRules;
import io.ax.app.internal.core.GateState;
import io.ax.app.internal.core.GateTurns;
import io.ax.app.internal.metrics.SchedulerMetrics;
import io.ax.app.internal.store.FlowStores;
import io.ax.validation.Quote;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.function.ToIntFunction;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The flow-control gates (topology-docs/FLOW-CONTROL.md): one processor per partition of the flow topic, which is keyed
 * by gate key, so each gate ({@code type:<jobType>}, {@code owner:<owner>}, {@code live:owner:<owner>}) lives on exactly
 * one stream task of the whole fleet and counts exactly. The adapter around {@link GateRules}: it decodes and checks
 * each record, reads the gate's record, calls the rules and applies their effects (the gate's store, its record among
 * them when the rules changed it, the flow and grants topics, the metrics). A wall-clock punctuation every {@value #PUNCTUATE_MS} ms lets each
 * gate with executions waiting grant what refilled buckets and changed limits allow.
 */
public final class FlowGate implements Processor<String, byte[], String, byte[]> {
    private static final Logger log = LoggerFactory.getLogger(FlowGate.class);
    static final long PUNCTUATE_MS = 20;
    static final int GRANT_BATCH = GateRules.GRANT_BATCH;
    static final String LIVE_GATE = GateRules.LIVE_GATE;

    private final String flowSink;
    private final String grantsSink;
    private final StoreFlowLimits limits = new StoreFlowLimits();
    private final Set<String> active = new LinkedHashSet<>();
    private final SchedulerMetrics metrics;
    private final long priorityAgingMs;
    private final ToIntFunction<String> keyPartition;
    /** Every gate this stream task has touched, for the metrics and to forget them when it closes. */
    private final Set<String> known = new LinkedHashSet<>();
    private final LimitsChanges limitsChanges;
    /** Each gate's fair share between owners, kept between records (the gate's record stays the truth). */
    private final GateTurns fairShare = new GateTurns(owner -> limits.weight(owner.isEmpty() ? null : owner));
    private ProcessorContext<String, byte[]> context;
    private GateStore gates;
    private final GateRules.Reads reads = new Reads();
    private final GateRules.Effects effects = new Effects();

    /**
     * @param keyPartition the partition of the flow topic a gate key belongs on (the producer's partitioner), or -1 when
     *                     the partition count is unknown (then records are not checked for being on their key's partition)
     */
    public FlowGate(String flowSink, String grantsSink, SchedulerMetrics metrics, LimitsChanges limitsChanges, long priorityAgingMs,
                    ToIntFunction<String> keyPartition) {
        this.metrics = metrics;
        this.limitsChanges = limitsChanges;
        this.keyPartition = keyPartition;
        this.priorityAgingMs = priorityAgingMs;
        this.flowSink = flowSink;
        this.grantsSink = grantsSink;
    }

    @Override
    public void init(ProcessorContext<String, byte[]> context) {
        this.context = context;
        fairShare.clear();
        this.gates = new GateStore(context.getStateStore(FlowStores.GATES), priorityAgingMs);
        limits.attach(context.getStateStore(FlowStores.LIMITS), limitsChanges);
        gates.forEachGate((gate, state) -> {
            if (state.waiting > 0) {
                active.add(gate);
            }
            published(gate, state);
        });
        context.schedule(Duration.ofMillis(PUNCTUATE_MS), PunctuationType.WALL_CLOCK_TIME, this::punctuate);
    }

    @Override
    public void process(Record<String, byte[]> record) {
        FlowMessage message;
        try {
            message = decode(record);
        } catch (InvalidRequestException e) {
            skip(record, e.getMessage());
            return;
        }
        long nowMs = context.currentSystemTimeMs();
        String gate = message.gate();
        GateState state = gates.state(gate);
        fairShare.begin(gate, state);
        GateRules.decide(gate, state, message, nowMs, reads, effects);
        fairShare.end(gate, state);
        if (state.waiting > 0) {
            active.add(gate);
        }
        published(gate, state);
    }

    /**
     * A flow record checked before it touches a gate: its key a gate key (not null, at most
     * {@value FlowCodec#MAX_GATE_KEY_CHARS} chars) on the partition the key hashes to (murmur2, as the scheduler's
     * producer placed it: a record elsewhere would split a gate over two stream tasks that count apart); then the value
     * a well-formed flow message that keeps the rules of its fields ({@link GateRules#requireValid}).
     */
    private FlowMessage decode(Record<String, byte[]> record) {
        String key = record.key();
        if (key == null || key.isEmpty()) {
            throw new InvalidRequestException(null, "flow record without a key (a gate key)");
        }
        if (key.length() > FlowCodec.MAX_GATE_KEY_CHARS) {
            throw new InvalidRequestException(null, "flow record key is " + key.length() + " chars, longer than a gate key ("
                    + FlowCodec.MAX_GATE_KEY_CHARS + ")");
        }
        int partition = context.recordMetadata().map(RecordMetadata::partition).orElse(-1);
        int expected = keyPartition.applyAsInt(key);
        if (partition >= 0 && expected >= 0 && expected != partition) {
            throw new InvalidRequestException(null, "gate key belongs on partition " + expected + " (murmur2 of the key) but"
                    + " arrived on partition " + partition);
        }
        FlowMessage message = FlowCodec.decodeMessage(record.value());
        GateRules.requireValid(key, message);
        return message;
    }

    /** A flow record not processed: logged (WARN, key quoted short) with topic, partition and offset, and counted. */
    private void skip(Record<String, byte[]> record, String reason) {
        RecordMetadata where = context.recordMetadata().orElse(null);
        log.warn("Skipped flow record key={} at {}: {}", Quote.of(record.key()), where == null ? "?" : where.topic() + "-"
                + where.partition() + "@" + where.offset(), Quote.truncate(reason, 500));
        metrics.flowRecordSkipped();
    }

    private void published(String gate, GateState state) {
        known.add(gate);
        metrics.flowGate(gate, state.inFlight, state.waiting);
    }

    @Override
    public void close() {
        fairShare.clear();
        known.forEach(gate -> metrics.flowGate(gate, -1, 0));
    }

    private void punctuate(long wallClockMs) {
        for (String gate : new ArrayList<>(active)) {
            GateState state = gates.state(gate);
            fairShare.begin(gate, state);
            if (state.waiting > 0 && GateRules.grantWhileAllowed(gate, state, wallClockMs, reads, effects) > 0) {
                published(gate, state);
            }
            fairShare.end(gate, state);
            if (state.waiting <= 0) {
                active.remove(gate);
            }
        }
    }

    private void answer(FlowMessage message, boolean admitted, String reason, long nowMs) {
        context.forward(new Record<>(message.taskId(), FlowCodec.encode(FlowGrant.answer(message.executionId(),
                message.gates(), message.heldSinceMs(), admitted, reason)), grantTimestampMs(message, nowMs), new RecordHeaders()),
                grantsSink);
    }

    /**
     * A grant's record time is when its execution was held, not now. The task's stream task reads the grants beside
     * the requests and reports and takes the record with the earliest time first; stamped now, a grant would wait
     * behind every report written before it (a backlog of them after a burst: tens of seconds in {@code ax bench
     * fairness}). Stamped with the hold, it is the next record read. No decision reads a grant's record time.
     */
    static long grantTimestampMs(FlowMessage message, long nowMs) {
        return message.heldSinceMs() > 0 ? Math.min(nowMs, message.heldSinceMs()) : nowMs;
    }

    private FlowLimit limitOf(String gate) {
        if (gate.startsWith(LIVE_GATE)) {
            return limits.ownerLimit(gate.substring(LIVE_GATE.length()));
        }
        return gate.startsWith("owner:") ? limits.ownerLimit(gate.substring("owner:".length())) : limits.limit(gate);
    }

    /** What the rules read: the limits in force, the gate's store, the kept turns. */
    private final class Reads implements GateRules.Reads {
        @Override
        public FlowLimit limit(String gate) {
            return limitOf(gate);
        }

        @Override
        public GateState.Slot slot(String gate, String executionId) {
            return gates.slot(gate, executionId);
        }

        @Override
        public GateState.Waiting waiting(String gate, String executionId) {
            return gates.waiting(gate, executionId);
        }

        @Override
        public GateState.Waiting first(String gate, String queue) {
            return gates.first(gate, queue);
        }

        @Override
        public GateTurns turns() {
            return fairShare;
        }
    }

    /** The rules' effects applied: the gate's store, the flow and grants topics, the held metric. */
    private final class Effects implements GateRules.Effects {
        @Override
        public void putSlot(String gate, String executionId, GateState.Slot slot) {
            gates.putSlot(gate, executionId, slot);
        }

        @Override
        public void deleteSlot(String gate, String executionId) {
            gates.deleteSlot(gate, executionId);
        }

        @Override
        public void enqueue(String gate, String queue, FlowMessage message, long seq) {
            gates.enqueue(gate, queue, message, seq);
        }

        @Override
        public void dequeue(String gate, GateState.Waiting waiting) {
            gates.remove(gate, waiting);
        }

        @Override
        public void granted(String gate, FlowMessage message, long nowMs) {
            if (message.lastGate()) {
                context.forward(new Record<>(message.taskId(), FlowCodec.encode(new FlowGrant(message.executionId(),
                        message.attempt(), message.gates(), message.heldSinceMs())), grantTimestampMs(message, nowMs),
                        new RecordHeaders()), grantsSink);
            } else {
                FlowMessage next = message.next();
                context.forward(new Record<>(next.gate(), FlowCodec.encode(next), nowMs, new RecordHeaders()), flowSink);
            }
        }

        @Override
        public void held(String gate, FlowMessage message, String reason) {
            FlowGate.this.held(message, reason);
            metrics.flowHeld(gate);
        }

        @Override
        public void admission(FlowMessage message, boolean admitted, String reason, long nowMs) {
            answer(message, admitted, reason, nowMs);
        }

        @Override
        public void stateChanged(String gate, GateState state) {
            gates.putState(gate, state);
        }
    }

    /**
     * Tells the task's partition that this gate holds the execution, and why: the partition writes the held event (to
     * {@code ax.state} and the task's history, so {@code GET /tasks/{id}} shows it too). Stamped like a grant.
     */
    private void held(FlowMessage message, String reason) {
        context.forward(new Record<>(message.taskId(), FlowCodec.encode(FlowGrant.held(message.executionId(),
                message.attempt(), message.gate(), message.heldSinceMs(), reason)), grantTimestampMs(message, context.currentSystemTimeMs()),
                new RecordHeaders()), grantsSink);
    }
}
