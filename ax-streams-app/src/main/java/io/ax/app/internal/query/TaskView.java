package io.ax.app.internal.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ax.app.internal.core.Shards;
import io.ax.app.internal.store.IndexEntry;
import io.ax.schema.AtTrigger;
import io.ax.schema.AttemptError;
import io.ax.schema.CronTrigger;
import io.ax.schema.DelayTrigger;
import io.ax.schema.IntervalTrigger;
import io.ax.schema.ScheduleRequest;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Base64;

/**
 * A stored task as the HTTP API shows it. The field names are a contract (camelCase, more may be added): {@code taskId,
 * state, jobType, owner, priority, timeoutMs, trigger, payload, retry, acceptedAt, nextDueAt, occurrences, finishedAt,
 * purgeAt, execution, attempts, partition, instance}, and only when set {@code pausedAt} (a paused periodic task),
 * {@code queuedDueAt} (an occurrence waiting for the execution in flight, overlap QUEUE_ONE), {@code alongside} (the
 * earlier executions in flight beside the current one, overlap ALLOW, oldest first, each as {@code execution}), the
 * timeout kinds {@code scheduleToStartTimeoutMs, startToCloseTimeoutMs, heartbeatTimeoutMs} and the execution's
 * {@code startedAt} and {@code deadlineAt} (its phase's fixed deadline, see topology-docs/TIMEOUTS.md), {@code after} (a
 * task with dependencies: each condition, the state reported for it and whether it is met), {@code admission} (owner
 * maxLiveTasks: the live gate the task holds its slot at, and {@code awaitingSince} while it awaits admission); times are
 * ISO-8601 instants. A single task's answer adds its
 * {@code history} ({@link HistoryView}); an execution's adds {@code latest}.
 */
final class TaskView {
    static final ObjectMapper MAPPER = new ObjectMapper();

    private TaskView() {
    }

    static ObjectNode of(StoredTask task, int partition, String instance) {
        ScheduleRequest request = task.getRequest();
        ObjectNode json = MAPPER.createObjectNode();
        json.put("taskId", task.getTaskId());
        json.put("state", IndexEntry.stateOf(task).name());
        json.put("jobType", request.getJobType());
        json.put("owner", request.getOwner());
        json.put("priority", request.getPriority());
        json.put("timeoutMs", request.getTimeoutMs());
        maybePut(json, "scheduleToStartTimeoutMs", request.getScheduleToStartTimeoutMs());
        maybePut(json, "startToCloseTimeoutMs", request.getStartToCloseTimeoutMs());
        maybePut(json, "heartbeatTimeoutMs", request.getHeartbeatTimeoutMs());
        json.set("trigger", trigger(request.getTrigger()));
        payload(json, request.getPayload());
        json.set("retry", retry(request));
        json.put("acceptedAt", instant(task.getAcceptedAtMs()));
        json.put("nextDueAt", instant(task.getNextDueAtMs()));
        json.put("occurrences", task.getOccurrences());
        if (task.getPausedAtMs() != null) {
            json.put("pausedAt", instant(task.getPausedAtMs()));
        }
        if (task.getQueuedDueAtMs() != null) {
            json.put("queuedDueAt", instant(task.getQueuedDueAtMs()));
        }
        if (!request.getAfter().isEmpty()) {
            json.set("after", after(task));
        }
        if (task.getAdmissionGate() != null) {
            ObjectNode admission = json.putObject("admission");
            admission.put("gate", task.getAdmissionGate());
            if (task.getAdmissionSinceMs() != null) {
                admission.put("awaitingSince", instant(task.getAdmissionSinceMs()));
            }
        }
        if (request.getCalendar() != null) {
            json.put("calendar", request.getCalendar());
        }
        if (task.getCalendarSkips() != null && task.getCalendarSkips().getCount() > 0) {
            // Excluded occurrences counted since the last SKIPPED event of the run, reported when the run ends.
            json.put("calendarSkipsUnreported", task.getCalendarSkips().getCount());
        }
        json.put("cancelled", task.getCancelled());
        json.put("finishedAt", instant(task.getFinishedAtMs()));
        json.put("purgeAt", instant(task.getPurgeAtMs()));
        StoredExecution execution = task.getExecution();
        json.set("execution", execution == null ? null : execution(execution));
        if (!task.getAlongside().isEmpty()) {
            ArrayNode alongside = json.putArray("alongside");
            task.getAlongside().forEach(beside -> alongside.add(execution(beside)));
        }
        if (Shards.isSharded(task)) {
            // A sharded task: every slice of the current occurrence with its state and attempt, and the outcome once decided.
            json.put("shards", request.getShards());
            json.put("shardFailure", request.getShardFailure().name());
            json.put("shardsOutcome", task.getShardsOutcome());
            ArrayNode slices = json.putArray("slices");
            if (execution != null && execution.getShard() != null) {
                for (StoredExecution slice : Shards.all(task)) {
                    slices.add(execution(slice).put("shard", slice.getShard()));
                }
            }
        }
        ArrayNode attempts = json.putArray("attempts");
        if (execution != null) {
            for (AttemptError error : execution.getErrors()) {
                attempts.addObject().put("attempt", error.getAttempt()).put("at", instant(error.getAtMs()))
                        .put("timedOut", error.getTimedOut()).put("retryable", error.getRetryable())
                        .put("message", error.getMessage());
            }
        }
        json.put("partition", partition);
        json.put("instance", instance);
        return json;
    }

    /**
     * What a task with dependencies waits for: each task with its condition and, once reported, the state it ended in
     * and whether that meets the condition; the delay, the wait timeout and whether it runs anyway. For a periodic
     * task, the outcome is the upstream's latest occurrence's, whose nominal time is {@code occurrenceDueAt} (whether it
     * falls in the period of the next occurrence is decided when that one fires: topology-docs/WORKFLOWS.md).
     */
    private static ObjectNode after(StoredTask task) {
        ScheduleRequest request = task.getRequest();
        ObjectNode json = MAPPER.createObjectNode();
        ArrayNode conditions = json.putArray("conditions");
        int waiting = 0;
        for (io.ax.schema.Dependency dependency : request.getAfter()) {
            String outcome = task.getDependencyOutcomes().get(dependency.getTaskId());
            ObjectNode condition = conditions.addObject().put("taskId", dependency.getTaskId()).put("on", dependency.getOn().name())
                    .put("outcome", outcome);
            Long occurrenceDueAtMs = task.getUpstreamNominalAtMs().get(dependency.getTaskId());
            if (occurrenceDueAtMs != null) {
                condition.put("occurrenceDueAt", instant(occurrenceDueAtMs));
            }
            if (outcome == null) {
                waiting++;
                condition.putNull("met");
            } else {
                condition.put("met", outcomeMeets(dependency.getOn(), outcome));
            }
        }
        json.put("waitingFor", waiting);
        json.put("afterDelayMs", request.getAfterDelayMs());
        json.put("afterTimeoutMs", request.getAfterTimeoutMs());
        json.put("afterRunAnyway", request.getAfterRunAnyway());
        json.put("waitTimeoutAt", instant(task.getWaitTimeoutAtMs()));
        return json;
    }

    private static boolean outcomeMeets(io.ax.schema.DependencyCondition on, String outcome) {
        if ("SKIPPED".equals(outcome)) {
            return false; // an upstream occurrence that did not run meets no condition
        }
        return switch (on) {
            case SUCCESS -> "SUCCESS".equals(outcome);
            case FAILURE -> "FAILED".equals(outcome);
            case COMPLETED -> !"PURGED".equals(outcome);
        };
    }

    private static ObjectNode execution(StoredExecution execution) {
        ObjectNode json = MAPPER.createObjectNode();
        json.put("executionId", execution.getExecutionId());
        json.put("attempt", execution.getAttempt());
        json.put("state", execution.getState().name());
        json.put("dueAt", instant(execution.getDueAtMs()));
        json.put("firedAt", instant(execution.getFiredAtMs()));
        json.put("workerId", execution.getWorkerId());
        json.put("lastHeartbeatAt", instant(execution.getLastSignMs()));
        json.put("progress", execution.getProgress());
        json.put("lastError", execution.getLastError());
        json.put("retryAt", instant(execution.getRetryAtMs()));
        json.put("timeoutAt", instant(execution.getTimeoutAtMs()));
        if (execution.getStartedAtMs() != null) {
            json.put("startedAt", instant(execution.getStartedAtMs()));
        }
        if (execution.getDeadlineAtMs() != null) {
            json.put("deadlineAt", instant(execution.getDeadlineAtMs()));
        }
        return json;
    }

    /** The timeout kinds appear only when the request sets them. */
    private static void maybePut(ObjectNode json, String field, Long valueMs) {
        if (valueMs != null) {
            json.put(field, valueMs);
        }
    }

    private static ObjectNode trigger(Object trigger) {
        ObjectNode json = MAPPER.createObjectNode();
        if (trigger instanceof AtTrigger at) {
            json.put("at", instant(at.getAtMs()));
        } else if (trigger instanceof DelayTrigger delay) {
            json.put("delayMs", delay.getDelayMs());
        } else if (trigger instanceof IntervalTrigger interval) {
            json.put("everyMs", interval.getEveryMs());
            json.put("startAt", instant(interval.getStartAtMs()));
        } else if (trigger instanceof CronTrigger cron) {
            json.put("cron", cron.getExpression());
            json.put("zone", cron.getZone());
        }
        return json;
    }

    private static ObjectNode retry(ScheduleRequest request) {
        ObjectNode json = MAPPER.createObjectNode();
        json.put("maxRetries", request.getMaxRetries());
        json.put("backoffMs", request.getBackoffMs());
        ArrayNode intervals = json.putArray("backoffIntervalsMs");
        request.getBackoffIntervalsMs().forEach(intervals::add);
        json.put("jitter", request.getJitter());
        return json;
    }

    /** A JSON payload as JSON; any other bytes (an Avro client may send anything) as base64 in {@code payloadBase64}. */
    private static void payload(ObjectNode json, ByteBuffer payload) {
        if (payload == null) {
            json.putNull("payload");
            return;
        }
        byte[] bytes = new byte[payload.remaining()];
        payload.duplicate().get(bytes);
        try {
            JsonNode parsed = MAPPER.readTree(bytes);
            if (parsed != null && !parsed.isMissingNode()) {
                json.set("payload", parsed);
                return;
            }
        } catch (IOException notJson) {
            // fall through: shown as base64
        }
        json.putNull("payload");
        json.put("payloadBase64", Base64.getEncoder().encodeToString(bytes));
    }

    static String instant(Long ms) {
        return ms == null ? null : Instant.ofEpochMilli(ms).toString();
    }
}
