package io.ax.app.internal.core;

import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * Executions kept beside a task's current one (a sharded occurrence's slices, {@link Shards}; overlap ALLOW's earlier
 * executions, {@link Alongside}), decided one at a time by the same transition classes: an input that concerns one of
 * them is decided on a <em>view</em> of the task in which that one is current and the others, the real current first,
 * are beside it; the decided view is turned back as its {@link Side} says. The two kinds differ only in the list they
 * keep and in how a decided view is turned back.
 */
final class SideExecutions {
    /**
     * Where a task keeps the executions beside its current one ({@code of}, {@code set}), and how a decided view is
     * turned back ({@code back}).
     */
    record Side(Function<StoredTask, List<StoredExecution>> of, BiConsumer<StoredTask, List<StoredExecution>> set,
                TurnBack back) {
    }

    /** A view decided for the execution {@code executionId}, found at {@code at} beside the current one, turned back. */
    @FunctionalInterface
    interface TurnBack {
        StoredTask apply(StoredTask decided, String executionId, int at);
    }

    private SideExecutions() {
    }

    /**
     * The decision for {@code task}, which has executions beside its current one: {@code route} (a fresh step for each)
     * decides for the current execution unless only executions beside it are concerned, then for each concerned one on
     * its view; their effects in that order, one stored task. Timers two executions share are kept
     * ({@link #keepSharedTimers}).
     */
    static Decision decide(StoredTask task, Input input, Function<StoredTask, Decision> route, Side side) {
        List<String> concerned = new ArrayList<>();
        for (StoredExecution execution : side.of().apply(task)) {
            if (concerns(execution, input)) {
                concerned.add(execution.getExecutionId());
            }
        }
        if (concerned.isEmpty()) {
            return keepSharedTimers(route.apply(task), task);
        }
        List<Effect> effects = new ArrayList<>();
        StoredTask latest = task;
        boolean saved = false;
        if (concerns(task.getExecution(), input)) {
            Decision first = route.apply(copy(latest));
            effects.addAll(first.effects());
            if (first.store() == Decision.Store.SAVE) {
                latest = first.task();
                saved = true;
            }
        }
        for (String executionId : concerned) {
            int at = indexOf(side.of().apply(latest), executionId);
            if (at < 0) {
                continue; // gone meanwhile (a new occurrence fanned out, or it ended)
            }
            Decision decided = route.apply(view(latest, at, side));
            effects.addAll(decided.effects());
            if (decided.store() == Decision.Store.SAVE) {
                latest = side.back().apply(decided.task(), executionId, at);
                saved = true;
            }
        }
        return keepSharedTimers(new Decision(task.getTaskId(), saved ? Decision.Store.SAVE : Decision.Store.UNCHANGED,
                saved ? latest : null, List.copyOf(effects)), task);
    }

    /** Whether {@code input} concerns {@code execution}: its report, its retry record, its timeout or retry timer. */
    static boolean concerns(StoredExecution execution, Input input) {
        if (execution == null) {
            return false;
        }
        if (input instanceof Input.Report report) {
            return execution.getExecutionId().equals(report.report().getExecutionId());
        }
        if (input instanceof Input.RetryLogged retry) {
            return execution.getExecutionId().equals(retry.retry().getExecutionId());
        }
        if (input instanceof Input.Granted grant) {
            return execution.getExecutionId().equals(grant.executionId());
        }
        if (input instanceof Input.TimerFired timer) {
            return switch (timer.kind()) {
                case TIMEOUT -> Objects.equals(execution.getTimeoutAtMs(), timer.dueAtMs());
                case RETRY -> Objects.equals(execution.getRetryAtMs(), timer.dueAtMs());
                default -> false;
            };
        }
        return false;
    }

    /**
     * A timer key is due time, task and kind: two executions whose timeouts (or retries) fall on one millisecond share
     * it, so giving it up for one ({@code UnsetTimer}) would lose it for the other. Each such timer that an execution
     * still in flight after the decision needs is set again.
     */
    static Decision keepSharedTimers(Decision decision, StoredTask before) {
        if (decision.store() == Decision.Store.DELETE) {
            return decision;
        }
        StoredTask after = decision.store() == Decision.Store.SAVE ? decision.task() : before;
        List<StoredExecution> inFlight = new ArrayList<>(after.getAlongside());
        if (FlowControl.isBusy(after.getExecution())) {
            inFlight.add(after.getExecution());
        }
        for (StoredExecution slice : after.getSlices()) { // a sharded task's slices (Shards)
            if (FlowControl.isBusy(slice)) {
                inFlight.add(slice);
            }
        }
        List<Effect> again = new ArrayList<>();
        for (Effect effect : decision.effects()) {
            if (effect instanceof Effect.UnsetTimer unset
                    && (unset.kind() == TimerKind.TIMEOUT || unset.kind() == TimerKind.RETRY)) {
                for (StoredExecution execution : inFlight) {
                    Long dueAtMs = unset.kind() == TimerKind.TIMEOUT ? execution.getTimeoutAtMs() : execution.getRetryAtMs();
                    if (dueAtMs != null && dueAtMs == unset.dueAtMs()) {
                        again.add(new Effect.SetTimer(unset.taskId(), dueAtMs, after.getRequest().getPriority(), unset.kind()));
                        break;
                    }
                }
            }
        }
        if (again.isEmpty()) {
            return decision;
        }
        List<Effect> effects = new ArrayList<>(decision.effects());
        effects.addAll(again);
        return new Decision(decision.taskId(), decision.store(), decision.task(), List.copyOf(effects));
    }

    static StoredTask copy(StoredTask task) {
        return StoredTask.newBuilder(task).build(); // a deep copy: a decision may change its task in place
    }

    private static int indexOf(List<StoredExecution> executions, String executionId) {
        for (int i = 0; i < executions.size(); i++) {
            if (executions.get(i).getExecutionId().equals(executionId)) {
                return i;
            }
        }
        return -1;
    }

    /** The task as the rules see it for the execution at {@code at} beside: that one current, the real current first beside. */
    private static StoredTask view(StoredTask task, int at, Side side) {
        StoredTask view = copy(task);
        List<StoredExecution> others = new ArrayList<>(side.of().apply(view));
        StoredExecution decided = others.remove(at);
        others.add(0, view.getExecution());
        view.setExecution(decided);
        side.set().accept(view, others);
        return view;
    }
}
