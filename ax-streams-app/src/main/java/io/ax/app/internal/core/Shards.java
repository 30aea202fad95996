package io.ax.app.internal.core;

import io.ax.schema.AttemptError;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import io.ax.validation.Quote;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;

/**
 * Sharded tasks ({@code shards} N > 1, topology-docs/WORKFLOWS.md): each occurrence runs N slices, each its own
 * execution (executionId {@code <occurrence's id>-s<i>}, its index in {@code StoredExecution.shard}). Slice 0 is the
 * task's current execution, slices 1 to N-1 are {@code StoredTask.slices}; a slice that ends stays there with its
 * outcome until the next occurrence fans out.
 *
 * <p>Each slice is followed exactly as an unsharded execution is, by the same transition classes: an input that
 * concerns a slice (a report, a retry record or a flow-control grant with its executionId, its TIMEOUT or RETRY timer
 * by due time) is decided on a <em>view</em> of the task in which that slice is current and the others are its slices;
 * the result is turned back (slice 0 current again, the rest in shard order), as {@link Alongside} does for overlap
 * ALLOW. A timer due at one millisecond for several slices is one timer key: it is decided for each slice it matches,
 * and kept while a slice still needs it ({@link SideExecutions#keepSharedTimers}).
 *
 * <p>An occurrence fans out where it is dispatched ({@link DispatchOccurrence}). Its outcome is decided by
 * {@link SettleSavedTask}, which every saved decision runs: once a slice is FAILED (for good), the others still pending
 * or in flight are cancelled under {@code shardFailure} CANCEL_OTHERS (a CANCEL signal each, no signal for one held at
 * a gate); once no slice has anything ahead, the occurrence ends: SUCCESS when every slice succeeded, FAILED when one
 * failed, CANCELLED otherwise; one event says so (the occurrence's executionId, {@code shards} without {@code shard},
 * from RUNNING), and {@code shardsOutcome} keeps it for the task's final state ({@link Liveness#finalOutcome}).
 *
 * <p>This class only describes slices (their ids, views, bounds) and calls no transition: the classes that dispatch,
 * cancel and settle call it, so the calls go one way.
 *
 * <p>Bounded state: a slice keeps its last error only, and messages and progress checkpoints cut short
 * ({@link #compact}), so the stored task grows by at most {@code ScheduleValidator.SLICE_BYTES} per slice, which the
 * validator counts against the payload limit.
 */
public final class Shards {
    /** Longest failure message a slice keeps (its last error; the dead letter has the full one). */
    static final int MAX_SLICE_MESSAGE_CHARS = 256;
    /** Longest progress checkpoint a slice keeps; a longer one is not kept (the next attempt starts without it). */
    static final int MAX_SLICE_PROGRESS_CHARS = 256;
    private static final String SUFFIX = "-s";

    private Shards() {
    }

    public static boolean isSharded(StoredTask task) {
        return task.getRequest().getShards() > 1;
    }

    /** Slice {@code shard}'s executionId: the occurrence's own, with the index. */
    static String sliceId(String occurrenceId, int shard) {
        return occurrenceId + SUFFIX + shard;
    }

    /** The occurrence's executionId of a slice's. */
    static String occurrenceId(StoredExecution slice) {
        String id = slice.getExecutionId();
        int at = id.lastIndexOf(SUFFIX);
        return slice.getShard() == null || at < 0 ? id : id.substring(0, at);
    }

    /** Whether the current execution or a slice is in flight or held at a gate. */
    static boolean anyBusy(StoredTask task) {
        return firstBusy(task) != null;
    }

    /** The first execution of the current occurrence (slice 0 first) in flight or held, or null. */
    static StoredExecution firstBusy(StoredTask task) {
        if (FlowControl.isBusy(task.getExecution())) {
            return task.getExecution();
        }
        for (StoredExecution slice : task.getSlices()) {
            if (FlowControl.isBusy(slice)) {
                return slice;
            }
        }
        return null;
    }

    /** Whether a slice beside the current execution is in flight or held. */
    static boolean anySliceBusy(StoredTask task) {
        for (StoredExecution slice : task.getSlices()) {
            if (FlowControl.isBusy(slice)) {
                return true;
            }
        }
        return false;
    }

    /**
     * A new occurrence's slices, not yet dispatched: {@code first} (attempt 1, no shard yet) as slices 0 to N-1, in shard
     * order. The caller dispatches each ({@link DispatchOccurrence}) and hands them back to {@link #fannedOut}.
     */
    static List<StoredExecution> slicesOf(StoredTask task, StoredExecution first) {
        int shards = task.getRequest().getShards();
        String occurrenceId = first.getExecutionId();
        List<StoredExecution> slices = new ArrayList<>(shards);
        for (int shard = 0; shard < shards; shard++) {
            slices.add(Executions.copyOf(first).setExecutionId(sliceId(occurrenceId, shard)).setShard(shard).build());
        }
        return slices;
    }

    /** The reason a slice's dispatch gives: which slice of which occurrence, then {@code reason} (may be null). */
    static String sliceReason(StoredExecution slice, int shards, String reason) {
        return "slice " + slice.getShard() + "/" + shards + " of " + occurrenceId(slice) + (reason == null ? "" : "; " + reason);
    }

    /**
     * The occurrence fanned out: slices 1 to N-1 ({@code dispatched}, dispatched or held, in shard order) replace
     * {@code task}'s slices (the previous occurrence's, ended). Returns slice 0, which the caller makes the task's
     * execution.
     */
    static StoredExecution fannedOut(StoredTask task, List<StoredExecution> dispatched) {
        task.setSlices(new ArrayList<>(dispatched.subList(1, dispatched.size())));
        return dispatched.get(0);
    }

    /**
     * The decision for a sharded task with slices: {@code route} decides for the current execution (slice 0) unless
     * only other slices are concerned, then for each concerned one on its view; their effects in that order, one stored
     * task.
     */
    static Decision decide(StoredTask task, Input input, Function<StoredTask, Decision> route) {
        return SideExecutions.decide(task, input, route, SLICES);
    }

    /** The slices beside slice 0; a decided view turned back by {@link #back}. */
    private static final SideExecutions.Side SLICES = new SideExecutions.Side(StoredTask::getSlices, StoredTask::setSlices,
            (decided, executionId, at) -> back(decided, executionId));

    /** Slice 0 (the current execution) and the others, in shard order. */
    public static List<StoredExecution> all(StoredTask task) {
        List<StoredExecution> all = new ArrayList<>(task.getSlices().size() + 1);
        all.add(task.getExecution());
        all.addAll(task.getSlices());
        return all;
    }

    /** Every slice within its bounds ({@link #compact}). */
    static void compactAll(StoredTask task) {
        task.setExecution(compact(task.getExecution()));
        List<StoredExecution> slices = new ArrayList<>(task.getSlices().size());
        task.getSlices().forEach(slice -> slices.add(compact(slice)));
        task.setSlices(slices);
    }

    /** A slice as stored: its last error only, messages cut to {@link #MAX_SLICE_MESSAGE_CHARS}, a short checkpoint. */
    static StoredExecution compact(StoredExecution slice) {
        List<AttemptError> errors = slice.getErrors();
        boolean small = errors.size() <= 1 && (errors.isEmpty() || short_(errors.get(0).getMessage(), MAX_SLICE_MESSAGE_CHARS))
                && short_(slice.getLastError(), MAX_SLICE_MESSAGE_CHARS) && short_(slice.getProgress(), MAX_SLICE_PROGRESS_CHARS);
        if (small) {
            return slice;
        }
        List<AttemptError> kept = new ArrayList<>(1);
        if (!errors.isEmpty()) {
            AttemptError last = errors.get(errors.size() - 1);
            kept.add(AttemptError.newBuilder(last).setMessage(cut(last.getMessage())).build());
        }
        return Executions.copyOf(slice).setErrors(kept).setLastError(cut(slice.getLastError()))
                .setProgress(short_(slice.getProgress(), MAX_SLICE_PROGRESS_CHARS) ? slice.getProgress() : null).build();
    }

    private static boolean short_(String text, int maxChars) {
        return text == null || text.length() <= maxChars;
    }

    private static String cut(String text) {
        return text == null ? null : Quote.truncate(text, MAX_SLICE_MESSAGE_CHARS);
    }



    /** The decided view turned back: slice 0 current, the others in shard order; as is when a new occurrence fanned out. */
    private static StoredTask back(StoredTask decided, String executionId) {
        if (decided.getExecution() == null || !decided.getExecution().getExecutionId().equals(executionId)) {
            return decided;
        }
        List<StoredExecution> all = all(decided);
        all.sort(Comparator.comparingInt(StoredExecution::getShard));
        decided.setExecution(all.remove(0));
        decided.setSlices(all);
        return decided;
    }
}
