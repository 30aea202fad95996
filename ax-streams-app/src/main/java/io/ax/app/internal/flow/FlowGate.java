package io.ax.app.internal.flow;

import io.ax.FlowLimit;
import io.ax.InvalidRequestException;
import io.ax.app.internal.core.FlowMessage;
import io.ax.app.internal.metrics.SchedulerMetrics;
import io.ax.app.internal.store.FlowStores;
import io.ax.fair.FairTurns;
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
 * by gate key, so each gate ({@code type:<jobType>}, {@code owner:<owner>}) lives on exactly one stream task of the
 * whole fleet and counts exactly. For each gate it keeps the executions holding a slot, the ones waiting (a queue per
 * owner), and a token bucket; it grants while the gate's limits allow:
 * <ul>
 *   <li>{@code maxInFlight}: slots held (granted, not yet released);</li>
 *   <li>{@code maxNotStarted}: slots granted and not yet STARTED by a worker (backpressure);</li>
 *   <li>{@code maxPerSecond}: a token bucket of {@code burst} tokens (default {@code max(1, maxPerSecond / 10)})
 *   refilled continuously, at type and owner gates alike;</li>
 * </ul>
 * choosing among waiting owners by start-time fair queueing (each grant advances the owner's virtual time by
 * 1 / weight; the owner with the least virtual time goes next), then inside one owner by due time minus priority ×
 * {@code ax.priority.aging.ms} (the wheel's rule), then arrival.
 * A granted ACQUIRE goes on to the next gate of its chain, or, at the last, becomes a grant to the task's partition.
 * An ACQUIRE that has to wait is announced on the state topic (from = to, the execution's state) with the limit that
 * holds it. A wall-clock punctuation every {@value #PUNCTUATE_MS} ms grants what the refilled buckets and changed limits
 * allow. Work per record or punctuation is bounded by {@value #GRANT_BATCH} grants per gate.
 *
 * <p>An owner's live gate ({@code live:owner:<owner>}, maxLiveTasks) counts the owner's admitted live tasks the same way
 * (a slot per task, {@code inFlight} their count) but keeps no queue: an ADMIT is answered at once, ADMITTED while the
 * count is below the owner's {@code maxLiveTasks}, REFUSED otherwise (refuse-if-full), on the grants topic; the task's
 * RELEASE frees its slot when it stops being live.
 */
public final class FlowGate implements Processor<String, byte[], String, byte[]> {
    private static final Logger log = LoggerFactory.getLogger(FlowGate.class);
    static final long PUNCTUATE_MS = 20;
    static final int GRANT_BATCH = 1_000;
    /** The prefix of an owner's live gate (maxLiveTasks). */
    static final String LIVE_GATE = "live:owner:";

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
        GateStore.State state = gates.state(gate);
        fairShare.begin(gate, state);
        switch (message.kind()) {
            case ACQUIRE -> acquire(gate, state, message, nowMs);
            case RELEASE -> release(gate, state, message, nowMs);
            case STARTED -> started(gate, state, message, nowMs);
            case ADMIT -> admit(gate, state, message, nowMs);
        }
        gates.putState(gate, state);
        fairShare.end(gate, state);
        if (state.waiting > 0) {
            active.add(gate);
        }
        published(gate, state);
    }

    /**
     * A flow record checked before it touches a gate: its key a gate key (not null, at most
     * {@value FlowCodec#MAX_GATE_KEY_CHARS} chars) on the partition the key hashes to (murmur2, as the scheduler's
     * producer placed it: a record elsewhere would split a gate over two stream tasks that count apart), and the gate
     * the message names the key itself; then the value a well-formed flow message.
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
        if (!key.equals(message.gate())) {
            throw new InvalidRequestException(null, "flow record keyed by one gate names another: " + Quote.of(message.gate()));
        }
        return message;
    }

    /** A flow record not processed: logged (WARN, key quoted short) with topic, partition and offset, and counted. */
    private void skip(Record<String, byte[]> record, String reason) {
        RecordMetadata where = context.recordMetadata().orElse(null);
        log.warn("Skipped flow record key={} at {}: {}", Quote.of(record.key()), where == null ? "?" : where.topic() + "-"
                + where.partition() + "@" + where.offset(), Quote.truncate(reason, 500));
        metrics.flowRecordSkipped();
    }

    private void published(String gate, GateStore.State state) {
        known.add(gate);
        metrics.flowGate(gate, state.inFlight, state.waiting);
    }

    @Override
    public void close() {
        fairShare.clear();
        known.forEach(gate -> metrics.flowGate(gate, -1, 0));
    }

    private void acquire(String gate, GateStore.State state, FlowMessage message, long nowMs) {
        GateStore.Slot slot = gates.slot(gate, message.executionId());
        if (slot != null && slot.attempt() >= message.attempt()) {
            return; // a copy of an ACQUIRE already granted
        }
        if (slot != null) {
            free(gate, state, message.executionId(), slot); // an earlier attempt's slot whose RELEASE is still on its way
        }
        if (gates.waiting(gate, message.executionId()) != null) {
            return;
        }
        String owner = GateStore.ownerOf(message);
        if (!state.owners.containsKey(owner) && state.owners.size() >= GateStore.MAX_OWNERS) {
            owner = GateStore.OVERFLOW;
        }
        GateStore.OwnerQueue queue = state.owners.get(owner);
        if (queue == null) {
            queue = new GateStore.OwnerQueue();
            queue.vt = state.vclock;
            state.owners.put(owner, queue);
            fairShare.joined(gate, owner);
        }
        queue.waiting++;
        state.waiting++;
        gates.enqueue(gate, owner, message, ++state.seq);
        grantWhileAllowed(gate, state, nowMs);
        if (gates.waiting(gate, message.executionId()) != null) {
            held(message, heldReason(gate, state));
            metrics.flowHeld(gate);
        }
    }

    /**
     * Admission at an owner's live gate: a slot while the owner's admitted live tasks are fewer than its maxLiveTasks
     * (a copy of an ADMIT already admitted is answered ADMITTED again, without a second slot), else REFUSED.
     */
    private void admit(String gate, GateStore.State state, FlowMessage message, long nowMs) {
        FlowLimit limit = limitOf(gate);
        Integer max = limit == null ? null : limit.maxLiveTasks();
        String owner = gate.substring(LIVE_GATE.length());
        boolean copy = gates.slot(gate, message.executionId()) != null;
        if (!copy && max != null && state.inFlight >= max) {
            answer(message, FlowCodec.REFUSED, "owner " + owner + " has " + state.inFlight + " of " + max
                    + " live tasks (maxLiveTasks)", nowMs);
            return;
        }
        if (!copy) {
            // started = true: a live slot takes no part in maxNotStarted's count.
            gates.putSlot(gate, message.executionId(), new GateStore.Slot(message.taskId(), 0, message.owner(), true));
            state.inFlight++;
        }
        answer(message, FlowCodec.ADMITTED, "owner " + owner + " has " + state.inFlight + " of " + (max == null
                ? "unlimited (the quota was removed)" : String.valueOf(max)) + " live tasks (maxLiveTasks)", nowMs);
    }

    private void answer(FlowMessage message, String admission, String reason, long nowMs) {
        context.forward(new Record<>(message.taskId(), FlowCodec.encode(new FlowCodec.Grant(message.executionId(), 0,
                message.gates(), message.heldSinceMs(), admission, reason)), grantTimestampMs(message, nowMs), new RecordHeaders()),
                grantsSink);
    }

    private void release(String gate, GateStore.State state, FlowMessage message, long nowMs) {
        GateStore.Slot slot = gates.slot(gate, message.executionId());
        if (slot != null && slot.attempt() <= message.attempt()) {
            free(gate, state, message.executionId(), slot);
        } else {
            GateStore.Waiting waiting = gates.waiting(gate, message.executionId());
            if (waiting != null && waiting.message().attempt() <= message.attempt()) {
                gates.remove(gate, waiting);
                String queue = GateStore.queueOf(gate, waiting);
                if (dequeued(state, queue)) {
                    fairShare.left(gate, queue);
                }
            }
        }
        grantWhileAllowed(gate, state, nowMs);
    }

    private void started(String gate, GateStore.State state, FlowMessage message, long nowMs) {
        GateStore.Slot slot = gates.slot(gate, message.executionId());
        if (slot != null && slot.attempt() == message.attempt() && !slot.started()) {
            gates.putSlot(gate, message.executionId(), new GateStore.Slot(slot.taskId(), slot.attempt(), slot.owner(), true));
            state.notStarted = Math.max(0, state.notStarted - 1);
            grantWhileAllowed(gate, state, nowMs);
        }
    }

    private void free(String gate, GateStore.State state, String executionId, GateStore.Slot slot) {
        gates.deleteSlot(gate, executionId);
        state.inFlight = Math.max(0, state.inFlight - 1);
        if (!slot.started()) {
            state.notStarted = Math.max(0, state.notStarted - 1);
        }
    }

    /** One less waits in {@code owner}'s queue; returns whether that was its last (it left the gate's owners). */
    private static boolean dequeued(GateStore.State state, String owner) {
        state.waiting = Math.max(0, state.waiting - 1);
        GateStore.OwnerQueue queue = state.owners.get(owner);
        if (queue != null && --queue.waiting <= 0) {
            state.owners.remove(owner);
            return true;
        }
        return false;
    }

    private void punctuate(long wallClockMs) {
        for (String gate : new ArrayList<>(active)) {
            GateStore.State state = gates.state(gate);
            fairShare.begin(gate, state);
            if (state.waiting > 0 && grantWhileAllowed(gate, state, wallClockMs) > 0) {
                gates.putState(gate, state);
                published(gate, state);
            }
            fairShare.end(gate, state);
            if (state.waiting <= 0) {
                active.remove(gate);
            }
        }
    }

    /** Grants waiting executions while the gate's limits allow, at most {@link #GRANT_BATCH}; returns how many. */
    private int grantWhileAllowed(String gate, GateStore.State state, long nowMs) {
        FlowLimit limit = limitOf(gate);
        refill(state, limit, nowMs);
        int granted = 0;
        FairTurns<String> turns = null; // taken at the first grant: a record that grants nothing never builds them
        while (state.waiting > 0 && granted < GRANT_BATCH && blocked(gate, state, limit) == null) {
            if (turns == null) {
                turns = fairShare.of(gate, state);
            }
            String owner = turns.peek();
            if (owner == null) {
                state.waiting = 0; // counts out of step with the queues: they are empty
                break;
            }
            GateStore.Waiting head = gates.first(gate, owner);
            if (head == null) {
                turns.remove(owner);
                state.waiting = Math.max(0, state.waiting - state.owners.remove(owner).waiting);
                continue;
            }
            gates.remove(gate, head);
            GateStore.OwnerQueue queue = state.owners.get(owner);
            if (dequeued(state, owner)) {
                turns.servedLast(owner);
            } else {
                queue.vt = turns.served(owner, 0, 0);
            }
            state.vclock = turns.virtualNow();
            grant(gate, state, head.message(), limit, nowMs);
            granted++;
        }
        return granted;
    }

    private void grant(String gate, GateStore.State state, FlowMessage message, FlowLimit limit, long nowMs) {
        gates.putSlot(gate, message.executionId(), new GateStore.Slot(message.taskId(), message.attempt(), message.owner(), false));
        state.inFlight++;
        state.notStarted++;
        if (limit != null && limit.maxPerSecond() != null) {
            state.tokens -= 1;
        }
        if (message.lastGate()) {
            context.forward(new Record<>(message.taskId(), FlowCodec.encode(new FlowCodec.Grant(message.executionId(),
                    message.attempt(), message.gates(), message.heldSinceMs())), grantTimestampMs(message, nowMs),
                    new RecordHeaders()), grantsSink);
        } else {
            FlowMessage next = message.next();
            context.forward(new Record<>(next.gate(), FlowCodec.encode(next), nowMs, new RecordHeaders()), flowSink);
        }
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

    private static void refill(GateStore.State state, FlowLimit limit, long nowMs) {
        if (limit == null || limit.maxPerSecond() == null) {
            return;
        }
        double capacity = limit.bucketSize();
        if (state.tokens < 0 && state.refillMs == 0) {
            state.tokens = capacity;
        } else {
            long elapsedMs = Math.max(0, nowMs - state.refillMs);
            state.tokens = Math.min(capacity, state.tokens + elapsedMs * limit.maxPerSecond() / 1000.0);
        }
        state.refillMs = nowMs;
    }

    private FlowLimit limitOf(String gate) {
        if (gate.startsWith(LIVE_GATE)) {
            return limits.ownerLimit(gate.substring(LIVE_GATE.length()));
        }
        return gate.startsWith("owner:") ? limits.ownerLimit(gate.substring("owner:".length())) : limits.limit(gate);
    }

    /** Why the gate grants nothing more now, or null when it may. */
    private static String blocked(String gate, GateStore.State state, FlowLimit limit) {
        if (limit == null) {
            return null;
        }
        boolean type = gate.startsWith("type:");
        if (limit.maxInFlight() != null && state.inFlight >= limit.maxInFlight()) {
            return "held: " + gate + " has " + state.inFlight + " of " + limit.maxInFlight() + " executions in flight ("
                    + (type ? "cluster-wide maxInFlight" : "owner maxInFlight") + ")";
        }
        if (type && limit.maxNotStarted() != null && state.notStarted >= limit.maxNotStarted()) {
            return "held: " + gate + " has " + state.notStarted + " of " + limit.maxNotStarted()
                    + " dispatches not yet started by a worker (maxNotStarted: its workers are behind)";
        }
        if (limit.maxPerSecond() != null && state.tokens < 1) {
            return "held: " + gate + " dispatches at most " + limit.maxPerSecond() + " per second ("
                    + (type ? "maxPerSecond" : "owner maxPerSecond") + ")";
        }
        return null;
    }

    private String heldReason(String gate, GateStore.State state) {
        String blocked = blocked(gate, state, limitOf(gate));
        return blocked != null ? blocked : "held: " + state.waiting + " executions wait at " + gate + " (fair share across owners)";
    }

    /**
     * Tells the task's partition that this gate holds the execution, and why: the partition writes the held event (to
     * {@code ax.state} and the task's history, so {@code GET /tasks/{id}} shows it too). Stamped like a grant.
     */
    private void held(FlowMessage message, String reason) {
        context.forward(new Record<>(message.taskId(), FlowCodec.encode(FlowCodec.Grant.held(message.executionId(),
                message.attempt(), message.gate(), message.heldSinceMs(), reason)), grantTimestampMs(message, context.currentSystemTimeMs()),
                new RecordHeaders()), grantsSink);
    }
}
