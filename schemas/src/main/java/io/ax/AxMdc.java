package io.ax;

/**
 * The SLF4J MDC keys ax sets on every line it logs about one execution: the scheduler while it applies a decision for
 * the task, the worker while the execution runs (handler included). The same keys on both sides, so one grep of the
 * executionId follows it through the scheduler's and the workers' logs; put {@code %X{ax.executionId}} in a log pattern.
 */
public final class AxMdc {
    public static final String TASK_ID = "ax.taskId";
    public static final String EXECUTION_ID = "ax.executionId";

    private AxMdc() {
    }
}
