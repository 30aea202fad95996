package io.ax.validation;

import io.ax.InvalidRequestException;
import io.ax.schema.AtTrigger;
import io.ax.schema.CronTrigger;
import io.ax.schema.DelayTrigger;
import io.ax.schema.IntervalTrigger;
import io.ax.schema.MisfirePolicy;
import io.ax.schema.OverlapPolicy;
import io.ax.schema.ScheduleRequest;
import io.ax.trigger.CronSchedules;
import java.time.Instant;

/** The rules every {@link ScheduleRequest} must meet, checked by the client before sending and by the scheduler on receipt. */
public final class ScheduleValidator {
    public static final int MAX_TASK_ID_CHARS = 256;
    public static final int MAX_OWNER_CHARS = 256;
    public static final int MAX_RETRIES = 100;
    public static final int MAX_BACKOFF_INTERVALS = 100;
    /** Longest progress checkpoint a report may carry. */
    public static final int MAX_PROGRESS_CHARS = 4096;
    /** Ten years: further than any sane schedule, near enough to keep arithmetic far from overflow. */
    public static final long MAX_DELAY_MS = 10L * 366 * 24 * 3600 * 1000;
    /** The latest instant accepted anywhere: 9999-12-31T23:59:59.999Z, far from long overflow in any arithmetic. */
    public static final long MAX_INSTANT_MS = 253_402_300_799_999L;
    /** Longest cancel or replay reason. */
    public static final int MAX_REASON_CHARS = 1024;
    /** Longest failure message kept from a report; a longer one is truncated (a stack trace must not lose the report). */
    public static final int MAX_MESSAGE_CHARS = 4096;
    /** Longest executionId or workerId a report or retry record may carry. */
    public static final int MAX_ID_CHARS = 256;
    public static final int MAX_CRON_CHARS = 256;
    public static final int MAX_ZONE_CHARS = 64;
    /** Largest {@code occurrenceJitterMs}: one hour. */
    public static final long MAX_OCCURRENCE_JITTER_MS = 3_600_000L;
    /** Largest {@code maxCatchUp} (misfire FIRE_ALL). */
    public static final int MAX_CATCH_UP = 10_000;
    /**
     * Most tasks one request may wait for ({@code after}). A larger fan-in goes through intermediate tasks (see
     * topology-docs/WORKFLOWS.md): each outcome a waiting task records rewrites its stored task, so the bound keeps that
     * record (and the work per outcome) small.
     */
    public static final int MAX_DEPENDENCIES = 100;
    /**
     * Most characters the taskIds of one request's {@code after} may have together: the stored task keeps them twice
     * (the request and the outcomes reported), within the room every stored task has beside its payload.
     */
    public static final int MAX_DEPENDENCY_ID_CHARS = 4096;
    /**
     * Most slices one occurrence of a sharded task runs ({@code shards}): every slice is an execution kept in the stored
     * task until the occurrence's outcome is decided, so the bound keeps that record bounded (see {@link #SLICE_BYTES}).
     */
    public static final int MAX_SHARDS = 64;
    /**
     * The room each slice beyond the first takes in the stored task, at most (a slice keeps its last error and a
     * progress checkpoint cut short, see topology-docs/WORKFLOWS.md): it counts against the payload limit, so a sharded
     * task's record stays within the room every stored task has (payload limit plus the fixed room for other fields).
     */
    public static final int SLICE_BYTES = 4096;

    private final ScheduleLimits limits;

    public ScheduleValidator(ScheduleLimits limits) {
        this.limits = limits;
    }

    /** @throws InvalidRequestException naming the first rule the task id breaks */
    public static void validateTaskId(String taskId) {
        if (taskId == null || taskId.isEmpty()) {
            throw new InvalidRequestException("taskId", "missing taskId (the record key)");
        }
        if (taskId.length() > MAX_TASK_ID_CHARS) {
            throw new InvalidRequestException("taskId", "taskId is longer than " + MAX_TASK_ID_CHARS + " chars: " + taskId.length());
        }
        for (int i = 0; i < taskId.length(); i++) { // every input's key: no stream, no lambda
            if (Character.isISOControl(taskId.charAt(i))) {
                throw new InvalidRequestException("taskId", "taskId contains control characters");
            }
        }
    }

    /**
     * Whether {@code jobType} is one: 1-128 chars of A-Z a-z 0-9 . _ : - (a request's and a worker announcement's lane),
     * checked char by char: the regex {@code [A-Za-z0-9._:-]{1,128}}'s matcher was a twentieth of an accepted request's
     * rules (ScheduleValidatorTest holds the two equal).
     */
    public static boolean isJobType(String jobType) {
        if (jobType == null || jobType.isEmpty() || jobType.length() > 128) {
            return false;
        }
        for (int i = 0; i < jobType.length(); i++) {
            char c = jobType.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-')) {
                return false;
            }
        }
        return true;
    }

    /** @throws InvalidRequestException naming the first rule the request breaks */
    public void validate(String taskId, ScheduleRequest request) {
        validateTaskId(taskId);
        if (!isJobType(request.getJobType())) {
            throw new InvalidRequestException("jobType", "jobType must be 1-128 chars of A-Z a-z 0-9 . _ : -: " + Quote.of(request.getJobType()));
        }
        validateTrigger(request.getTrigger());
        validatePeriodic(request);
        if (request.getPayload() != null && request.getPayload().remaining() > limits.maxPayloadBytes()) {
            throw new InvalidRequestException("payload", "payload is " + request.getPayload().remaining()
                    + " bytes, more than the limit of " + limits.maxPayloadBytes());
        }
        if (request.getPriority() < 0 || request.getPriority() > 9) {
            throw new InvalidRequestException("priority", "priority must be 0-9: " + request.getPriority());
        }
        if (request.getOwner() != null && request.getOwner().length() > MAX_OWNER_CHARS) {
            throw new InvalidRequestException("owner", "owner is longer than " + MAX_OWNER_CHARS + " chars");
        }
        if (request.getTimeoutMs() != null && (request.getTimeoutMs() < 1 || request.getTimeoutMs() > MAX_DELAY_MS)) {
            throw new InvalidRequestException("timeoutMs", "timeoutMs must be between 1 and " + MAX_DELAY_MS + ": " + request.getTimeoutMs());
        }
        validateTimeoutKind("scheduleToStartTimeoutMs", request.getScheduleToStartTimeoutMs());
        validateTimeoutKind("startToCloseTimeoutMs", request.getStartToCloseTimeoutMs());
        validateTimeoutKind("heartbeatTimeoutMs", request.getHeartbeatTimeoutMs());
        validateRetryPolicy(request);
        validateDependencies(taskId, request);
        validateShards(request);
    }

    /** {@code shards} and {@code shardFailure}: 1 to {@link #MAX_SHARDS}, not with overlap ALLOW, slices' room in the payload limit. */
    private void validateShards(ScheduleRequest request) {
        int shards = request.getShards();
        if (shards < 1 || shards > MAX_SHARDS) {
            throw new InvalidRequestException("shards", "shards must be between 1 and " + MAX_SHARDS + ": " + shards);
        }
        if (shards == 1) {
            if (request.getShardFailure() != io.ax.schema.ShardFailurePolicy.CANCEL_OTHERS) {
                throw new InvalidRequestException("shardFailure", "shardFailure goes with shards > 1 only");
            }
            return;
        }
        if (request.getOverlap() == OverlapPolicy.ALLOW) {
            throw new InvalidRequestException("shards", "shards > 1 does not go with overlap ALLOW (occurrences side by side,"
                    + " each with " + shards + " slices, would keep too much state per task): use SKIP or QUEUE_ONE");
        }
        long payloadBytes = request.getPayload() == null ? 0 : request.getPayload().remaining();
        long needed = payloadBytes + (long) (shards - 1) * SLICE_BYTES;
        if (needed > limits.maxPayloadBytes()) {
            throw new InvalidRequestException("shards", "shards " + shards + " with a payload of " + payloadBytes + " bytes: the"
                    + " slices' state (" + SLICE_BYTES + " bytes per slice beyond the first) and the payload need " + needed
                    + " bytes, more than the payload limit of " + limits.maxPayloadBytes());
        }
    }

    /** {@code after}, {@code afterDelayMs}, {@code afterTimeoutMs}: bounded, no self-dependency, no duplicates. */
    private static void validateDependencies(String taskId, ScheduleRequest request) {
        java.util.List<io.ax.schema.Dependency> after = request.getAfter();
        if (after.isEmpty()) {
            String option = request.getAfterDelayMs() != 0 ? "afterDelayMs"
                    : request.getAfterTimeoutMs() != 86_400_000L ? "afterTimeoutMs"
                    : request.getAfterRunAnyway() ? "afterRunAnyway" : null;
            if (option != null) {
                throw new InvalidRequestException(option, option + " goes with after (the tasks to wait for) only");
            }
            return;
        }
        if ((request.getTrigger() instanceof IntervalTrigger || request.getTrigger() instanceof CronTrigger)
                && request.getAfterDelayMs() != 0) {
            // A periodic occurrence runs at its own time once its upstreams allow it: no delay after them.
            throw new InvalidRequestException("afterDelayMs", "afterDelayMs goes with a one-shot task (at or delayMs) only, not with"
                    + " everyMs or cron");
        }
        if (after.size() > MAX_DEPENDENCIES) {
            throw new InvalidRequestException("after", "after names " + after.size() + " tasks, more than " + MAX_DEPENDENCIES
                    + "; wait for more through intermediate tasks (topology-docs/WORKFLOWS.md)");
        }
        java.util.Set<String> seen = new java.util.HashSet<>();
        int idChars = 0;
        for (io.ax.schema.Dependency dependency : after) {
            String id = dependency.getTaskId();
            idChars += id == null ? 0 : id.length();
            if (id == null || id.isBlank()) {
                throw new InvalidRequestException("after", "after: a taskId is blank");
            }
            if (id.length() > MAX_TASK_ID_CHARS || id.chars().anyMatch(Character::isISOControl)) {
                throw new InvalidRequestException("after", "after: taskId " + Quote.of(id) + " is longer than " + MAX_TASK_ID_CHARS
                        + " chars or has control characters");
            }
            if (id.equals(taskId)) {
                throw new InvalidRequestException("after", "after: a task cannot wait for itself: " + Quote.of(id));
            }
            if (!seen.add(id)) {
                throw new InvalidRequestException("after", "after: taskId " + Quote.of(id) + " is named twice");
            }
        }
        if (idChars > MAX_DEPENDENCY_ID_CHARS) {
            throw new InvalidRequestException("after", "after: the taskIds named have " + idChars + " chars together, more than "
                    + MAX_DEPENDENCY_ID_CHARS);
        }
        if (request.getAfterDelayMs() < 0 || request.getAfterDelayMs() > MAX_DELAY_MS) {
            throw new InvalidRequestException("afterDelayMs", "afterDelayMs must be between 0 and " + MAX_DELAY_MS + ": "
                    + request.getAfterDelayMs());
        }
        if (request.getAfterTimeoutMs() < 1 || request.getAfterTimeoutMs() > MAX_DELAY_MS) {
            throw new InvalidRequestException("afterTimeoutMs", "afterTimeoutMs must be between 1 and " + MAX_DELAY_MS + ": "
                    + request.getAfterTimeoutMs());
        }
    }

    /** The timeout kinds (schedule-to-start, start-to-close, heartbeat) take the bounds of timeoutMs. */
    private static void validateTimeoutKind(String field, Long valueMs) {
        if (valueMs != null && (valueMs < 1 || valueMs > MAX_DELAY_MS)) {
            throw new InvalidRequestException(field, field + " must be between 1 and " + MAX_DELAY_MS + ": " + valueMs);
        }
    }

    private void validateTrigger(Object trigger) {
        if (trigger instanceof AtTrigger at) {
            requireInstant("at", at.getAtMs());
        } else if (trigger instanceof DelayTrigger delay) {
            if (delay.getDelayMs() < 0 || delay.getDelayMs() > MAX_DELAY_MS) {
                throw new InvalidRequestException("delayMs", "delayMs must be between 0 and " + MAX_DELAY_MS + ": " + delay.getDelayMs());
            }
        } else if (trigger instanceof IntervalTrigger interval) {
            if (interval.getEveryMs() < limits.minIntervalMs() || interval.getEveryMs() > MAX_DELAY_MS) {
                throw new InvalidRequestException("everyMs", "everyMs must be between " + limits.minIntervalMs() + " and "
                        + MAX_DELAY_MS + ": " + interval.getEveryMs());
            }
            if (interval.getStartAtMs() != null) {
                requireInstant("startAt", interval.getStartAtMs());
            }
        } else if (trigger instanceof CronTrigger cron) {
            requireLength("cron", cron.getExpression(), MAX_CRON_CHARS);
            requireLength("zone", cron.getZone(), MAX_ZONE_CHARS);
            CronSchedules.get(cron.getExpression(), cron.getZone());
        } else {
            throw new InvalidRequestException("trigger", "missing trigger");
        }
    }

    /** The options of periodic tasks: refused on a one-shot, where they would mean nothing. */
    private static void validatePeriodic(ScheduleRequest request) {
        Object trigger = request.getTrigger();
        boolean periodic = trigger instanceof IntervalTrigger || trigger instanceof CronTrigger;
        if (!periodic) {
            String option = request.getEndAtMs() != null ? "endAt"
                    : request.getMaxOccurrences() != null ? "maxOccurrences"
                    : request.getOccurrenceJitterMs() != 0 ? "occurrenceJitterMs"
                    : request.getMisfire() != MisfirePolicy.FIRE_ONCE ? "misfire"
                    : request.getOverlap() != OverlapPolicy.SKIP ? "overlap"
                    : request.getCalendar() != null ? "calendar" : null;
            if (option != null) {
                throw new InvalidRequestException(option, option + " goes with a periodic trigger (everyMs or cron) only");
            }
        }
        if (request.getEndAtMs() != null) {
            requireInstant("endAt", request.getEndAtMs());
            if (trigger instanceof IntervalTrigger interval && interval.getStartAtMs() != null
                    && request.getEndAtMs() < interval.getStartAtMs()) {
                throw new InvalidRequestException("endAt", "endAt " + Instant.ofEpochMilli(request.getEndAtMs())
                        + " is before startAt " + Instant.ofEpochMilli(interval.getStartAtMs()));
            }
        }
        if (request.getCalendar() != null) {
            CalendarValidator.validateName(request.getCalendar());
        }
        if (request.getMaxOccurrences() != null && request.getMaxOccurrences() < 1) {
            throw new InvalidRequestException("maxOccurrences", "maxOccurrences must be >= 1: " + request.getMaxOccurrences());
        }
        if (request.getMaxCatchUp() < 1 || request.getMaxCatchUp() > MAX_CATCH_UP) {
            throw new InvalidRequestException("maxCatchUp", "maxCatchUp must be between 1 and " + MAX_CATCH_UP + ": "
                    + request.getMaxCatchUp());
        }
        long jitterMs = request.getOccurrenceJitterMs();
        long maxJitterMs = trigger instanceof IntervalTrigger interval
                ? Math.min(MAX_OCCURRENCE_JITTER_MS, interval.getEveryMs()) : MAX_OCCURRENCE_JITTER_MS;
        if (jitterMs < 0 || jitterMs > maxJitterMs) {
            throw new InvalidRequestException("occurrenceJitterMs", "occurrenceJitterMs must be between 0 and " + maxJitterMs
                    + (trigger instanceof IntervalTrigger ? " (at most one hour and at most everyMs)" : " (one hour)") + ": " + jitterMs);
        }
    }

    private static void validateRetryPolicy(ScheduleRequest request) {
        if (request.getMaxRetries() < 0 || request.getMaxRetries() > MAX_RETRIES) {
            throw new InvalidRequestException("maxRetries", "maxRetries must be between 0 and " + MAX_RETRIES + ": " + request.getMaxRetries());
        }
        if (request.getBackoffMs() != null && (request.getBackoffMs() < 1 || request.getBackoffMs() > MAX_DELAY_MS)) {
            throw new InvalidRequestException("backoffMs", "backoffMs must be between 1 and " + MAX_DELAY_MS + ": " + request.getBackoffMs());
        }
        if (request.getBackoffIntervalsMs().size() > MAX_BACKOFF_INTERVALS) {
            throw new InvalidRequestException("backoffIntervalsMs", "backoffIntervalsMs has more than " + MAX_BACKOFF_INTERVALS + " entries");
        }
        for (long interval : request.getBackoffIntervalsMs()) {
            if (interval < 1 || interval > MAX_DELAY_MS) {
                throw new InvalidRequestException("backoffIntervalsMs", "every backoffIntervalsMs entry must be between 1 and "
                        + MAX_DELAY_MS + ": " + interval);
            }
        }
    }

    /** @throws InvalidRequestException when {@code ms} is before 1970 or after {@link #MAX_INSTANT_MS} */
    public static void requireInstant(String field, long ms) {
        if (ms < 0 || ms > MAX_INSTANT_MS) {
            throw new InvalidRequestException(field, field + " must be between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z: " + ms);
        }
    }

    /** @throws InvalidRequestException when {@code text} is longer than {@code maxChars} */
    public static void requireLength(String field, String text, int maxChars) {
        if (text != null && text.length() > maxChars) {
            throw new InvalidRequestException(field, field + " is longer than " + maxChars + " chars: " + Quote.of(text));
        }
    }

    /**
     * @throws InvalidRequestException when {@code id} is missing, empty or longer than {@link #MAX_ID_CHARS} (an
     *                                 executionId a worker or the retry topic names)
     */
    public static void requireId(String field, String id) {
        if (id == null || id.isEmpty()) {
            throw new InvalidRequestException(field, "missing " + field);
        }
        requireLength(field, id, MAX_ID_CHARS);
    }
}
