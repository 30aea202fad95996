package io.ax.client;

import io.ax.InvalidRequestException;
import io.ax.client.internal.Millis;
import io.ax.client.internal.RequestSender;
import io.ax.schema.AtTrigger;
import io.ax.schema.CronTrigger;
import io.ax.schema.DelayTrigger;
import io.ax.schema.IfExists;
import io.ax.schema.IntervalTrigger;
import io.ax.schema.ScheduleRequest;
import io.ax.validation.ScheduleValidator;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Describes one task to schedule, from {@link AxClient#schedule(String)}: a {@link #jobType(String) job type},
 * exactly one trigger ({@link #at}, {@link #after}, {@link #every}, {@link #cron}) and optional settings;
 * {@link #submit()} validates and sends it.
 *
 * <p>Unset options take the schema's defaults: priority 4, 3 retries, the scheduler's timeout and backoff,
 * {@link IfExists#KEEP}. Not thread-safe; cheap, use one per task.
 */
public final class ScheduleBuilder {
    private final String taskId;
    private final RequestSender sender;
    private final ScheduleValidator validator;
    private final ScheduleRequest.Builder request = ScheduleRequest.newBuilder();
    private String jobType;
    private Object trigger;
    private String triggerCall;

    ScheduleBuilder(String taskId, RequestSender sender, ScheduleValidator validator) {
        this.taskId = taskId;
        this.sender = sender;
        this.validator = validator;
    }

    /** Selects the worker handler; 1-128 chars of {@code A-Z a-z 0-9 . _ : -}. Required. */
    public ScheduleBuilder jobType(String jobType) {
        this.jobType = Objects.requireNonNull(jobType, "jobType");
        return this;
    }

    /** Runs once at {@code dueAt} (at once if that is already past when the scheduler reads the request). */
    public ScheduleBuilder at(Instant dueAt) {
        return trigger(new AtTrigger(Millis.of(dueAt, "at")), "at(" + dueAt + ")");
    }

    /**
     * Runs once {@code delay} after the request record's timestamp, which the client takes from its clock
     * when sending. Must be {@code >= 0}.
     */
    public ScheduleBuilder after(Duration delay) {
        return trigger(new DelayTrigger(Millis.of(delay, "delayMs")), "after(" + delay + ")");
    }

    /** Runs every {@code interval}, first one interval after the request record's timestamp. */
    public ScheduleBuilder every(Duration interval) {
        return trigger(new IntervalTrigger(Millis.of(interval, "everyMs"), null), "every(" + interval + ")");
    }

    /** Runs every {@code interval}, first at {@code firstAt}: occurrence n is due at {@code firstAt + n * interval}. */
    public ScheduleBuilder every(Duration interval, Instant firstAt) {
        return trigger(new IntervalTrigger(Millis.of(interval, "everyMs"), Millis.of(firstAt, "startAt")),
                "every(" + interval + ", " + firstAt + ")");
    }

    /**
     * Runs on a Unix cron expression (minute hour day-of-month month day-of-week, e.g. {@code "0 2 * * *"})
     * read in {@code zone}. Daylight-saving gaps skip an occurrence; overlaps fire it once.
     */
    public ScheduleBuilder cron(String expression, ZoneId zone) {
        return cron(expression, Objects.requireNonNull(zone, "zone").getId());
    }

    /** As {@link #cron(String, ZoneId)}, with the zone as an IANA id such as {@code "Asia/Shanghai"} (e.g. from configuration). */
    public ScheduleBuilder cron(String expression, String zoneId) {
        Objects.requireNonNull(expression, "expression");
        Objects.requireNonNull(zoneId, "zoneId");
        return trigger(new CronTrigger(expression, zoneId), "cron(\"" + expression + "\", " + zoneId + ")");
    }

    /** Bytes handed to the handler unchanged; at most the limit (256 KiB by default). */
    public ScheduleBuilder payload(byte[] payload) {
        request.setPayload(payload == null ? null : ByteBuffer.wrap(payload.clone()));
        return this;
    }

    /** The payload as UTF-8 text, e.g. JSON. */
    public ScheduleBuilder payload(String utf8) {
        return payload(utf8 == null ? null : utf8.getBytes(StandardCharsets.UTF_8));
    }

    /** 0 (lowest) to 9 (highest), default 4: when more tasks are due at once than fire in one batch, higher first. */
    public ScheduleBuilder priority(int priority) {
        request.setPriority(priority);
        return this;
    }

    /** Who owns the task (team, service), carried to workers and state events. */
    public ScheduleBuilder owner(String owner) {
        request.setOwner(owner);
        return this;
    }

    /** How long an attempt may go without a sign of life (start, heartbeat) before it times out. */
    public ScheduleBuilder timeout(Duration timeout) {
        request.setTimeoutMs(Millis.of(timeout, "timeoutMs"));
        return this;
    }

    /** Retries after the first attempt for retryable failures and timeouts; 0 never retries. Default 3. */
    public ScheduleBuilder maxRetries(int maxRetries) {
        request.setMaxRetries(maxRetries);
        return this;
    }

    /** Exponential backoff: retry n waits {@code base * 2^(n-1)} (capped, jittered by the scheduler). */
    public ScheduleBuilder backoff(Duration base) {
        request.setBackoffMs(Millis.of(base, "backoffMs"));
        return this;
    }

    /** Explicit waits before retry 1, 2, ...; the last one repeats. Takes precedence over {@link #backoff}. */
    public ScheduleBuilder backoffIntervals(Duration... intervals) {
        List<Long> intervalsMs = new ArrayList<>(intervals.length);
        for (Duration interval : intervals) {
            intervalsMs.add(Millis.of(interval, "backoffIntervalsMs"));
        }
        request.setBackoffIntervalsMs(intervalsMs);
        return this;
    }

    /** What the scheduler does if a live task with this taskId exists: keep it (default) or replace it. */
    public ScheduleBuilder ifExists(IfExists ifExists) {
        request.setIfExists(Objects.requireNonNull(ifExists, "ifExists"));
        return this;
    }

    /**
     * The request as it would be sent, validated.
     *
     * @throws IllegalStateException   when the job type or the trigger is missing
     * @throws InvalidRequestException naming the first field that breaks a rule
     */
    public ScheduleRequest build() {
        if (jobType == null) {
            throw new IllegalStateException(describe() + " has no jobType: call jobType(...) before submit()");
        }
        if (trigger == null) {
            throw new IllegalStateException(describe()
                    + " has no trigger: call one of at(...), after(...), every(...) or cron(...) before submit()");
        }
        ScheduleRequest built = request.setJobType(jobType).setTrigger(trigger).build();
        validator.validate(taskId, built);
        return built;
    }

    /**
     * Validates the request and sends it. The scheduler's answer (PENDING, or IGNORED for an existing
     * task under {@link IfExists#KEEP}, or REJECTED) appears on the state topic.
     *
     * @return completes when Kafka acknowledged the request (all in-sync replicas), or exceptionally when
     *         sending failed
     * @throws IllegalStateException   when the job type or the trigger is missing (nothing is sent)
     * @throws InvalidRequestException naming the first field that breaks a rule (nothing is sent)
     */
    public CompletableFuture<RecordMetadata> submit() {
        return sender.send(taskId, build());
    }

    private ScheduleBuilder trigger(Object newTrigger, String call) {
        if (trigger != null) {
            throw new IllegalStateException(describe() + " already has the trigger " + triggerCall
                    + "; a task has exactly one trigger, so " + call + " cannot be added");
        }
        trigger = newTrigger;
        triggerCall = call;
        return this;
    }

    private String describe() {
        return "schedule(\"" + taskId + "\")";
    }
}
