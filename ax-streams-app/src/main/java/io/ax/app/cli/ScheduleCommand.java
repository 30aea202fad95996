package io.ax.app.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ax.AxTopics;
import io.ax.client.AxClient;
import io.ax.client.ScheduleBuilder;
import io.ax.schema.DependencyCondition;
import io.ax.schema.IfExists;
import io.ax.schema.MisfirePolicy;
import io.ax.schema.OverlapPolicy;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.producer.RecordMetadata;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code ax schedule}: schedule a task through {@link AxClient}, validated before it is sent. */
@Command(name = "schedule", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Schedule a task: exactly one of --in, --at, --every, --cron. The client validates the request before"
                + " sending it; the command prints what Kafka acknowledged, and the scheduler's answer (PENDING, or IGNORED"
                + " for a live task with this taskId under --if-exists KEEP) appears on the state topic.",
                "Durations: 500ms, 30s, 5m, 2h, 1d, 1h30m or ISO-8601 (PT5M)."})
public final class ScheduleCommand implements Callable<Integer> {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "TASK", description = "The taskId (the dedup key).")
    String taskId;

    @Option(names = "--job-type", required = true, paramLabel = "J", description = "Selects the worker handler.")
    String jobType;

    @ArgGroup(exclusive = true, multiplicity = "0..1")
    When when;

    static final class When {
        @Option(names = "--in", paramLabel = "DURATION", converter = DurationConverter.class,
                description = "Once, this long from now (e.g. 5m).")
        Duration in;

        @Option(names = "--at", paramLabel = "INSTANT", converter = InstantConverter.class,
                description = "Once, at an ISO-8601 instant (e.g. 2026-12-01T02:00:00Z).")
        Instant at;

        @Option(names = "--every", paramLabel = "DURATION", converter = DurationConverter.class,
                description = "Repeatedly, at a fixed rate; the first one interval from now.")
        Duration every;

        @Option(names = "--cron", paramLabel = "EXPR", description = "Repeatedly, on a cron expression read in --zone: Unix,"
                + " 5 fields (e.g. \"0 2 * * *\"), or Quartz, 6-7 fields with seconds, L, W, # (e.g. \"0 0 12 L * ?\")."
                + " Check one with ./ax cron-next.")
        String cron;
    }

    @Option(names = "--zone", paramLabel = "Z", description = "IANA time zone of --cron (default: UTC).")
    String zone;

    @Option(names = "--end-at", paramLabel = "INSTANT", converter = InstantConverter.class,
            description = "--every/--cron: no occurrence after this ISO-8601 instant.")
    Instant endAt;

    @Option(names = "--max-occurrences", paramLabel = "N", description = "--every/--cron: end after N occurrences (run or skipped).")
    Long maxOccurrences;

    @Option(names = "--misfire", paramLabel = "FIRE_ONCE|FIRE_ALL|SKIP", description = "--every/--cron: occurrences missed"
            + " while the scheduler was down: run one now (FIRE_ONCE, default), all in turn (FIRE_ALL), or none (SKIP).")
    MisfirePolicy misfire;

    @Option(names = "--overlap", paramLabel = "SKIP|QUEUE_ONE|ALLOW", description = "--every/--cron: an occurrence due while the"
            + " previous execution is still in flight is SKIPPED (SKIP, default), or one waits and runs when it ends (QUEUE_ONE),"
            + " or it runs beside it, each its own execution, at most 10 in flight (ALLOW).")
    OverlapPolicy overlap;

    @Option(names = "--calendar", paramLabel = "NAME", description = "--every/--cron: the exclusion calendar (ax calendar set)"
            + " whose excluded occurrences are SKIPPED; it must exist.")
    String calendar;

    @Option(names = "--max-catch-up", paramLabel = "N", description = "With --misfire FIRE_ALL: at most N missed occurrences"
            + " wait to run (default 100).")
    Integer maxCatchUp;

    @Option(names = "--jitter", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "--every/--cron: fire each occurrence a fixed per-task offset of up to this long after its time.")
    Duration jitter;

    @Option(names = "--payload", paramLabel = "JSON", description = "Any JSON value, handed to the handler as given.")
    String payload;

    @Option(names = "--priority", paramLabel = "N", description = "0-9 (default 4): higher fires first when a tick is full.")
    Integer priority;

    @Option(names = "--owner", paramLabel = "O", description = "Who owns the task; carried to workers and dead letters.")
    String owner;

    @Option(names = "--timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "An attempt with no sign of life for this long times out (default: the scheduler's, 5m).")
    Duration timeout;

    @Option(names = "--schedule-to-start-timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "An attempt not started by a worker this long after its dispatch times out (default: --timeout applies until the start).")
    Duration scheduleToStartTimeout;

    @Option(names = "--start-to-close-timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "An attempt running (since STARTED) for longer times out; heartbeats may extend it (default: no limit).")
    Duration startToCloseTimeout;

    @Option(names = "--heartbeat-timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "A running attempt silent (no heartbeat) for this long times out (default: --timeout).")
    Duration heartbeatTimeout;

    @Option(names = "--max-retries", paramLabel = "N", description = "Retries after the first attempt (default 3).")
    Integer maxRetries;

    @Option(names = "--backoff", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Exponential backoff base: retry n waits base x 2^(n-1) (default: the scheduler's, 1s).")
    Duration backoff;

    @Option(names = "--if-exists", paramLabel = "KEEP|REPLACE|UPDATE", description = "When a live task with this taskId exists:"
            + " KEEP it and ignore this request (default), REPLACE it (its execution in flight is cancelled), or UPDATE a"
            + " periodic task's schedule (its execution in flight keeps running).")
    IfExists ifExists;

    @Option(names = "--after", paramLabel = "TASK[:SUCCESS|FAILURE|COMPLETED]", description = "Wait for this task to end"
            + " so (default SUCCESS); repeat for more (at most 100). Without --in/--at the task is due once all are met;"
            + " with --every/--cron each occurrence waits for its period's occurrence of it (topology-docs/WORKFLOWS.md).")
    List<String> after = new ArrayList<>();

    @Option(names = "--after-delay", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "With --after, one-shot only: due this long after the last condition is met (default 0).")
    Duration afterDelay;

    @Option(names = "--after-timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "With --after: the most it waits (default 1d); then CANCELLED (--every/--cron: each occurrence,"
                    + " then SKIPPED).")
    Duration afterTimeout;

    @Option(names = "--run-anyway", description = "With --after: a condition that can no longer be met counts as settled"
            + " instead of cancelling the task.")
    boolean runAnyway;

    @Option(names = "--shards", paramLabel = "N", description = "Run each occurrence as N slices (1-64), each its own"
            + " execution with the header ax-shard i/N, retried on its own (topology-docs/WORKFLOWS.md).")
    Integer shards;

    @Option(names = "--shard-failure", paramLabel = "CANCEL_OTHERS|LET_FINISH", description = "With --shards: when a"
            + " slice fails for good, cancel the others (default) or let them finish.")
    io.ax.schema.ShardFailurePolicy shardFailure;

    @Option(names = "--json", description = "Print what Kafka acknowledged as one JSON object.")
    boolean json;

    @Mixin
    ConnectionOptions connection;

    @Mixin
    TopicOptions topicOptions;

    @Override
    public Integer call() throws Exception {
        requireArgumentsMakeSense();
        Map<String, String> settings = connection.settings(System.getenv());
        AxTopics topics = topicOptions.topics(settings);
        try (AxClient client = OperatorClients.client(settings, topics, "ax-schedule")) {
            ScheduleBuilder request = describe(client.schedule(taskId));
            request.build(); // validates before anything is sent: a bad value is a usage error, not a Kafka failure
            RecordMetadata sent = request.submit().get();
            Acknowledged.print(spec.commandLine().getOut(), json, "schedule", taskId, sent, topics.state());
        }
        return CliErrors.OK;
    }

    private void requireArgumentsMakeSense() {
        if (when == null && after.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "Missing required argument (specify one of these): --in, --at,"
                    + " --every, --cron, or --after");
        }
        if (when == null) {
            when = new When();
        }
        for (String condition : after) {
            conditionOf(condition);
        }
        if (zone != null && when.cron == null) {
            throw new ParameterException(spec.commandLine(), "--zone is for --cron only");
        }
        if (zone != null) {
            try {
                ZoneId.of(zone);
            } catch (DateTimeException e) {
                throw new ParameterException(spec.commandLine(), "Invalid value for option '--zone': '" + zone
                        + "' is not an IANA time zone (example: Asia/Shanghai)");
            }
        }
        if (payload != null) {
            try {
                MAPPER.readTree(payload);
            } catch (JsonProcessingException e) {
                throw new ParameterException(spec.commandLine(), "Invalid value for option '--payload': not JSON: "
                        + e.getOriginalMessage());
            }
        }
    }

    /** {@code TASK} or {@code TASK:SUCCESS|FAILURE|COMPLETED}; the last colon splits, so a taskId may hold colons. */
    private DependencyCondition conditionOf(String condition) {
        int colon = condition.lastIndexOf(':');
        if (colon < 0) {
            return DependencyCondition.SUCCESS;
        }
        try {
            return DependencyCondition.valueOf(condition.substring(colon + 1).toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '--after': '" + condition
                    + "': the condition after the last ':' must be SUCCESS, FAILURE or COMPLETED");
        }
    }

    private static String taskOf(String condition) {
        int colon = condition.lastIndexOf(':');
        return colon < 0 ? condition : condition.substring(0, colon);
    }

    private ScheduleBuilder describe(ScheduleBuilder request) {
        request.jobType(jobType);
        if (when.in != null) {
            request.after(when.in);
        } else if (when.at != null) {
            request.at(when.at);
        } else if (when.every != null) {
            request.every(when.every);
        } else if (when.cron != null) {
            request.cron(when.cron, zone != null ? zone : "UTC");
        }
        for (String condition : after) {
            request.after(taskOf(condition), conditionOf(condition));
        }
        if (afterDelay != null) {
            request.afterDelay(afterDelay);
        }
        if (afterTimeout != null) {
            request.afterTimeout(afterTimeout);
        }
        if (runAnyway) {
            request.runAnywayWhenUnmet();
        }
        if (shards != null) {
            request.shards(shards);
        }
        if (shardFailure != null) {
            request.onShardFailure(shardFailure);
        }
        if (payload != null) {
            request.payload(payload);
        }
        if (priority != null) {
            request.priority(priority);
        }
        if (owner != null) {
            request.owner(owner);
        }
        if (timeout != null) {
            request.timeout(timeout);
        }
        if (scheduleToStartTimeout != null) {
            request.scheduleToStartTimeout(scheduleToStartTimeout);
        }
        if (startToCloseTimeout != null) {
            request.startToCloseTimeout(startToCloseTimeout);
        }
        if (heartbeatTimeout != null) {
            request.heartbeatTimeout(heartbeatTimeout);
        }
        if (maxRetries != null) {
            request.maxRetries(maxRetries);
        }
        if (backoff != null) {
            request.backoff(backoff);
        }
        if (ifExists != null) {
            request.ifExists(ifExists);
        }
        if (endAt != null) {
            request.endAt(endAt);
        }
        if (maxOccurrences != null) {
            request.maxOccurrences(maxOccurrences);
        }
        if (misfire != null) {
            request.misfire(misfire);
        }
        if (overlap != null) {
            request.overlap(overlap);
        }
        if (maxCatchUp != null) {
            request.maxCatchUp(maxCatchUp);
        }
        if (jitter != null) {
            request.occurrenceJitter(jitter);
        }
        if (calendar != null) {
            request.calendar(calendar);
        }
        return request;
    }
}
