package io.ax.validation;

import io.ax.InvalidRequestException;
import io.ax.schema.AdoptRequest;
import io.ax.schema.AttemptError;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;
import java.util.EnumSet;
import java.util.Set;

/**
 * The rules an {@link AdoptRequest} must meet before a scheduler takes the task it carries. Anyone who can write to
 * the requests topic can write one, so the stored task inside is held to every bound a schedule request, a report
 * and a retry record are held to, and to the shape the scheduler itself stores: an execution state a stored task can
 * have, the timers that state needs (a task in flight must have a timer that will decide it) and none it cannot have.
 */
public final class AdoptValidator {
    /** Executions a stored task keeps beside its current one (overlap ALLOW: 10 in flight at once). */
    public static final int MAX_ALONGSIDE = 9;
    /** Execution states that are in flight. */
    private static final java.util.Set<TaskState> IN_FLIGHT = java.util.EnumSet.of(TaskState.TRIGGERED, TaskState.RUNNING,
            TaskState.RETRY_WAITING);

    /** Error history a stored execution keeps (the scheduler keeps the last 20). */
    public static final int MAX_ERRORS = 20;
    /** Longest application id or topic name an adopt may name (Kafka's own limit is 249). */
    public static final int MAX_ORIGIN_CHARS = 249;

    /** The execution states a stored task can hold (PENDING and TIMED_OUT are passed through within one step). */
    private static final Set<TaskState> STORED_STATES = EnumSet.of(TaskState.TRIGGERED, TaskState.RUNNING,
            TaskState.RETRY_WAITING, TaskState.SUCCESS, TaskState.FAILED, TaskState.CANCELLED);
    /** States whose execution waits for a worker and so has its timeout timer armed. */
    private static final Set<TaskState> TIMED_OUT_BY_TIMER = EnumSet.of(TaskState.TRIGGERED, TaskState.RUNNING);

    private final ScheduleValidator requests;

    public AdoptValidator(ScheduleLimits limits) {
        this.requests = new ScheduleValidator(limits);
    }

    /**
     * @param taskId the record's key
     * @throws InvalidRequestException naming the first rule the adopt breaks
     */
    public void validate(String taskId, AdoptRequest adopt) {
        requireOrigin("fromApplicationId", adopt.getFromApplicationId());
        requireOrigin("fromTopic", adopt.getFromTopic());
        if (adopt.getFromPartition() < 0) {
            throw new InvalidRequestException("fromPartition", "fromPartition must be >= 0: " + adopt.getFromPartition());
        }
        ScheduleValidator.requireInstant("migratedAtMs", adopt.getMigratedAtMs());
        StoredTask task = adopt.getTask();
        if (!taskId.equals(task.getTaskId())) {
            throw new InvalidRequestException("task.taskId", "the adopted task's taskId " + Quote.of(task.getTaskId())
                    + " is not the record key " + Quote.of(taskId));
        }
        requests.validate(taskId, task.getRequest());
        if (task.getIncarnation() < 0) {
            throw new InvalidRequestException("task.incarnation", "incarnation must be >= 0: " + task.getIncarnation());
        }
        if (task.getOccurrences() < 0) {
            throw new InvalidRequestException("task.occurrences", "occurrences must be >= 0: " + task.getOccurrences());
        }
        ScheduleValidator.requireInstant("task.acceptedAtMs", task.getAcceptedAtMs());
        requireInstantOrNull("task.nextDueAtMs", task.getNextDueAtMs());
        requireInstantOrNull("task.finishedAtMs", task.getFinishedAtMs());
        requireInstantOrNull("task.purgeAtMs", task.getPurgeAtMs());
        if (task.getCancelled() && task.getNextDueAtMs() != null) {
            throw new InvalidRequestException("task.nextDueAtMs", "a cancelled task has no next occurrence");
        }
        if (task.getCalendarSkips() != null) {
            validateCalendarSkips(task.getCalendarSkips());
        }
        if (task.getExecution() != null) {
            validateExecution(task, task.getExecution());
        } else if (!task.getCancelled() && task.getNextDueAtMs() == null && task.getWaitTimeoutAtMs() == null) {
            throw new InvalidRequestException("task.nextDueAtMs", "a task that was never cancelled and never fired must"
                    + " have its next occurrence (nextDueAtMs) or wait for other tasks (waitTimeoutAtMs)");
        }
        requireInstantOrNull("task.waitTimeoutAtMs", task.getWaitTimeoutAtMs());
        boolean periodic = task.getRequest().getTrigger() instanceof io.ax.schema.IntervalTrigger
                || task.getRequest().getTrigger() instanceof io.ax.schema.CronTrigger;
        if (periodic && task.getWaitTimeoutAtMs() != null && (task.getRequest().getAfter().isEmpty()
                || task.getNextDueAtMs() == null || task.getCancelled())) {
            // A periodic task's occurrence that waits for its upstreams (topology-docs/WORKFLOWS.md): nextDueAtMs is it.
            throw new InvalidRequestException("task.waitTimeoutAtMs", "a periodic task's occurrence that waits (waitTimeoutAtMs) has"
                    + " tasks to wait for (after), its occurrence (nextDueAtMs) and no cancel");
        }
        if (!periodic && task.getWaitTimeoutAtMs() != null && (task.getRequest().getAfter().isEmpty() || task.getNextDueAtMs() != null
                || task.getExecution() != null || task.getCancelled())) {
            throw new InvalidRequestException("task.waitTimeoutAtMs", "a waiting task (waitTimeoutAtMs) has tasks to wait for"
                    + " (after) and no occurrence, execution or cancel yet");
        }
        if (!waitedForAll(task, task.getUpstreamNominalAtMs().keySet())) {
            throw new InvalidRequestException("task.upstreamNominalAtMs", "an upstream occurrence names a task the request does"
                    + " not wait for (after)");
        }
        java.util.Set<String> waitedFor = new java.util.HashSet<>();
        task.getRequest().getAfter().forEach(dependency -> waitedFor.add(dependency.getTaskId()));
        if (!waitedFor.containsAll(task.getDependencyOutcomes().keySet())) {
            throw new InvalidRequestException("task.dependencyOutcomes", "a dependency outcome names a task the request does"
                    + " not wait for (after)");
        }
        if (!java.util.List.of("SUCCESS", "FAILED", "CANCELLED", "PURGED", "SKIPPED").containsAll(task.getDependencyOutcomes().values())) {
            throw new InvalidRequestException("task.dependencyOutcomes", "a dependency outcome must be SUCCESS, FAILED,"
                    + " CANCELLED, PURGED or SKIPPED (an occurrence of a periodic task's upstream)");
        }
        validateAlongside(task);
        validateSlices(task);
    }

    private static boolean waitedForAll(StoredTask task, java.util.Collection<String> taskIds) {
        java.util.Set<String> waitedFor = new java.util.HashSet<>();
        task.getRequest().getAfter().forEach(dependency -> waitedFor.add(dependency.getTaskId()));
        return waitedFor.containsAll(taskIds);
    }

    /**
     * Sharded tasks: the slices of the current occurrence, at most shards - 1 beside the current execution (slice 0),
     * each a stored execution with its shard index. A sharded task is adopted only between occurrences: a slice pending,
     * in flight or held by flow control is refused, as carrying a fan-out in flight across deployments is not supported.
     */
    private static void validateSlices(StoredTask task) {
        int shards = task.getRequest().getShards();
        if (task.getSlices().size() > shards - 1) {
            throw new InvalidRequestException("task.slices", "a task of " + shards + " shard(s) keeps at most " + (shards - 1)
                    + " slices beside its execution: " + task.getSlices().size());
        }
        java.util.List<StoredExecution> all = new java.util.ArrayList<>(task.getSlices());
        if (task.getExecution() != null) {
            all.add(0, task.getExecution());
        }
        for (StoredExecution slice : all) {
            if (slice != task.getExecution()) {
                validateExecution(task, slice);
            }
            Integer shard = slice.getShard();
            if (shards == 1 ? shard != null : shard == null || shard < 0 || shard >= shards) {
                throw new InvalidRequestException("task.slices", "execution " + Quote.of(slice.getExecutionId()) + " has shard "
                        + shard + ", not one of the task's " + shards + " shard(s)");
            }
            if (shards > 1 && (IN_FLIGHT.contains(slice.getState()) || slice.getHeldSinceMs() != null)) {
                throw new InvalidRequestException("task.slices", "a sharded task is adopted only between occurrences: slice "
                        + shard + "/" + shards + " is " + slice.getState() + (slice.getHeldSinceMs() != null ? " (held by flow control)" : "")
                        + "; let the occurrence end, or cancel it, before migrating");
            }
        }
    }

    /** Overlap ALLOW: executions in flight beside the current one, at most 9, each in flight, none the current one. */
    private static void validateAlongside(StoredTask task) {
        if (task.getAlongside().isEmpty()) {
            return;
        }
        if (task.getAlongside().size() > MAX_ALONGSIDE) {
            throw new InvalidRequestException("task.alongside", "more than " + MAX_ALONGSIDE + " executions alongside: "
                    + task.getAlongside().size());
        }
        if (task.getExecution() == null || task.getCancelled()) {
            throw new InvalidRequestException("task.alongside", "executions alongside need a current execution and a task"
                    + " that was not cancelled");
        }
        java.util.Set<String> ids = new java.util.HashSet<>();
        ids.add(task.getExecution().getExecutionId());
        for (StoredExecution beside : task.getAlongside()) {
            validateExecution(task, beside);
            if (!IN_FLIGHT.contains(beside.getState()) && beside.getHeldSinceMs() == null) {
                throw new InvalidRequestException("task.alongside", "an execution alongside is in flight (or held by flow"
                        + " control), never " + beside.getState());
            }
            if (!ids.add(beside.getExecutionId())) {
                throw new InvalidRequestException("task.alongside", "executionId " + Quote.of(beside.getExecutionId())
                        + " appears twice");
            }
        }
    }

    /** The run of excluded occurrences not yet reported: bounded like everything else it will write. */
    private static void validateCalendarSkips(io.ax.schema.CalendarSkips skips) {
        CalendarValidator.validateName(skips.getCalendar());
        ScheduleValidator.requireLength("task.calendarSkips.reason", skips.getReason(), ScheduleValidator.MAX_REASON_CHARS);
        if (skips.getReason() == null) {
            throw new InvalidRequestException("task.calendarSkips.reason", "missing task.calendarSkips.reason");
        }
        if (skips.getCount() < 0) {
            throw new InvalidRequestException("task.calendarSkips.count", "count must be >= 0: " + skips.getCount());
        }
        if (skips.getCount() > 0) {
            if (skips.getFirstDueAtMs() == null || skips.getLastDueAtMs() == null) {
                throw new InvalidRequestException("task.calendarSkips", "a counted run has its first and last due times");
            }
            ScheduleValidator.requireInstant("task.calendarSkips.firstDueAtMs", skips.getFirstDueAtMs());
            ScheduleValidator.requireInstant("task.calendarSkips.lastDueAtMs", skips.getLastDueAtMs());
        }
    }

    private static void validateExecution(StoredTask task, StoredExecution execution) {
        ScheduleValidator.requireLength("task.execution.executionId", execution.getExecutionId(), ScheduleValidator.MAX_ID_CHARS);
        if (execution.getExecutionId().isEmpty()) {
            throw new InvalidRequestException("task.execution.executionId", "missing task.execution.executionId");
        }
        int maxAttempt = task.getRequest().getMaxRetries() + 1;
        if (execution.getAttempt() < 1 || execution.getAttempt() > maxAttempt) {
            throw new InvalidRequestException("task.execution.attempt", "attempt must be between 1 and maxRetries + 1 ("
                    + maxAttempt + "): " + execution.getAttempt());
        }
        TaskState state = execution.getState();
        if (!STORED_STATES.contains(state)) {
            throw new InvalidRequestException("task.execution.state", "a stored execution is never " + state
                    + "; expected one of " + STORED_STATES);
        }
        if (task.getCancelled() && !(state == TaskState.CANCELLED || state == TaskState.SUCCESS || state == TaskState.FAILED)) {
            throw new InvalidRequestException("task.execution.state", "a cancelled task's execution cannot still be " + state);
        }
        ScheduleValidator.requireInstant("task.execution.dueAtMs", execution.getDueAtMs());
        ScheduleValidator.requireInstant("task.execution.firedAtMs", execution.getFiredAtMs());
        ScheduleValidator.requireInstant("task.execution.lastSignMs", execution.getLastSignMs());
        ScheduleValidator.requireLength("task.execution.lastError", execution.getLastError(), ScheduleValidator.MAX_MESSAGE_CHARS);
        ScheduleValidator.requireLength("task.execution.progress", execution.getProgress(), ScheduleValidator.MAX_PROGRESS_CHARS);
        ScheduleValidator.requireLength("task.execution.workerId", execution.getWorkerId(), ScheduleValidator.MAX_ID_CHARS);
        if (execution.getErrors().size() > MAX_ERRORS) {
            throw new InvalidRequestException("task.execution.errors", "more than " + MAX_ERRORS + " errors: " + execution.getErrors().size());
        }
        for (AttemptError error : execution.getErrors()) {
            if (error.getAttempt() < 1 || error.getAttempt() > maxAttempt) {
                throw new InvalidRequestException("task.execution.errors", "an error's attempt must be between 1 and "
                        + maxAttempt + ": " + error.getAttempt());
            }
            ScheduleValidator.requireInstant("task.execution.errors.atMs", error.getAtMs());
            ScheduleValidator.requireLength("task.execution.errors.message", error.getMessage(), ScheduleValidator.MAX_MESSAGE_CHARS);
        }
        boolean waitsForWorker = TIMED_OUT_BY_TIMER.contains(state);
        if (waitsForWorker != (execution.getTimeoutAtMs() != null)) {
            throw new InvalidRequestException("task.execution.timeoutAtMs", waitsForWorker
                    ? "an execution in " + state + " must carry its timeout (timeoutAtMs): no timer would ever decide it"
                    : "an execution in " + state + " has no timeout armed, but timeoutAtMs is set");
        }
        requireInstantOrNull("task.execution.timeoutAtMs", execution.getTimeoutAtMs());
        if (execution.getRetryAtMs() != null && state != TaskState.RETRY_WAITING) {
            throw new InvalidRequestException("task.execution.retryAtMs", "only an execution in RETRY_WAITING has a retry time; this one is "
                    + state);
        }
        requireInstantOrNull("task.execution.retryAtMs", execution.getRetryAtMs());
    }

    private static void requireOrigin(String field, String value) {
        if (value == null || value.isEmpty()) {
            throw new InvalidRequestException(field, "missing " + field);
        }
        ScheduleValidator.requireLength(field, value, MAX_ORIGIN_CHARS);
        if (value.chars().anyMatch(Character::isISOControl)) {
            throw new InvalidRequestException(field, field + " contains control characters");
        }
    }

    private static void requireInstantOrNull(String field, Long ms) {
        if (ms != null) {
            ScheduleValidator.requireInstant(field, ms);
        }
    }
}
