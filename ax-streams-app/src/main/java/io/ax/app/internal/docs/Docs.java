package io.ax.app.internal.docs;

import io.ax.KafkaConnection;
import io.ax.app.config.AxConfig;
import io.ax.app.internal.timer.ConsumerPositions;
import io.ax.app.internal.core.StateMachine;
import io.ax.app.internal.setup.OutputBounds;
import io.ax.app.internal.topology.AxTopology;
import io.ax.codec.JsonForms;
import io.ax.codec.WireCodec;
import io.ax.validation.AdoptValidator;
import io.ax.validation.ScheduleLimits;
import io.ax.validation.ScheduleValidator;
import io.ax.schema.TaskState;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The generated parts of {@code topology-docs/}: the topology's {@code describe()}, the configuration table and
 * the state machine, all from the code itself, so a test can tell when the committed docs drift.
 */
public final class Docs {
    private Docs() {
    }

    /** {@code describe()} of the topology with default settings. */
    public static String topology() {
        return AxTopology.build(new AxConfig(Map.of(AxConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092")), 0, ConsumerPositions.SYNCHRONOUS).describe() + "\n";
    }

    /** The settings of {@link AxConfig} as a Markdown table. */
    public static String config() {
        StringBuilder md = new StringBuilder("# ax scheduler configuration\n\n"
                + "Generated from `AxConfig.CONFIG` (a test fails when this file drifts). Pass settings to `./ax run` with\n"
                + "`--config FILE` (a .properties file) or `-D key=value`. Keys prefixed `streams.` go to Kafka Streams\n"
                + "without the prefix (`streams.num.stream.threads=2`, `streams.producer.linger.ms=1`). How to reach a secured\n"
                + "cluster: [Connection and security settings](#connection-and-security-settings).\n\n"
                + "| key | type | default | valid values | importance | description |\n|---|---|---|---|---|---|\n");
        for (ConfigDef.ConfigKey key : AxConfig.CONFIG.configKeys().values()) {
            md.append("| `").append(key.name).append("` | ").append(key.type.name().toLowerCase())
                    .append(" | ").append(key.hasDefault() ? "`" + defaultText(key) + "`" : "(required)")
                    .append(" | ").append(key.validator == null ? "" : key.validator.toString().replace("|", "\\|"))
                    .append(" | ").append(key.importance.name().toLowerCase())
                    .append(" | ").append(key.documentation.replace("|", "\\|")).append(" |\n");
        }
        md.append("\nKafka Streams settings ax sets (each can be overridden with `streams.`):\n\n")
                .append("| Streams key | ax's value | why |\n|---|---|---|\n");
        Properties streams = new AxConfig(Map.of(AxConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092")).streamsProperties();
        streamsDefault(md, streams, StreamsConfig.PROCESSING_GUARANTEE_CONFIG,
                "fire = dispatch + store update + state event in one transaction");
        streamsDefault(md, streams, StreamsConfig.COMMIT_INTERVAL_MS_CONFIG,
                "under exactly-once a dispatch is visible only when its transaction commits; a punctuation that fired also "
                        + "commits at once while the stream thread keeps up with its inputs (at most once every 50 ms)");
        streamsDefault(md, streams, StreamsConfig.POLL_MS_CONFIG,
                "an idle stream thread blocks in poll this long; ax's consumer returns early when a timer is due");
        streamsDefault(md, streams, StreamsConfig.producerPrefix(ProducerConfig.LINGER_MS_CONFIG),
                "Streams' own default (100 ms) would delay every dispatch");
        streamsDefault(md, streams, StreamsConfig.producerPrefix(ProducerConfig.BATCH_SIZE_CONFIG),
                "a burst filled the default 16 KB batches every 50-80 records, each full one waking the producer's sender from "
                        + "the stream thread: eight times fewer wake-ups and produce requests");
        streamsDefault(md, streams, StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG,
                "the lookup index's memtables are vectors of 2 MB, not skip lists of 16 MB: every decision writes the index and "
                        + "a few reads a second at most read it, and each accept puts a random executionId key, whose insert "
                        + "searched a skip list mostly out of the CPU caches (a sixth of an accept's CPU); a vector appends and is "
                        + "sorted once, when flushed, and a read of the memtable being written sorts a copy (2 MB bounds it). "
                        + "Every store read by key (all but the timer index) also keeps a bloom filter for its last sorted run, which "
                        + "Streams leaves out (optimize_filters_for_hits): each accept reads its taskId before the task exists, and "
                        + "without it that get of a missing key read the largest run's blocks (9 against 4 us in a store of 800,000 "
                        + "keys). Other settings keep Streams' defaults. A setter of your own replaces it");
        streamsDefault(md, streams, StreamsConfig.consumerPrefix(ConsumerConfig.MAX_POLL_RECORDS_CONFIG), "");
        streamsDefault(md, streams, StreamsConfig.mainConsumerPrefix(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG),
                "a partition assigned while a fetch waits at the broker is first fetched by the next fetch: 500 ms added "
                        + "seconds to a start-up's first tasks; an idle instance's broker pays more idle fetches");
        streamsDefault(md, streams, StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG),
                "a dead instance's partitions and timers move after 6 s (the brokers' smallest allowed), not 45 s");
        streamsDefault(md, streams, StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG),
                "a dead instance is noticed 5.5-6.5 s after it dies (its session expires 6 s after its last heartbeat, the "
                        + "survivors hear of it at their next one); 2000 made that 4-8 s");
        streamsDefault(md, streams, StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG,
                "with two or more instances, a warm copy of each partition's stores elsewhere: a takeover restores little");
        streamsDefault(md, streams, StreamsConfig.producerPrefix(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG),
                "a killed instance's open transaction blocks read_committed readers until the broker aborts it; "
                        + "Streams' 10 s would add to every failover (see OPERATIONS.md)");
        streamsDefault(md, streams, StreamsConfig.producerPrefix(ProducerConfig.RETRY_BACKOFF_MS_CONFIG),
                "`ax.wheel.tick.ms`: a transaction adding its offsets while the previous one's markers are still written gets "
                        + "CONCURRENT_TRANSACTIONS, and the stream thread waits inside the commit for the producer's retry (100 ms "
                        + "by default), due timers too");
        md.append("| `consumer.group.instance.id` | application id + host + instance name + hash of the state dir | static "
                        + "membership: an instance restarted in place takes its partitions back at once |\n");
        streamsDefault(md, streams, StreamsConfig.MAX_TASK_IDLE_MS_CONFIG,
                "the input topics need no timestamp alignment: never wait for an empty partition");
        connectionSection(md);
        return md.toString();
    }

    /** One row of the Streams settings table, its value read from what ax really passes to Kafka Streams. */
    private static void streamsDefault(StringBuilder md, Properties streams, String key, String why) {
        Object value = streams.get(key);
        if (value == null) {
            throw new IllegalStateException("ax does not set Streams key " + key);
        }
        md.append("| `").append(key).append("` | `").append(value).append("` | ").append(why).append(" |\n");
    }

    private static void connectionSection(StringBuilder md) {
        md.append("\n## Connection and security settings\n\n")
                .append("Given once at the top level (not prefixed), these apply to every Kafka client ax builds: Kafka Streams'\n")
                .append("consumers, producer and admin, the admin that sets up the topics, `./ax replay`, `./ax bench`, and `AxClient` /\n")
                .append("`AxWorker` given them with `connectionProperties(...)`. From the environment too, as `AX_KAFKA_<KEY>` (upper case,\n")
                .append("dots as underscores: `AX_KAFKA_SASL_JAAS_CONFIG`). Precedence, lowest first: environment, `--config` file, `-D`,\n")
                .append("`--bootstrap`; a `streams.`-prefixed key (`streams.security.protocol`, `streams.admin.ssl.keystore.location`)\n")
                .append("still wins for Kafka Streams' clients and the topic-setup admin. The keys (Kafka's client SSL and SASL keys of\n")
                .append("the Kafka version ax runs on, from `KafkaConnection.KEYS`):\n\n");
        md.append("- ").append(keys(key -> !key.startsWith("ssl.") && !key.startsWith("sasl."))).append('\n')
                .append("- ").append(keys(key -> key.startsWith("ssl."))).append('\n')
                .append("- ").append(keys(key -> key.startsWith("sasl."))).append('\n');
    }

    private static String keys(Predicate<String> which) {
        return KafkaConnection.KEYS.stream().filter(which).map(key -> "`" + key + "`").collect(Collectors.joining(", "));
    }

    private static String defaultText(ConfigDef.ConfigKey key) {
        if (AxConfig.STATE_DIR_CONFIG.equals(key.name)) {
            return "${java.io.tmpdir}/ax-state/<application.id>/<ax.instance.name>";
        }
        return String.valueOf(key.defaultValue);
    }

    /** Every bound an input must keep, from the constants the validation uses. */
    public static String limits() {
        return "# Input limits\n\n"
                + "Generated from the validation constants (a test fails when this file drifts). Every input is checked\n"
                + "against these before it is used, with work and memory bounded by the record's size; a record that breaks\n"
                + "one is answered `REJECTED` on `ax.state` with the reason (values in it quoted short: a prefix, the\n"
                + "length and a SHA-256 prefix), and the partition goes on. Because every field is bounded, so is every\n"
                + "output: see [DECISIONS.md](DECISIONS.md) for what happens to a record that still fails.\n\n"
                + "| what | limit |\n|---|---|\n"
                + "| record value, any input topic | `ax.max.payload.bytes` + " + OutputBounds.FIELDS_BYTES + " bytes (" 
                + OutputBounds.maxRecordBytes(ScheduleLimits.DEFAULT_MAX_PAYLOAD_BYTES) + " by default), checked before decoding |\n"
                + "| taskId (the key) | 1-" + ScheduleValidator.MAX_TASK_ID_CHARS + " chars, no control characters |\n"
                + "| jobType | 1-128 chars of `A-Z a-z 0-9 . _ : -` |\n"
                + "| payload | `ax.max.payload.bytes` (" + ScheduleLimits.DEFAULT_MAX_PAYLOAD_BYTES + " by default); JSON: kept byte for byte |\n"
                + "| owner | " + ScheduleValidator.MAX_OWNER_CHARS + " chars |\n"
                + "| instants (`at`, `startAt`, `endAt`, `reportedAt`, a retry's time, a record timestamp a delay counts from) | "
                + "1970-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z |\n"
                + "| `delayMs`, `everyMs`, `timeoutMs`, `backoffMs`, each backoff interval | up to " + ScheduleValidator.MAX_DELAY_MS
                + " ms (10 years); `everyMs` at least `ax.min.interval.ms` |\n"
                + "| `scheduleToStartTimeoutMs`, `startToCloseTimeoutMs`, `heartbeatTimeoutMs` | 1 to " + ScheduleValidator.MAX_DELAY_MS
                + " ms |\n"
                + "| `maxRetries` | 0-" + ScheduleValidator.MAX_RETRIES + " |\n"
                + "| `backoffIntervalsMs` | " + ScheduleValidator.MAX_BACKOFF_INTERVALS + " entries |\n"
                + "| `cron` / `zone` | " + ScheduleValidator.MAX_CRON_CHARS + " / " + ScheduleValidator.MAX_ZONE_CHARS
                + " chars; 5 fields (Unix) or 6-7 (Quartz); an IANA zone id |\n"
                + "| `endAt` (periodic only) | an instant as above, not before `startAt` nor before the first occurrence |\n"
                + "| `maxOccurrences` (periodic only) | at least 1 |\n"
                + "| `maxCatchUp` | 1-" + ScheduleValidator.MAX_CATCH_UP + " |\n"
                + "| `occurrenceJitterMs` (periodic only) | 0-" + ScheduleValidator.MAX_OCCURRENCE_JITTER_MS
                + " ms, and at most `everyMs` |\n"
                + "| `misfire` other than `FIRE_ONCE` | periodic only |\n"
                + "| `calendar` (periodic only) | a name like a taskId, of a calendar that exists and leaves the task an occurrence in the"
                + " next " + io.ax.app.internal.core.CalendarLimits.MAX_CHECKED + " occurrences or "
                + io.ax.validation.CalendarValidator.LOOK_AHEAD_DAYS + " days |\n"
                + "| calendar request (key = its name) | " + io.ax.calendar.ExclusionCalendar.MAX_DATES + " dates, "
                + io.ax.calendar.ExclusionCalendar.MAX_RANGES + " ranges, 7 weekdays, " + io.ax.calendar.ExclusionCalendar.MAX_DAILY_WINDOWS
                + " daily windows, a " + io.ax.calendar.ExclusionCalendar.MAX_DESCRIPTION_CHARS + "-char description; an IANA zone;"
                + " ISO dates 1970-9999, a range's from not after its to; windows HH:mm[:ss], from and to different; something left"
                + " unexcluded in the next " + io.ax.validation.CalendarValidator.LOOK_AHEAD_DAYS + " days |\n"
                + "| `after` (one-shot only) | " + ScheduleValidator.MAX_DEPENDENCIES + " tasks, each a valid taskId other than the"
                + " task's own, none twice, " + ScheduleValidator.MAX_DEPENDENCY_ID_CHARS + " chars of taskIds together;"
                + " a larger fan-in goes through intermediate tasks ([WORKFLOWS.md](WORKFLOWS.md)) |\n"
                + "| `afterDelayMs` / `afterTimeoutMs` | 0 / 1 ms up to " + ScheduleValidator.MAX_DELAY_MS + " ms; with `after` only |\n"
                + "| `shards` | 1-" + ScheduleValidator.MAX_SHARDS + "; not with overlap `ALLOW`; each slice beyond the first takes "
                + ScheduleValidator.SLICE_BYTES + " bytes of the payload limit (payload + (shards - 1) × " + ScheduleValidator.SLICE_BYTES
                + " ≤ `ax.max.payload.bytes`); `shardFailure` with `shards` above 1 only ([WORKFLOWS.md](WORKFLOWS.md)) |\n"
                + "| cancel, replay and trigger `reason` | " + ScheduleValidator.MAX_REASON_CHARS + " chars |\n"
                + "| report `executionId`, `workerId`; retry record `executionId` | " + ScheduleValidator.MAX_ID_CHARS + " chars |\n"
                + "| report `progress` | " + ScheduleValidator.MAX_PROGRESS_CHARS + " chars |\n"
                + "| report `extendMs` (HEARTBEAT) | cut to the task's `startToCloseTimeoutMs`; the deadline never goes beyond STARTED + "
                + "10 × `startToCloseTimeoutMs`; 0 or less, or without `startToCloseTimeoutMs`: no extension |\n"
                + "| report `message` | longer ones are truncated to " + ScheduleValidator.MAX_MESSAGE_CHARS
                + " chars (a failure report is never lost to its stack trace) |\n"
                + "| adopt (`./ax migrate`; Avro only, taken only with `ax.adopt.enabled=true`) | the stored task held to every bound"
                + " above; a stored execution state with the timers it needs; attempt at most `maxRetries` + 1; "
                + AdoptValidator.MAX_ERRORS + " errors; origin application id and topic " + AdoptValidator.MAX_ORIGIN_CHARS + " chars |\n"
                + "| JSON nesting (payload included) | " + JsonForms.MAX_NESTING_DEPTH + " levels |\n"
                + "| JSON | one object; a field named twice (at any depth but inside a payload, kept byte for byte) and content"
                + " after the object are refused; numbers of at most " + io.ax.codec.StrictJson.MAX_NUMBER_CHARS + " digits |\n"
                + "| `ax.calendars` record (every instance checks it again before storing it) | key a calendar name; value at most "
                + "65536 bytes, a `CalendarRequest` (Avro or JSON) within the calendar bounds above; otherwise not stored, counted "
                + "(`ax_calendar_records_refused`), logged |\n"
                + "| `ax.workers` record (worker announcement; the registry checks it before storing it) | key the worker's id, at most "
                + io.ax.validation.ScheduleValidator.MAX_ID_CHARS + " chars, no control characters; value at most "
                + io.ax.codec.WorkerAnnouncement.MAX_VALUE_BYTES + " bytes of JSON (rules above) whose `workerId` is the key; "
                + "`heartbeatMs` " + io.ax.codec.WorkerAnnouncement.MIN_HEARTBEAT_MS + "-" + io.ax.codec.WorkerAnnouncement.MAX_HEARTBEAT_MS
                + "; `host` " + io.ax.codec.WorkerAnnouncement.MAX_HOST_CHARS + " and `version` "
                + io.ax.codec.WorkerAnnouncement.MAX_VERSION_CHARS + " chars; " + io.ax.codec.WorkerAnnouncement.MAX_JOB_TYPES
                + " job types, " + io.ax.codec.WorkerAnnouncement.MAX_LANES + " lanes, "
                + io.ax.codec.WorkerAnnouncement.MAX_IN_FLIGHT_LISTED + " executions listed; counts up to "
                + io.ax.codec.WorkerAnnouncement.MAX_COUNT + "; at most `ax.workers.max` (1000) workers; otherwise not stored, "
                + "counted (`ax_worker_records_refused`), logged |\n"
                + "| `ax.flow` record | key a gate key of at most " + io.ax.app.internal.flow.FlowCodec.MAX_GATE_KEY_CHARS
                + " chars, on its partition (murmur2), naming its own gate; value at most 8192 bytes of JSON; otherwise skipped, "
                + "counted (`ax_flow_records_skipped`), logged |\n"
                + "| HTTP body | the record value bound above (`ax.max.payload.bytes` + 131072); a larger declared `Content-Length` is "
                + "answered 413 before anything is read; JSON read by the JSON rules above |\n"
                + "| HTTP connection | closed after `ax.http.idle.timeout.ms` (5000) without a byte (a body that does not come: 408, one "
                + "WARN line at most every 10 s); a body must come whole within the same time, however it trickles (else "
                + "the connection is closed; 408); a request Jetty cannot parse is answered 4xx (an unknown HTTP version 400, not 505); "
                + "`ax.http.max.connections` (256) open, `ax.http.threads` (32) handler threads, "
                + "`ax.http.max.data.requests` (16) data requests at once (503 beyond; `/health`, `/internal/health` and "
                + "`/metrics` are not counted) |\n"
                + "| HTTP query parameters | `dueBefore` an instant as above; `limit` 1-1000; `jobType` 128 and `owner` 256 chars; "
                + "`cursor` one the API gave out; out of range: 400 |\n"
                + "| log lines | every value from input quoted short (as in rejection reasons) in the message and the MDC |\n"
                + "| Avro | every length and count checked against the bytes left before Avro allocates; at most "
                + WireCodec.MAX_COLLECTION_ITEMS + " collection items per record |\n";
    }

    /** The execution state machine as a Mermaid diagram and a table, from {@link StateMachine#table()}. */
    public static String stateMachine() {
        StringBuilder md = new StringBuilder("# Execution state machine\n\n"
                + "Generated from `StateMachine` (the one table the scheduler checks every transition against; a test\n"
                + "fails when this file drifts). Every transition is an event on `ax.state`. Besides these states the\n"
                + "state topic carries `REJECTED` (bad input, with its source topic/partition/offset), `IGNORED` (input\n"
                + "that changes nothing: a duplicate request, a cancel of an unknown task, a stale report) and `SKIPPED`\n"
                + "(periodic occurrences that did not run: the previous one was still in flight, they were missed while\n"
                + "the scheduler was down and the task's misfire policy passed them over, or they came due while the task\n"
                + "was paused, or the task's exclusion calendar excluded them (`calendar` names it); `skipped` says how\n"
                + "many one event stands for, from `dueAt` to `lastDueAt`, see [PERIODIC.md](PERIODIC.md)). A calendar\n"
                + "request answered is a line `{\"calendar\":NAME,\"to\":\"ACCEPTED\",...}` without a taskId: `ACCEPTED` is\n"
                + "no task state, and such lines concern no task (a bad calendar is `REJECTED` like any input). The worker\n"
                + "registry writes lines `{\"worker\":ID,\"to\":\"DEAD\"|\"ALIVE\"|\"LEFT\",...}` (key = the worker's id), also\n"
                + "without a taskId: a worker silent for `ax.workers.missed.heartbeats` heartbeats is `DEAD`, with the executions\n"
                + "it had in flight (`inFlight`, `inFlightCount`); one that announces again is `ALIVE`; one that said goodbye is\n"
                + "`LEFT` (README, \"Worker registry\"). A task adopted\n"
                + "from another deployment (`./ax migrate`, [MIGRATION.md](MIGRATION.md)) is not a transition: each state it\n"
                + "brings along is restated once, with `from` equal to `to` and the reason `migrated from ...`.\n"
                + "Nor is `PENDING → PENDING` with a reason: an occurrence held, queued behind the execution in flight\n"
                + "(overlap `QUEUE_ONE`) or paused by request; a resume, or a schedule updated with `ifExists` `UPDATE`,\n"
                + "announces the next occurrence `PENDING` with its reason, and an update ends the old one `PENDING → CANCELLED`.\n"
                + "`PENDING → TRIGGERED` happens when the due time is reached, or at once on a trigger request (run now,\n"
                + "`{\"trigger\":true}`): a one-shot fires then, due then; a periodic task runs one extra occurrence\n"
                + "(`PENDING`, then `TRIGGERED`) and its next regular one stays due as it was.\n"
                + "Nor is `RUNNING → RUNNING`: a heartbeat asking for more running time (`extendMs`) moved the attempt's\n"
                + "start-to-close deadline, which the reason states. `TIMED_OUT` says in its reason which limit ended the\n"
                + "attempt (silence, schedule-to-start, start-to-close or heartbeat; see [TIMEOUTS.md](TIMEOUTS.md)).\n\n"
                + "Flow control ([FLOW-CONTROL.md](FLOW-CONTROL.md)) holds an execution of a limited job type or owner in its\n"
                + "state: `PENDING → PENDING` (or `RETRY_WAITING → RETRY_WAITING` for a retry) with the reason `held: ...`\n"
                + "naming the gate and the limit that holds it; the `TRIGGERED` event that ends the wait says which gates\n"
                + "granted it and after how long.\n\n"
                + "Owner live-task quotas (`maxLiveTasks`, [FLOW-CONTROL.md](FLOW-CONTROL.md)) add no state either. A new task\n"
                + "of an owner with a quota starts `PENDING` (`WAITING` with `after`) with the reason `awaiting admission: ...`:\n"
                + "stored, nothing timed or dispatched, until the owner's live gate answers. Admitted, it goes on as any\n"
                + "accepted task (`PENDING → PENDING` or `WAITING → WAITING`, `admitted by live:owner:<owner> ...` with the\n"
                + "count, its timer set then); refused, it ends `REJECTED` with the quota in the reason (`owner acme has 1000\n"
                + "of 1000 live tasks (maxLiveTasks)`) and is not kept. Cancelled or replaced while it awaits admission, it\n"
                + "ends `PENDING → CANCELLED` (`WAITING → CANCELLED`) as any task does.\n\n"
                + "A task whose request names tasks to wait for (`after`, [WORKFLOWS.md](WORKFLOWS.md)) starts `WAITING`, with\n"
                + "no execution yet; it moves to `PENDING` (due then, or `afterDelayMs` later, or at its own trigger's time)\n"
                + "once every condition is met, or to `CANCELLED` when one can no longer be met, its wait timed out\n"
                + "(`afterTimeoutMs`) or it was cancelled; each reason says which. `WAITING → WAITING` is not a transition: a\n"
                + "condition met, naming what it still waits for.\n\n"
                + "A sharded task (`shards` N, [WORKFLOWS.md](WORKFLOWS.md)) runs each occurrence as N slices, each its own\n"
                + "execution through this table; every slice's events carry `shard` (0 to N-1) and `shards` (N). The occurrence's\n"
                + "`PENDING` carries `shards` only. Once no slice has anything ahead, one event for the occurrence as a whole\n"
                + "(its own executionId, `shards` without `shard`) goes `RUNNING → SUCCESS` (every slice succeeded), `FAILED`\n"
                + "(a slice failed for good; the others were cancelled, `shardFailure` `CANCEL_OTHERS`, or had finished) or\n"
                + "`CANCELLED`.\n\n"
                + "```mermaid\nstateDiagram-v2\n    [*] --> PENDING\n    [*] --> WAITING\n");
        Map<TaskState, Set<TaskState>> table = StateMachine.table();
        table.forEach((from, targets) -> targets.forEach(to -> md.append("    ").append(from).append(" --> ").append(to).append('\n')));
        table.forEach((from, targets) -> {
            if (targets.isEmpty()) {
                md.append("    ").append(from).append(" --> [*]\n");
            }
        });
        md.append("```\n\n| from | to |\n|---|---|\n| (new) | PENDING, WAITING |\n");
        table.forEach((from, targets) -> md.append("| ").append(from).append(" | ")
                .append(targets.isEmpty() ? "(final)" : targets.stream().map(Enum::name).collect(Collectors.joining(", ")))
                .append(" |\n"));
        return md.toString();
    }
}
