package io.ax.client;

import io.ax.InvalidRequestException;
import io.ax.client.internal.Millis;
import io.ax.client.internal.RequestSender;
import io.ax.schema.AtTrigger;
import io.ax.schema.CronTrigger;
import io.ax.schema.DelayTrigger;
import io.ax.schema.Dependency;
import io.ax.schema.DependencyCondition;
import io.ax.schema.IfExists;
import io.ax.schema.IntervalTrigger;
import io.ax.schema.MisfirePolicy;
import io.ax.schema.OverlapPolicy;
import io.ax.schema.ScheduleRequest;
import io.ax.trigger.CronSchedules;
import io.ax.validation.ScheduleValidator;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Describes one task to schedule, from {@link AxClient#schedule(String)}: a {@link #jobType(String) job type},
 * exactly one trigger ({@link #at}, {@link #after(Duration)}, {@link #every}, {@link #cron}) or tasks to wait for
 * ({@link #after(String, DependencyCondition)}), and optional settings;
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
    private final List<Dependency> dependencies = new ArrayList<>();

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
     * Runs on a cron expression read in {@code zone}: Unix, 5 fields (minute hour day-of-month month day-of-week, e.g.
     * {@code "0 2 * * *"}), or Quartz, 6 or 7 fields (second minute hour day-of-month month day-of-week [year], with
     * {@code L}, {@code W}, {@code #} and {@code ?}, e.g. {@code "0 0 12 L * ?"}; day-of-week 1-7 = SUN-SAT).
     * Daylight saving: a local time that does not exist fires once at the first instant after the gap; one that
     * happens twice fires once, at the first.
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

    /** Periodic tasks: no occurrence after {@code endAt} (compared with the nominal time, before jitter). */
    public ScheduleBuilder endAt(Instant endAt) {
        request.setEndAtMs(Millis.of(endAt, "endAt"));
        return this;
    }

    /**
     * Periodic tasks: the task ends after {@code maxOccurrences} occurrences (>= 1), whether they ran or were skipped
     * (missed, overlapping); an operator's extra run now counts as one.
     */
    public ScheduleBuilder maxOccurrences(long maxOccurrences) {
        request.setMaxOccurrences(maxOccurrences);
        return this;
    }

    /**
     * Periodic tasks: what becomes of occurrences missed while the scheduler was down or behind (default
     * {@link MisfirePolicy#FIRE_ONCE}: one run now, the rest coalesced into it).
     */
    public ScheduleBuilder misfire(MisfirePolicy misfire) {
        request.setMisfire(Objects.requireNonNull(misfire, "misfire"));
        return this;
    }

    /**
     * Periodic tasks only: what happens to an occurrence due while the previous execution is still in flight
     * (default {@link OverlapPolicy#SKIP}: it is SKIPPED; {@link OverlapPolicy#QUEUE_ONE}: one waits and runs when
     * the previous execution ends, further ones are SKIPPED; {@link OverlapPolicy#ALLOW}: it runs beside the ones in
     * flight, each its own execution, at most 10 in flight at once). Refused on a one-shot when the request is built.
     */
    public ScheduleBuilder overlap(OverlapPolicy overlap) {
        request.setOverlap(Objects.requireNonNull(overlap, "overlap"));
        return this;
    }

    /**
     * Periodic tasks only: the exclusion calendar (created with {@link AxClient#calendar(String)}) whose excluded
     * occurrences are SKIPPED instead of run. The calendar must exist when the scheduler receives this request (else
     * REJECTED "unknown calendar"): set it first and wait for its ACCEPTED event.
     */
    public ScheduleBuilder calendar(String name) {
        request.setCalendar(Objects.requireNonNull(name, "name"));
        return this;
    }

    /** With {@link MisfirePolicy#FIRE_ALL}: at most this many missed occurrences (1-10000, default 100) wait to run. */
    public ScheduleBuilder maxCatchUp(int maxCatchUp) {
        request.setMaxCatchUp(maxCatchUp);
        return this;
    }

    /**
     * Periodic tasks: every occurrence fires a fixed offset in [0, jitter] after its nominal time, the same for every
     * occurrence of this task (a hash of its taskId), so many tasks on one schedule do not fire in one tick. At most one
     * hour, and at most the interval.
     */
    public ScheduleBuilder occurrenceJitter(Duration jitter) {
        request.setOccurrenceJitterMs(Millis.of(jitter, "occurrenceJitterMs"));
        return this;
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

    /**
     * Schedule-to-start: an attempt not started by a worker this long after its dispatch times out, however long it
     * waited in a busy worker's queue. Unset, {@link #timeout} applies until the start, as it always did.
     */
    public ScheduleBuilder scheduleToStartTimeout(Duration timeout) {
        request.setScheduleToStartTimeoutMs(Millis.of(timeout, "scheduleToStartTimeoutMs"));
        return this;
    }

    /**
     * Start-to-close: the running-time limit of an attempt, from its start to its end; a heartbeat may extend it
     * ({@code JobContext#heartbeat(Duration)}). Unset, running time is not limited (only silence is).
     */
    public ScheduleBuilder startToCloseTimeout(Duration timeout) {
        request.setStartToCloseTimeoutMs(Millis.of(timeout, "startToCloseTimeoutMs"));
        return this;
    }

    /**
     * Heartbeat timeout: the longest silence between a running attempt's signs of life (start, heartbeats). Unset,
     * {@link #timeout} is that limit, as it always was.
     */
    public ScheduleBuilder heartbeatTimeout(Duration timeout) {
        request.setHeartbeatTimeoutMs(Millis.of(timeout, "heartbeatTimeoutMs"));
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

    /**
     * Waits for the task {@code taskId} (on any partition, known yet or not) to end in the state {@code on} names:
     * the task is WAITING until every such condition holds, then due (at once, {@link #afterDelay} later, or at its
     * own trigger's time, whichever is later). A condition that can no longer hold cancels it, unless
     * {@link #runAnywayWhenUnmet()}. Without a trigger of its own the task is due once the conditions are met. With
     * {@link #every} or {@link #cron}, each occurrence waits for the named tasks' occurrences of its period instead
     * (runs, is SKIPPED, or waits at most {@link #afterTimeout}). At most 100 per task. See topology-docs/WORKFLOWS.md.
     */
    public ScheduleBuilder after(String taskId, DependencyCondition on) {
        dependencies.add(new Dependency(Objects.requireNonNull(taskId, "taskId"), Objects.requireNonNull(on, "on")));
        return this;
    }

    /** How long after the last condition is met the task is due (default 0). */
    public ScheduleBuilder afterDelay(Duration delay) {
        request.setAfterDelayMs(Millis.of(delay, "afterDelayMs"));
        return this;
    }

    /** The most the task waits for its conditions, from its acceptance (default one day); then it ends CANCELLED. */
    public ScheduleBuilder afterTimeout(Duration timeout) {
        request.setAfterTimeoutMs(Millis.of(timeout, "afterTimeoutMs"));
        return this;
    }

    /**
     * A condition that can no longer be met (the task waited for ended otherwise, or was purged) counts as settled
     * instead of cancelling this task: it runs once every condition is met or settled so (a clean-up step).
     */
    public ScheduleBuilder runAnywayWhenUnmet() {
        request.setAfterRunAnyway(true);
        return this;
    }

    /**
     * Runs each occurrence as {@code shards} slices (1 to {@link ScheduleValidator#MAX_SHARDS}; default 1, not sharded):
     * slice i (0 to shards-1) is its own execution, dispatched with the header {@code ax-shard} {@code i/shards} and
     * known to its handler as {@code JobContext.shardIndex()}, retried on its own. The occurrence succeeds once every
     * slice succeeded and fails when one fails for good; see {@link #onShardFailure}. Not with overlap ALLOW. Checked
     * at {@link #build()}: out of bounds is an {@link InvalidRequestException}. See topology-docs/WORKFLOWS.md.
     */
    public ScheduleBuilder shards(int shards) {
        request.setShards(shards);
        return this;
    }

    /**
     * With {@link #shards} above 1: what becomes of the other slices when one fails for good: cancelled (default,
     * {@link io.ax.schema.ShardFailurePolicy#CANCEL_OTHERS}) or let run to their end
     * ({@link io.ax.schema.ShardFailurePolicy#LET_FINISH}); the occurrence is FAILED either way.
     */
    public ScheduleBuilder onShardFailure(io.ax.schema.ShardFailurePolicy policy) {
        request.setShardFailure(Objects.requireNonNull(policy, "policy"));
        return this;
    }

    /**
     * What the scheduler does if a live task with this taskId exists: keep it (default), replace it (its execution in
     * flight is cancelled), or, for a periodic task, {@link IfExists#UPDATE} its schedule (the execution in flight
     * keeps running; the next occurrence is timed from the new trigger).
     */
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
        if (trigger == null && dependencies.isEmpty()) {
            throw new IllegalStateException(describe()
                    + " has no trigger: call one of at(...), after(...), every(...) or cron(...) before submit()");
        }
        ScheduleRequest built = request.setJobType(jobType).setTrigger(trigger != null ? trigger : new DelayTrigger(0L))
                .setAfter(new ArrayList<>(dependencies)).build();
        validator.validate(taskId, built);
        requireAnOccurrenceBeforeTheEnd(built);
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

    /**
     * An end before the first occurrence (which the scheduler counts from the record's timestamp, this client's clock
     * when sending) would leave a task that never runs: refused here as the scheduler would refuse it.
     */
    private void requireAnOccurrenceBeforeTheEnd(ScheduleRequest built) {
        if (built.getEndAtMs() == null) {
            return;
        }
        long nowMs = sender.nowMs();
        OptionalLong firstMs;
        if (built.getTrigger() instanceof IntervalTrigger interval) {
            firstMs = OptionalLong.of(interval.getStartAtMs() != null ? interval.getStartAtMs() : nowMs + interval.getEveryMs());
        } else {
            CronTrigger cron = (CronTrigger) built.getTrigger();
            firstMs = CronSchedules.get(cron.getExpression(), cron.getZone()).nextAfter(nowMs);
        }
        if (firstMs.isPresent() && built.getEndAtMs() < firstMs.getAsLong()) {
            throw new InvalidRequestException("endAt", "endAt " + Instant.ofEpochMilli(built.getEndAtMs())
                    + " is before the first occurrence, " + Instant.ofEpochMilli(firstMs.getAsLong()) + ": the task would never run");
        }
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
