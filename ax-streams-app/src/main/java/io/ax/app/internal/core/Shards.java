package io.ax.app.internal.core;

import io.ax.schema.AttemptError;
import io.ax.schema.ShardFailurePolicy;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;
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
 * and kept while a slice still needs it ({@link Alongside#keepSharedTimers}).
 *
 * <p>The occurrence's outcome is decided in {@link #settle}, which every saved decision runs ({@link SettleSavedTask}): once
 * a slice is FAILED (for good), the others still pending or in flight are cancelled under {@code shardFailure}
 * CANCEL_OTHERS (a CANCEL signal each, no signal for one held at a gate); once no slice has anything ahead, the
 * occurrence ends: SUCCESS when every slice succeeded, FAILED when one failed, CANCELLED otherwise; one event says so
 * (the occurrence's executionId, {@code shards} without {@code shard}, from RUNNING), and {@code shardsOutcome} keeps it
 * for the task's final state ({@link Liveness#finalOutcome}).
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
     * Fans a new occurrence out: {@code first} (attempt 1, no shard yet) becomes slices 0 to N-1, each dispatched (or
     * held at its gates) on its own, in shard order; slices 1 to N-1 replace {@code task}'s slices (the previous
     * occurrence's, ended). Returns slice 0, which the caller makes the task's execution.
     */
    static StoredExecution fanOut(Step step, StoredTask task, StoredExecution first, TaskState from, String reason) {
        int shards = task.getRequest().getShards();
        String occurrenceId = first.getExecutionId();
        task.setShardsOutcome(null);
        StoredExecution zero = null;
        List<StoredExecution> slices = new ArrayList<>(shards - 1);
        for (int shard = 0; shard < shards; shard++) {
            StoredExecution slice = StoredExecution.newBuilder(first).setExecutionId(sliceId(occurrenceId, shard)).setShard(shard)
                    .build();
            String why = "slice " + shard + "/" + shards + " of " + occurrenceId + (reason == null ? "" : "; " + reason);
            StoredExecution dispatched = Attempts.dispatch(step, task, slice, from, why);
            if (shard == 0) {
                zero = dispatched;
            } else {
                slices.add(dispatched);
            }
        }
        task.setSlices(slices);
        return zero;
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

    /**
     * Decides what the slices make of the occurrence, before {@code task} is stored: cancels the others once one is
     * FAILED (CANCEL_OTHERS), and once none has anything ahead records and announces the occurrence's outcome. Keeps
     * every slice within its bounds. Changes {@code task} in place (the decision's own copy, maybe a view).
     */
    static void settle(Step step, StoredTask task) {
        if (task.getExecution() == null || task.getExecution().getShard() == null) {
            return; // not sharded, or not fanned out yet (the slices decide, not the request: an UPDATE applies from the next occurrence)
        }
        compactAll(task);
        if (task.getShardsOutcome() != null) {
            return;
        }
        List<StoredExecution> all = all(task);
        StoredExecution failed = all.stream().filter(slice -> slice.getState() == TaskState.FAILED).findFirst().orElse(null);
        int shards = all.size();
        if (failed != null && task.getRequest().getShardFailure() == ShardFailurePolicy.CANCEL_OTHERS && anyBusy(task)) {
            String reason = "slice " + failed.getShard() + "/" + shards + " (" + failed.getExecutionId() + ") failed for good:"
                    + " the other slices are cancelled (shardFailure CANCEL_OTHERS)";
            StoredExecution zero = task.getExecution();
            StoredExecution ended = CancelTask.end(step, task, zero, TaskState.CANCELLED, reason);
            if (ended != null) {
                task.setExecution(ended);
            }
            List<StoredExecution> slices = new ArrayList<>(task.getSlices().size());
            for (StoredExecution slice : task.getSlices()) {
                StoredExecution cancelled = CancelTask.end(step, task, slice, TaskState.CANCELLED, reason);
                slices.add(cancelled != null ? cancelled : slice);
            }
            task.setSlices(slices);
            all = all(task);
        }
        if (anyBusy(task)) {
            return;
        }
        long succeeded = all.stream().filter(slice -> slice.getState() == TaskState.SUCCESS).count();
        TaskState outcome = failed != null ? TaskState.FAILED : succeeded == shards ? TaskState.SUCCESS : TaskState.CANCELLED;
        task.setShardsOutcome(outcome.name());
        String reason = switch (outcome) {
            case SUCCESS -> "all " + shards + " slices succeeded";
            case FAILED -> "slice " + failed.getShard() + "/" + shards + " failed for good (" + failed.getExecutionId() + "); "
                    + succeeded + " of " + shards + " slices succeeded";
            default -> succeeded + " of " + shards + " slices succeeded, the others were cancelled";
        };
        step.occurrenceEnded(task, occurrenceId(task.getExecution()), outcome, reason);
    }

    /** Slice 0 (the current execution) and the others, in shard order. */
    public static List<StoredExecution> all(StoredTask task) {
        List<StoredExecution> all = new ArrayList<>(task.getSlices().size() + 1);
        all.add(task.getExecution());
        all.addAll(task.getSlices());
        return all;
    }

    private static void compactAll(StoredTask task) {
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
        return StoredExecution.newBuilder(slice).setErrors(kept).setLastError(cut(slice.getLastError()))
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
