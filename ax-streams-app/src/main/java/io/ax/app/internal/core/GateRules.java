package io.ax.app.internal.core;

import io.ax.FlowLimit;
import io.ax.InvalidRequestException;
import io.ax.fair.FairTurns;
import io.ax.schema.TaskState;
import io.ax.validation.Quote;

/**
 * The decisions of a flow gate (topology-docs/FLOW-CONTROL.md), a pure function of the gate's record, the message and
 * the time: {@link #decide} takes an ACQUIRE, RELEASE, STARTED or ADMIT, {@link #grantWhileAllowed} the gate's
 * punctuation. They change the record ({@link GateState}) in place, read the gate's limits, slots and queues through
 * {@link Reads} and hand every effect to {@link Effects} at once (a later read sees it), the changed record last
 * ({@link Effects#stateChanged}); {@code flow.FlowGate} only reads the record, calls them and applies the effects to its
 * store and topics. No I/O, no clock, no Kafka types.
 *
 * <p>A gate grants while its limits allow:
 * <ul>
 *   <li>{@code maxInFlight}: slots held (granted, not yet released);</li>
 *   <li>{@code maxNotStarted}, at a type gate: slots granted and not yet STARTED by a worker (backpressure);</li>
 *   <li>{@code maxPerSecond}: a token bucket of {@code burst} tokens (default {@code max(1, maxPerSecond / 10)})
 *   refilled continuously, at type and owner gates alike;</li>
 * </ul>
 * choosing among waiting owners by start-time fair queueing ({@link GateTurns}: each grant advances the owner's virtual
 * time by 1 / weight, the owner with the least goes next), then inside one owner by {@link io.ax.fair.Rank} (the
 * store's order), then arrival. At most {@value #GRANT_BATCH} grants per record or punctuation.
 *
 * <p>An owner's live gate ({@code live:owner:<owner>}, maxLiveTasks) counts the owner's admitted live tasks the same
 * way (a slot per task, {@code inFlight} their count) but keeps no queue: an ADMIT is answered at once, admitted while
 * the count is below the owner's {@code maxLiveTasks}, refused otherwise.
 */
public final class GateRules {
    /** The most grants one record or punctuation of a gate makes. */
    public static final int GRANT_BATCH = 1_000;
    /** The prefix of an owner's live gate (maxLiveTasks). */
    public static final String LIVE_GATE = "live:owner:";
    public static final int MAX_OWNERS = 5_000;

    /** What the rules read beyond the gate's record: limits, the gate's slots and queues, its kept turns. */
    public interface Reads {
        /** The limits that apply at {@code gate}, or null. */
        FlowLimit limit(String gate);

        GateState.Slot slot(String gate, String executionId);

        /** The waiting ACQUIRE of {@code executionId}, or null. */
        GateState.Waiting waiting(String gate, String executionId);

        /** The first waiting ACQUIRE of {@code queue} (an owner, or {@link GateState#OVERFLOW}), or null. */
        GateState.Waiting first(String gate, String queue);

        /** The gates' fair share, kept between records. */
        GateTurns turns();
    }

    /** Where the rules' effects go; each is applied when handed over. */
    public interface Effects {
        void putSlot(String gate, String executionId, GateState.Slot slot);

        void deleteSlot(String gate, String executionId);

        /** Queues {@code message} in {@code queue} (its owner, or {@link GateState#OVERFLOW}), {@code seq} its arrival. */
        void enqueue(String gate, String queue, FlowMessage message, long seq);

        void dequeue(String gate, GateState.Waiting waiting);

        /** {@code message} is granted at {@code gate} at {@code nowMs}: it goes on to its next gate, or, at its last, to its task. */
        void granted(String gate, FlowMessage message, long nowMs);

        /** {@code message} waits at {@code gate}: the task is told why. */
        void held(String gate, FlowMessage message, String reason);

        /** The answer to an ADMIT at {@code nowMs}: admitted or refused, and why. */
        void admission(FlowMessage message, boolean admitted, String reason, long nowMs);

        /**
         * {@code gate}'s record is now {@code state}: write it. Handed over last, once per {@link #decide} or
         * {@link #grantWhileAllowed} that changed it, never when it did not.
         */
        void stateChanged(String gate, GateState state);
    }

    private GateRules() {
    }

    /**
     * The rules of a flow record's own fields, checked before it touches a gate (the adapter skips a record that breaks
     * one, logged and counted, and goes on). An ACQUIRE is granted to its taskId and announced, while held, in its
     * state: without them a grant could not reach the task (its slot would stay taken for good) and the held event
     * could not be written. And the gate the message names is the record's key: keyed by another, it would be counted at
     * a gate that is not its own.
     *
     * @param key the record's key (a gate key)
     * @throws InvalidRequestException saying which rule
     */
    public static void requireValid(String key, FlowMessage message) {
        if (message.kind() == FlowMessage.Kind.ACQUIRE && (message.taskId() == null
                || (message.state() != TaskState.PENDING && message.state() != TaskState.RETRY_WAITING))) {
            throw new InvalidRequestException(null, "ACQUIRE needs its taskId and a state PENDING or RETRY_WAITING: "
                    + Quote.of(message.taskId()) + ", " + message.state());
        }
        if (!message.gate().equals(key)) {
            throw new InvalidRequestException(null, "flow record keyed by one gate names another: " + Quote.of(message.gate()));
        }
    }

    /**
     * Applies {@code message} to {@code gate}'s record {@code state} at {@code nowMs}; then, if the record changed,
     * {@link Effects#stateChanged}.
     */
    public static void decide(String gate, GateState state, FlowMessage message, long nowMs, Reads reads, Effects effects) {
        Counters before = Counters.of(state);
        switch (message.kind()) {
            case ACQUIRE -> acquire(gate, state, message, nowMs, reads, effects);
            case RELEASE -> release(gate, state, message, nowMs, reads, effects);
            case STARTED -> started(gate, state, message, nowMs, reads, effects);
            case ADMIT -> admit(gate, state, message, nowMs, reads, effects);
        }
        maybeStateChanged(gate, state, before, effects);
    }

    /**
     * Grants waiting executions while the gate's limits allow, at most {@link #GRANT_BATCH}; returns how many; then, if
     * the record changed, {@link Effects#stateChanged}. The gate's punctuation calls it (refilled buckets, changed
     * limits); every record that may free a slot grants the same way, inside {@link #decide}.
     */
    public static int grantWhileAllowed(String gate, GateState state, long nowMs, Reads reads, Effects effects) {
        Counters before = Counters.of(state);
        int granted = grantWhile(gate, state, nowMs, reads, effects);
        maybeStateChanged(gate, state, before, effects);
        return granted;
    }

    /**
     * The record's counters, which every change of it moves but a refill of the token bucket: each enqueue raises
     * {@code seq}, each dequeue lowers {@code waiting}, each grant, admission or freed slot moves {@code inFlight}, a
     * STARTED {@code notStarted}, each grant {@code vclock} (and an owner's {@code vt} only with it), an owner that
     * joins or leaves the owners' count. A refill alone is not written: the bucket is a function of the time and the
     * stored (tokens, refillMs), so refilled again from the older pair at the next decision it holds as many tokens;
     * writing it would cost the gate a changelog record every punctuation while executions wait.
     */
    private record Counters(long inFlight, long notStarted, long seq, long waiting, double vclock, int owners) {
        static Counters of(GateState state) {
            return new Counters(state.inFlight, state.notStarted, state.seq, state.waiting, state.vclock, state.owners.size());
        }
    }

    private static void maybeStateChanged(String gate, GateState state, Counters before, Effects effects) {
        if (!before.equals(Counters.of(state))) {
            effects.stateChanged(gate, state);
        }
    }

    private static void acquire(String gate, GateState state, FlowMessage message, long nowMs, Reads reads, Effects effects) {
        GateState.Slot slot = reads.slot(gate, message.executionId());
        if (slot != null && slot.attempt() >= message.attempt()) {
            return; // a copy of an ACQUIRE already granted
        }
        if (slot != null) {
            free(gate, state, message.executionId(), slot, effects); // an earlier attempt's slot whose RELEASE is on its way
        }
        if (reads.waiting(gate, message.executionId()) != null) {
            return;
        }
        String owner = ownerOf(message);
        if (!state.owners.containsKey(owner) && state.owners.size() >= MAX_OWNERS) {
            owner = GateState.OVERFLOW;
        }
        GateState.OwnerQueue queue = state.owners.get(owner);
        if (queue == null) {
            queue = new GateState.OwnerQueue();
            queue.vt = state.vclock;
            state.owners.put(owner, queue);
            reads.turns().joined(gate, owner);
        }
        queue.waiting++;
        state.waiting++;
        effects.enqueue(gate, owner, message, ++state.seq);
        grantWhile(gate, state, nowMs, reads, effects);
        if (reads.waiting(gate, message.executionId()) != null) {
            effects.held(gate, message, heldReason(gate, state, reads.limit(gate)));
        }
    }

    /**
     * Admission at an owner's live gate: a slot while the owner's admitted live tasks are fewer than its maxLiveTasks
     * (a copy of an ADMIT already admitted is admitted again, without a second slot), else refused.
     */
    private static void admit(String gate, GateState state, FlowMessage message, long nowMs, Reads reads, Effects effects) {
        FlowLimit limit = reads.limit(gate);
        Integer max = limit == null ? null : limit.maxLiveTasks();
        String owner = gate.substring(LIVE_GATE.length());
        boolean copy = reads.slot(gate, message.executionId()) != null;
        if (!copy && max != null && state.inFlight >= max) {
            effects.admission(message, false, "owner " + owner + " has " + state.inFlight + " of " + max
                    + " live tasks (maxLiveTasks)", nowMs);
            return;
        }
        if (!copy) {
            // started = true: a live slot takes no part in maxNotStarted's count.
            effects.putSlot(gate, message.executionId(), new GateState.Slot(message.taskId(), 0, message.owner(), true));
            state.inFlight++;
        }
        effects.admission(message, true, "owner " + owner + " has " + state.inFlight + " of " + (max == null
                ? "unlimited (the quota was removed)" : String.valueOf(max)) + " live tasks (maxLiveTasks)", nowMs);
    }

    private static void release(String gate, GateState state, FlowMessage message, long nowMs, Reads reads, Effects effects) {
        GateState.Slot slot = reads.slot(gate, message.executionId());
        if (slot != null && slot.attempt() <= message.attempt()) {
            free(gate, state, message.executionId(), slot, effects);
        } else {
            GateState.Waiting waiting = reads.waiting(gate, message.executionId());
            if (waiting != null && waiting.message().attempt() <= message.attempt()) {
                effects.dequeue(gate, waiting);
                if (dequeued(state, waiting.queue())) {
                    reads.turns().left(gate, waiting.queue());
                }
            }
        }
        grantWhile(gate, state, nowMs, reads, effects);
    }

    private static void started(String gate, GateState state, FlowMessage message, long nowMs, Reads reads, Effects effects) {
        GateState.Slot slot = reads.slot(gate, message.executionId());
        if (slot != null && slot.attempt() == message.attempt() && !slot.started()) {
            effects.putSlot(gate, message.executionId(), new GateState.Slot(slot.taskId(), slot.attempt(), slot.owner(), true));
            state.notStarted = Math.max(0, state.notStarted - 1);
            grantWhile(gate, state, nowMs, reads, effects);
        }
    }

    private static void free(String gate, GateState state, String executionId, GateState.Slot slot, Effects effects) {
        effects.deleteSlot(gate, executionId);
        state.inFlight = Math.max(0, state.inFlight - 1);
        if (!slot.started()) {
            state.notStarted = Math.max(0, state.notStarted - 1);
        }
    }

    /** One less waits in {@code queue}; returns whether that was its last (it left the gate's owners). */
    private static boolean dequeued(GateState state, String queue) {
        state.waiting = Math.max(0, state.waiting - 1);
        GateState.OwnerQueue owner = state.owners.get(queue);
        if (owner != null && --owner.waiting <= 0) {
            state.owners.remove(queue);
            return true;
        }
        return false;
    }

    /** Grants waiting executions while the gate's limits allow, at most {@link #GRANT_BATCH}; returns how many. */
    private static int grantWhile(String gate, GateState state, long nowMs, Reads reads, Effects effects) {
        FlowLimit limit = reads.limit(gate);
        refill(state, limit, nowMs);
        int granted = 0;
        FairTurns<String> turns = null; // taken at the first grant: a record that grants nothing never builds them
        while (state.waiting > 0 && granted < GRANT_BATCH && blocked(gate, state, limit) == null) {
            if (turns == null) {
                turns = reads.turns().of(gate, state);
            }
            String owner = turns.peek();
            if (owner == null) {
                state.waiting = 0; // counts out of step with the queues: they are empty
                break;
            }
            GateState.Waiting head = reads.first(gate, owner);
            if (head == null) {
                turns.remove(owner);
                state.waiting = Math.max(0, state.waiting - state.owners.remove(owner).waiting);
                continue;
            }
            effects.dequeue(gate, head);
            GateState.OwnerQueue queue = state.owners.get(owner);
            if (dequeued(state, owner)) {
                turns.servedLast(owner);
            } else {
                queue.vt = turns.served(owner, 0, 0);
            }
            state.vclock = turns.virtualNow();
            grant(gate, state, head.message(), limit, nowMs, effects);
            granted++;
        }
        return granted;
    }

    private static void grant(String gate, GateState state, FlowMessage message, FlowLimit limit, long nowMs, Effects effects) {
        effects.putSlot(gate, message.executionId(), new GateState.Slot(message.taskId(), message.attempt(), message.owner(), false));
        state.inFlight++;
        state.notStarted++;
        if (limit != null && limit.maxPerSecond() != null) {
            state.tokens -= 1;
        }
        effects.granted(gate, message, nowMs);
    }

    private static void refill(GateState state, FlowLimit limit, long nowMs) {
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

    /** Why the gate grants nothing more now, or null when it may. */
    private static String blocked(String gate, GateState state, FlowLimit limit) {
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

    private static String heldReason(String gate, GateState state, FlowLimit limit) {
        String blocked = blocked(gate, state, limit);
        return blocked != null ? blocked : "held: " + state.waiting + " executions wait at " + gate + " (fair share across owners)";
    }

    /** The queue of an owner's messages ("" for a task without an owner). */
    public static String ownerOf(FlowMessage message) {
        return message.owner() == null ? "" : message.owner();
    }
}
