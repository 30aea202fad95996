package io.ax.app.internal.core;

import java.util.List;

/**
 * The rules' read-only view of the flow-control limits in force (topology-docs/FLOW-CONTROL.md): which gates an
 * execution must pass before it is dispatched. Injected into {@link Rules}; the view does no I/O the rules can see
 * (the scheduler backs it with the global {@code ax.limits} store), and answers in bounded time.
 */
@FunctionalInterface
public interface FlowLimits {
    /** No limits: every execution is dispatched as soon as it is due. */
    FlowLimits NONE = (jobType, owner) -> List.of();

    /**
     * The gate keys an execution of {@code jobType} owned by {@code owner} (maybe null) must acquire a slot at, in the
     * order they are acquired: {@code owner:<owner>} first (when the owner, or the default {@code owner:*}, has a limit),
     * then {@code type:<jobType>} (when the job type has one). Empty: ungated, dispatched at once.
     */
    List<String> gatesFor(String jobType, String owner);

    /**
     * The live-task quota of {@code owner} (its own {@code maxLiveTasks}, else the default {@code owner:*}'s), or null:
     * a new task of an owner with one waits for admission at the owner's live gate (topology-docs/FLOW-CONTROL.md).
     */
    default Integer maxLiveTasks(String owner) {
        return null;
    }
}
