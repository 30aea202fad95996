package io.ax.app.internal.core;

import java.util.Map;
import java.util.TreeMap;

/**
 * A flow gate's record, as the gates' store keeps it (topology-docs/FLOW-CONTROL.md): its counts, its token bucket and
 * the owners waiting at it with their virtual times. Public fields: they are its JSON form, unchanged since fair share
 * began (a gate stored by an earlier version reads as is). Mutable: {@link GateRules} changes it in place and hands
 * it over to be written when it changed. Not thread-safe.
 */
public final class GateState {
    /**
     * The one queue shared by the owners that start waiting while {@link GateRules#MAX_OWNERS} others already wait at the
     * gate: it bounds the gate's record (one entry per queue), and so its changelog record, whatever the owner count.
     * Here, with the record whose queues it names, so that {@link GateRules} and {@link GateTurns} share it without using
     * each other both ways.
     */
    public static final String OVERFLOW = "\u0001overflow";

    public long inFlight;
    public long notStarted;
    /** Token bucket for maxPerSecond; negative: full at the next refill. */
    public double tokens = -1;
    public long refillMs;
    public long seq;
    public long waiting;
    /** Virtual time of the last grant (start-time fair queueing): an owner that starts waiting starts from it. */
    public double vclock;
    /** Owners with executions waiting, in the order they started waiting: their virtual time and queue length. */
    public Map<String, OwnerQueue> owners = new TreeMap<>();

    /** One owner's place in the fair share. */
    public static final class OwnerQueue {
        public double vt;
        public long waiting;
    }

    /** An execution holding a slot of the gate (its JSON form: these names). */
    public record Slot(String taskId, int attempt, String owner, boolean started) {
    }

    /** An ACQUIRE waiting at the gate: where the store keeps it ({@code key}, the gate's own), its queue, the message. */
    public record Waiting(String key, String queue, FlowMessage message) {
    }
}
