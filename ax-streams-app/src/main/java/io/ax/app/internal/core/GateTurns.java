package io.ax.app.internal.core;

import io.ax.fair.FairTurns;
import java.util.HashMap;
import java.util.Map;
import java.util.function.ToIntFunction;

/**
 * The fair share of the gates of one stream task ({@link FairTurns}: a turn of 1 ÷ the owner's weight, priority no part
 * of it, since it orders each owner's own queue), kept in memory between records so that choosing the next owner
 * costs O(log n) in the owners waiting, not a scan of them.
 *
 * <p>The gate's stored record ({@link GateState}: {@code vclock}, each owner's {@code vt}) stays the truth: a
 * gate's turns are built from it when first needed (O(n log n)), changed with it by the rules ({@link #joined},
 * {@link #left}, and the grants' {@code served}), and stamped with the record's counters when the gate writes it. At
 * the next record they are used only if the stored record still has those counters ({@code seq}, which every enqueue
 * raises; {@code waiting}, which every dequeue lowers; {@code vclock}; the owners' count), else built again: a record
 * rolled back by an aborted transaction is never read through turns that went past it. Owners are restored in the
 * order the record lists them, which is the order they joined, so built or kept, a tie goes to the same owner: the one
 * that started waiting first. Not thread-safe: one per stream task.
 */
public final class GateTurns {
    private static final class Kept {
        final FairTurns<String> turns;
        long seq = -1;
        long waiting;
        double vclock;
        int owners;

        Kept(FairTurns<String> turns) {
            this.turns = turns;
        }

        boolean matches(GateState state) {
            return seq == state.seq && waiting == state.waiting && vclock == state.vclock && owners == state.owners.size();
        }
    }

    private final Map<String, Kept> byGate = new HashMap<>();
    private final ToIntFunction<String> weights;

    /** @param weights an owner's weight at a gate (the overflow queue's is 1) */
    public GateTurns(ToIntFunction<String> weights) {
        this.weights = owner -> owner.equals(GateState.OVERFLOW) ? 1 : weights.applyAsInt(owner);
    }

    /** Before a record or punctuation changes {@code gate}: forgets its turns if they are not those of its stored record. */
    public void begin(String gate, GateState state) {
        Kept kept = byGate.get(gate);
        if (kept != null && !kept.matches(state)) {
            byGate.remove(gate);
        }
    }

    /** The turns of {@code gate} as its record {@code state} now is (built from it if not kept). */
    public FairTurns<String> of(String gate, GateState state) {
        return byGate.computeIfAbsent(gate, g -> new Kept(restore(state, weights))).turns;
    }

    /** {@code owner} started waiting at {@code gate} (it joins at the gate's virtual time, as its record says). */
    public void joined(String gate, String owner) {
        Kept kept = byGate.get(gate);
        if (kept != null) {
            kept.turns.offer(owner, 0, 0);
        }
    }

    /** {@code owner} has nothing more waiting at {@code gate}, without a grant. */
    public void left(String gate, String owner) {
        Kept kept = byGate.get(gate);
        if (kept != null) {
            kept.turns.remove(owner);
        }
    }

    /** {@code gate}'s record is written as {@code state}: its turns are those of this record (none when nothing waits). */
    public void end(String gate, GateState state) {
        Kept kept = byGate.get(gate);
        if (kept == null) {
            return;
        }
        if (state.waiting <= 0) {
            byGate.remove(gate);
            return;
        }
        kept.seq = state.seq;
        kept.waiting = state.waiting;
        kept.vclock = state.vclock;
        kept.owners = state.owners.size();
    }

    /** Forgets every gate's turns (the stream task starts or closes). */
    public void clear() {
        byGate.clear();
    }

    /** A gate's turns built from its record: its virtual time and the owners waiting, in the record's order. */
    public static FairTurns<String> restore(GateState state, ToIntFunction<String> weights) {
        FairTurns<String> turns = FairTurns.weighted(1, 0, weights);
        turns.restoreVirtualNow(state.vclock);
        state.owners.forEach((owner, queue) -> {
            if (queue.waiting > 0) {
                turns.restore(owner, queue.vt, 0, 0);
            }
        });
        return turns;
    }
}
