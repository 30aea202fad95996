package io.ax.app.config;

import io.ax.AxTopics;
import io.ax.KafkaConnection;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import io.ax.validation.ScheduleLimits;
import io.ax.validation.ScheduleValidator;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import io.ax.app.internal.metrics.MetricsSettings;
import io.ax.app.internal.quarantine.Quarantine;
import io.ax.app.internal.timer.TimingWheel;
import io.ax.app.internal.setup.OutputBounds;
import io.ax.app.internal.setup.TopicSetup;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The scheduler's configuration, in Kafka's idiom: {@code X_CONFIG}/{@code X_DOC} pairs in one
 * {@link ConfigDef}. Keys prefixed {@code streams.} are passed to Kafka Streams without the prefix (so
 * {@code streams.num.stream.threads=2}); {@code streams.producer.*}, {@code streams.consumer.*} and
 * {@code streams.admin.*} reach those clients. The docs' configuration table is generated from
 * {@link #CONFIG}.
 *
 * <p>The Kafka connection and security settings ({@code security.protocol}, {@code ssl.*}, {@code sasl.*}: the keys of
 * {@link KafkaConnection#KEYS}) are given once at the top level, undeclared here, and apply to every client the
 * scheduler builds: Kafka Streams' consumers, producer and admin ({@link #streamsProperties()}, where a
 * {@code streams.}-prefixed key still wins) and the admin that sets up the topics ({@link #setupAdminProperties()}).
 * Reading them from the environment as well ({@code AX_KAFKA_*}) is the loader's part ({@link KafkaConnection#load}).
 */
public final class AxConfig extends AbstractConfig {
    public static final String STREAMS_PREFIX = "streams.";

    public static final String BOOTSTRAP_SERVERS_CONFIG = "bootstrap.servers";
    private static final String BOOTSTRAP_SERVERS_DOC = "Kafka brokers to connect to, host:port[,host:port...].";

    public static final String APPLICATION_ID_CONFIG = "application.id";
    private static final String APPLICATION_ID_DOC = "Kafka Streams application id: names the consumer group, "
            + "transactional ids and internal (changelog) topics. Every instance of one scheduler shares it.";

    public static final String TOPIC_PREFIX_CONFIG = "ax.topic.prefix";
    private static final String TOPIC_PREFIX_DOC = "Prefix of ax's topic names (requests, dispatch, results, retry, state, dead-letter).";

    public static final String TOPIC_PARTITIONS_CONFIG = "ax.topic.partitions";
    private static final String TOPIC_PARTITIONS_DOC = "Partitions of topics the scheduler creates at startup when missing. "
            + "requests, results and retry must share one count; existing topics are checked, never changed.";

    public static final String TOPIC_REPLICATION_CONFIG = "ax.topic.replication.factor";
    private static final String TOPIC_REPLICATION_DOC = "Replication factor of topics created at startup; -1 = the broker's default.";

    public static final String STATE_DIR_CONFIG = "ax.state.dir";
    private static final String STATE_DIR_DOC = "Directory of this instance's local RocksDB stores (a cache of the changelog "
            + "topics). Empty (default): ${java.io.tmpdir}/ax-state/<application.id>/<ax.instance.name>, so instances "
            + "and applications on one host never share one. A second process on a directory in use is refused; a "
            + "directory holding another cluster's state is cleared at start, with one log line.";

    public static final String INSTANCE_NAME_CONFIG = "ax.instance.name";
    private static final String INSTANCE_NAME_DOC = "Name of this scheduler instance (./ax run --instance NAME): part of "
            + "its default state directory and of its static group membership. Give each instance on one host its own.";

    public static final String WHEEL_TICK_MS_CONFIG = "ax.wheel.tick.ms";
    public static final long DEFAULT_WHEEL_TICK_MS = 10L;
    private static final String WHEEL_TICK_MS_DOC = "Timing wheel tick and wall-clock punctuation interval, ms. "
            + "Timers fire at the first tick at or after their due time.";

    public static final String WHEEL_SIZE_CONFIG = "ax.wheel.size";
    private static final String WHEEL_SIZE_DOC = "Slots of the timing wheel (a power of two); tick x size is the in-memory horizon.";

    public static final String WHEEL_MAX_TIMERS_CONFIG = "ax.wheel.max.timers";
    private static final String WHEEL_MAX_TIMERS_DOC = "Most timers one partition holds in memory; refills from the "
            + "timer index pause above it (bounds memory when very many timers are due at once).";

    public static final String WHEEL_FAR_HORIZON_MS_CONFIG = "ax.wheel.far.horizon.ms";
    private static final String WHEEL_FAR_HORIZON_MS_DOC = "Timers due beyond the wheel's horizon and within this much "
            + "after it are held in memory alone, in a second level that moves them into the wheel as they come within its "
            + "horizon (at most a quarter of ax.wheel.max.timers of them; later timers, and the rest, go to the timer index). An "
            + "execution's timeout and a near retry or occurrence so cost no RocksDB write, and a timer given up leaves "
            + "memory at once instead of firing stale. 0: only the wheel's horizon is held in memory.";

    public static final String FIRE_BATCH_MAX_CONFIG = "ax.fire.batch.max";
    private static final String FIRE_BATCH_MAX_DOC = "Most timers one partition fires per punctuation, highest priority "
            + "first; the rest fire on the next one, so a crowded instant cannot stall the stream thread.";

    public static final String FIRE_BUDGET_MS_CONFIG = "ax.fire.budget.ms";
    private static final String FIRE_BUDGET_MS_DOC = "Longest one partition's punctuation fires timers, ms of wall clock; the "
            + "rest fire first at the next punctuation, which comes at once. A backlog due on a busy machine (every partition "
            + "firing up to ax.fire.batch.max in one pass of the stream thread) would otherwise keep one exactly-once "
            + "transaction open longer than the producer's transaction timeout (5 s): the broker aborts it, the stream thread "
            + "is fenced, rejoins and starts over, and firing stalls.";

    public static final String CLOCK_STEP_THRESHOLD_MS_CONFIG = "ax.clock.step.threshold.ms";
    private static final String CLOCK_STEP_THRESHOLD_MS_DOC = "A wall-clock step is noticed when, between two checks (every "
            + "punctuation and every poll), the wall clock moved this many ms more, or less, than the monotonic clock: one ERROR "
            + "line with both clocks and ax_clock_steps_total{direction}. Due times stay wall-clock instants: after a backward "
            + "step firing waits until the wall clock is back where it was (late by at most the step), after a forward step "
            + "what became due fires at once (topology-docs/TIMEOUTS.md, Clock steps).";

    public static final String DISPATCH_AHEAD_MS_CONFIG = "ax.dispatch.ahead.ms";
    private static final String DISPATCH_AHEAD_MS_DOC = "Opt-in dispatch-ahead mode: a due attempt is dispatched up to this "
            + "many ms before its due time, so the exactly-once commit that makes it visible has happened by then; the "
            + "worker SDK holds it until ax-due-at (other workers must do the same). 0 (default): no dispatch is visible "
            + "before its due time. At most 2000.";

    public static final String DEFAULT_TIMEOUT_MS_CONFIG = "ax.default.timeout.ms";
    private static final String DEFAULT_TIMEOUT_MS_DOC = "Execution timeout for tasks that set none, ms.";

    public static final String RETRY_BACKOFF_MS_CONFIG = "ax.retry.backoff.ms";
    private static final String RETRY_BACKOFF_MS_DOC = "Exponential backoff base for tasks that set neither backoffMs nor "
            + "backoffIntervalsMs, ms: retry n waits base x 2^(n-1), capped, with equal jitter (a delay d becomes [d/2, d)).";

    public static final String RETRY_BACKOFF_MAX_MS_CONFIG = "ax.retry.backoff.max.ms";
    private static final String RETRY_BACKOFF_MAX_MS_DOC = "Cap of the exponential backoff, ms (explicit backoffIntervalsMs are not capped).";

    public static final String RETENTION_MS_CONFIG = "ax.retention.ms";
    private static final String RETENTION_MS_DOC = "How long a finished task (succeeded, failed or cancelled, with no "
            + "occurrence ahead) stays in the task store, readable and replayable, ms; then it is purged from every store. "
            + "Its taskId is free for a new task from the moment it finished: ifExists protects only live tasks.";

    public static final String MAX_CLOCK_SKEW_MS_CONFIG = "ax.decision.max.clock.skew.ms";
    private static final String MAX_CLOCK_SKEW_MS_DOC = "Decisions follow the log: a timeout or a fire is decided only once the "
            + "inputs (reports, cancels) acknowledged before its time have been read. An input counts as read up to time T "
            + "when the consumer's position reached an end offset asked of the brokers at or after T, or when a record stamped later than T plus this skew has been read "
            + "(producers' clocks may run this far ahead of the scheduler's). Larger: safer against fast clocks, later "
            + "decisions while the scheduler is behind.";

    public static final String MAX_PAYLOAD_BYTES_CONFIG = "ax.max.payload.bytes";
    private static final String MAX_PAYLOAD_BYTES_DOC = "Largest task payload accepted, bytes; larger requests are rejected on the state topic.";

    public static final String MIN_INTERVAL_MS_CONFIG = "ax.min.interval.ms";
    private static final String MIN_INTERVAL_MS_DOC = "Shortest fixed interval accepted, ms.";

    public static final String MISFIRE_THRESHOLD_MS_CONFIG = "ax.misfire.threshold.ms";
    private static final String MISFIRE_THRESHOLD_MS_DOC = "A periodic occurrence whose timer fires more than this long after "
            + "its due time (the scheduler was down or behind) counts as missed: a task with misfire=SKIP does not run it "
            + "(SKIPPED on the state topic); FIRE_ONCE and FIRE_ALL run it late. Occurrences whose due time has already "
            + "passed when the one before them fires are missed whatever this setting; the task's misfire policy decides.";

    public static final String ADOPT_ENABLED_CONFIG = "ax.adopt.enabled";
    private static final String ADOPT_ENABLED_DOC = "Take AdoptRequest records on the requests topic: tasks handed over, in "
            + "whatever state they were, by ./ax migrate (topology-docs/MIGRATION.md). Off by default, so that a producer "
            + "cannot inject a task already RUNNING or with an executionId of its choosing; turn it on for the deployment "
            + "being migrated into, and off again once the last migrate run has been read. Refused adopts are REJECTED.";

    public static final String METRICS_JOB_TYPES_MAX_CONFIG = "ax.metrics.job.types.max";
    private static final String METRICS_JOB_TYPES_MAX_DOC = "Distinct job_type label values an instance's metrics keep "
            + "(topology-docs/METRICS.md); later job types are counted as job_type=\"_other\", so the series stay bounded.";

    public static final String METRICS_REFRESH_MS_CONFIG = "ax.metrics.refresh.ms";
    private static final String METRICS_REFRESH_MS_DOC = "How often each partition recomputes its gauges (pending and "
            + "overdue tasks, executions in flight and running long) from its stores, ms.";

    public static final String METRICS_LONG_RUNNING_MS_CONFIG = "ax.metrics.long.running.ms";
    private static final String METRICS_LONG_RUNNING_MS_DOC = "An execution in flight (dispatched, not finished) longer than "
            + "this counts in ax_executions_running_long and may be named by ax_long_running_execution_seconds, ms.";

    public static final String METRICS_LONG_RUNNING_LISTED_CONFIG = "ax.metrics.long.running.listed";
    private static final String METRICS_LONG_RUNNING_LISTED_DOC = "Most executions (the longest-running) that "
            + "ax_long_running_execution_seconds names, per instance.";

    public static final String METRICS_SCAN_MAX_CONFIG = "ax.metrics.scan.max";
    private static final String METRICS_SCAN_MAX_DOC = "Most timers (for ax_tasks_overdue) and executions in flight one "
            + "partition reads per refresh; past it a gauge reads this bound.";

    public static final String METRICS_LATE_FIRE_MS_CONFIG = "ax.metrics.late.fire.ms";
    private static final String METRICS_LATE_FIRE_MS_DOC = "An attempt fired later than this after its due time is named "
            + "(task, execution, owner) by ax_last_late_fire_seconds, the latest of each job type, for the lateness alert, ms.";

    public static final String PRIORITY_AGING_MS_CONFIG = "ax.priority.aging.ms";
    private static final String PRIORITY_AGING_MS_DOC = "When more timers are due than one punctuation fires (a burst, a "
            + "restart behind a backlog), they fire by due time minus priority x this, lowest first: a priority-9 task goes "
            + "before lower ones due up to 9 x this before it, and no more, so priority 0 is delayed, never starved. "
            + "0: by due time alone (priority ignored).";

    public static final String HISTORY_MAX_EVENTS_CONFIG = "ax.history.max.events";
    private static final String HISTORY_MAX_EVENTS_DOC = "How many of each task's latest state changes the scheduler keeps "
            + "(from, to, at, executionId, attempt, worker, due time, reason cut to 256 chars; older ones leave first), "
            + "in the task's own record: shown by GET /tasks/{id}, ./ax status and the console, and an execution stays findable "
            + "by id (GET /executions/{id}) while one of its changes is kept. A change costs no record of its own (the task "
            + "record is rewritten by the change anyway), only its bytes in it, at every save of the task (a full history of "
            + "50 is ~3 KB); the history is deleted with the task.";

    public static final String HANGING_TXN_CHECK_MS_CONFIG = "ax.hanging.transaction.check.ms";
    private static final String HANGING_TXN_CHECK_MS_DOC = "How often the scheduler checks its topics and changelogs for a "
            + "hanging transaction: records no coordinator will ever commit or abort (Kafka leaves them behind in rare "
            + "failures), behind which every read_committed reader of the partition waits for ever, a scheduler restoring "
            + "that changelog firing nothing. 0: never (topology-docs/OPERATIONS.md).";

    public static final String HANGING_TXN_MS_CONFIG = "ax.hanging.transaction.ms";
    private static final String HANGING_TXN_MS_DOC = "How long a transaction must be seen open on a partition before its "
            + "coordinator is asked whether it still has it; one it has finished with, or never had, is hanging.";

    public static final String HANGING_TXN_ABORT_CONFIG = "ax.hanging.transaction.abort";
    private static final String HANGING_TXN_ABORT_DOC = "Abort a hanging transaction of this scheduler's own producers "
            + "(transactional ids <application.id>-...) that its coordinator aborted, as kafka-transactions.sh abort would "
            + "(needs the cluster's ClusterAction permission). False, one its coordinator committed or no longer shows the "
            + "outcome of, or anyone else's: an ERROR line with the partition, the producer, the coordinator's view and the "
            + "command that ends it, and nothing done.";

    public static final String WORKERS_MAX_CONFIG = "ax.workers.max";
    private static final String WORKERS_MAX_DOC = "Most workers the worker registry keeps (alive and dead; README, \"Worker "
            + "registry\"): an announcement of a worker it does not know yet is refused beyond it (logged, counted in "
            + "ax_worker_records_refused, shown by GET /workers).";

    public static final String WORKERS_MISSED_HEARTBEATS_CONFIG = "ax.workers.missed.heartbeats";
    private static final String WORKERS_MISSED_HEARTBEATS_DOC = "A worker silent for this many of its own heartbeat intervals "
            + "(the heartbeatMs of its announcements) is declared dead, once the workers topic is read up to then (a scheduler "
            + "behind its inputs declares late, never wrongly): a DEAD line on the state topic naming its executions "
            + "in flight, and ax_workers_dead_total.";

    public static final String WORKERS_CHECK_MS_CONFIG = "ax.workers.check.ms";
    private static final String WORKERS_CHECK_MS_DOC = "How often the worker registry looks for silent workers, ms: a dead "
            + "worker is declared at most this late once the workers topic is read up to its death time.";

    public static final String WORKERS_DEAD_RETENTION_MS_CONFIG = "ax.workers.dead.retention.ms";
    private static final String WORKERS_DEAD_RETENTION_MS_DOC = "How long a dead worker stays listed by GET /workers, ms; "
            + "then the registry forgets it and tombstones its announcement on the workers topic.";

    public static final String HTTP_LISTEN_CONFIG = "ax.http.listen";
    private static final String HTTP_LISTEN_DOC = "Address of this instance's HTTP API (./ax run --http [HOST:]PORT): the tasks, "
            + "executions, listings, health and stats of the whole scheduler, and schedule/cancel/replay requests (README, "
            + "HTTP API). A port alone binds 127.0.0.1. Empty (default): no HTTP server. Every instance of one scheduler "
            + "should have one: an instance asks the others for the tasks they own.";

    public static final String HTTP_ADVERTISED_CONFIG = "ax.http.advertised";
    private static final String HTTP_ADVERTISED_DOC = "HOST:PORT at which the other instances reach this one's HTTP API "
            + "(Kafka Streams' application.server). Empty (default): the listen address, or this host's name when it "
            + "listens on all interfaces (0.0.0.0).";

    public static final String HTTP_TOKEN_CONFIG = "ax.http.token";
    private static final String HTTP_TOKEN_DOC = "Bearer token of the HTTP API (./ax run --http-token): when set, every "
            + "request must carry 'Authorization: Bearer <token>'. Required to listen on any address but loopback, and for "
            + "every POST (schedule, cancel, replay), which are refused (401) while no token is set. Give every instance "
            + "the same: they forward requests to each other with it.";

    public static final String HTTP_IDLE_TIMEOUT_MS_CONFIG = "ax.http.idle.timeout.ms";
    private static final String HTTP_IDLE_TIMEOUT_MS_DOC = "An HTTP connection that sends nothing for this long is closed: a "
            + "request whose body does not come (or stalls) is cut, its handler thread freed, with one WARN line at most.";

    public static final String HTTP_MAX_CONNECTIONS_CONFIG = "ax.http.max.connections";
    private static final String HTTP_MAX_CONNECTIONS_DOC = "Open HTTP connections at most; beyond, new ones wait in the accept "
            + "backlog until one closes.";

    public static final String HTTP_THREADS_CONFIG = "ax.http.threads";
    private static final String HTTP_THREADS_DOC = "HTTP handler threads at most (Jetty's pool).";

    public static final String HTTP_MAX_DATA_REQUESTS_CONFIG = "ax.http.max.data.requests";
    private static final String HTTP_MAX_DATA_REQUESTS_DOC = "Requests to the data endpoints (every one but /health, "
            + "/internal/health and /metrics) handled at once; the next is answered 503 at once, so the health endpoints keep "
            + "the other threads. At most ax.http.threads - 4.";

    public static final String SCHEMA_REGISTRY_URL_CONFIG = "ax.schema.registry.url";
    private static final String SCHEMA_REGISTRY_URL_DOC = "Root of a Confluent-compatible schema registry REST API (Confluent: "
            + "http://host:8081; Apicurio 3: http://host:8080/apis/ccompat/v7). When set, ax.requests and ax.results also take "
            + "the registry wire format (byte 0, 4-byte schema id, Avro binary: what KafkaAvroSerializer writes): the writer "
            + "schema is fetched by id (GET /schemas/ids/{id}), cached, and resolved against ax's schema. A record whose "
            + "schema cannot be had (unknown id, registry down, incompatible) is REJECTED with the reason, not retried "
            + "(README, Producing with a schema registry). Empty (default): no registry; such records are REJECTED.";
    public static final String SCHEMA_REGISTRY_USER_INFO_CONFIG = "ax.schema.registry.basic.auth.user.info";
    private static final String SCHEMA_REGISTRY_USER_INFO_DOC = "user:password for HTTP basic auth to the schema registry. "
            + "Empty (default): no auth.";
    public static final String SCHEMA_REGISTRY_TRUSTSTORE_CONFIG = "ax.schema.registry.ssl.truststore.location";
    private static final String SCHEMA_REGISTRY_TRUSTSTORE_DOC = "Trust store for an https schema registry. Empty (default): "
            + "the JVM's default trust.";
    public static final String SCHEMA_REGISTRY_TRUSTSTORE_PASSWORD_CONFIG = "ax.schema.registry.ssl.truststore.password";
    private static final String SCHEMA_REGISTRY_TRUSTSTORE_PASSWORD_DOC = "Password of the schema registry's trust store.";
    public static final String SCHEMA_REGISTRY_TRUSTSTORE_TYPE_CONFIG = "ax.schema.registry.ssl.truststore.type";
    private static final String SCHEMA_REGISTRY_TRUSTSTORE_TYPE_DOC = "Type of the schema registry's trust store (PKCS12, JKS).";
    public static final String SCHEMA_REGISTRY_TIMEOUT_MS_CONFIG = "ax.schema.registry.timeout.ms";
    private static final String SCHEMA_REGISTRY_TIMEOUT_MS_DOC = "Connect timeout and answer timeout of one schema registry "
            + "call; the whole exchange is bounded by twice it. A fetch runs on the stream thread the first time an id is seen.";
    public static final String SCHEMA_REGISTRY_BACKOFF_MS_CONFIG = "ax.schema.registry.failure.backoff.ms";
    private static final String SCHEMA_REGISTRY_BACKOFF_MS_DOC = "After a failed registry call (unreachable, timeout, 5xx), "
            + "records with an id not yet cached are REJECTED at once for this long, without calling the registry: a dead "
            + "registry costs each stream thread at most one timeout per period. An id the registry answered 404 for is "
            + "remembered as unknown for as long.";
    public static final String SCHEMA_REGISTRY_CACHE_MAX_CONFIG = "ax.schema.registry.cache.max";
    private static final String SCHEMA_REGISTRY_CACHE_MAX_DOC = "Most writer schemas (by id) kept in memory; the least "
            + "recently used is dropped past it.";
    public static final String OUTPUT_FORMAT_CONFIG = "ax.output.format";
    private static final String OUTPUT_FORMAT_DOC = "Wire format of the dispatch and dead-letter records: single-object "
            + "(default; Avro single-object encoding) or registry (byte 0, schema id, Avro binary, with the schemas registered "
            + "at startup under <topic>-value in ax.schema.registry.url, which must be set; workers then need the registry "
            + "too). ax.state stays JSON, ax.retry single-object.";
    public static final String OUTPUT_FORMAT_SINGLE_OBJECT = "single-object";
    public static final String OUTPUT_FORMAT_REGISTRY = "registry";

    public static final ConfigDef CONFIG = new ConfigDef()
            .define(BOOTSTRAP_SERVERS_CONFIG, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new ConfigDef.NonEmptyString(),
                    Importance.HIGH, BOOTSTRAP_SERVERS_DOC)
            .define(APPLICATION_ID_CONFIG, Type.STRING, "ax-scheduler", new ConfigDef.NonEmptyString(),
                    Importance.HIGH, APPLICATION_ID_DOC)
            .define(TOPIC_PREFIX_CONFIG, Type.STRING, AxTopics.DEFAULT_PREFIX, Importance.MEDIUM, TOPIC_PREFIX_DOC)
            .define(TOPIC_PARTITIONS_CONFIG, Type.INT, 6, Range.atLeast(1), Importance.MEDIUM, TOPIC_PARTITIONS_DOC)
            .define(TOPIC_REPLICATION_CONFIG, Type.SHORT, (short) -1, Importance.MEDIUM, TOPIC_REPLICATION_DOC)
            .define(STATE_DIR_CONFIG, Type.STRING, "", Importance.MEDIUM, STATE_DIR_DOC)
            .define(INSTANCE_NAME_CONFIG, Type.STRING, "default", instanceName(), Importance.MEDIUM, INSTANCE_NAME_DOC)
            .define(WHEEL_TICK_MS_CONFIG, Type.LONG, DEFAULT_WHEEL_TICK_MS, Range.between(1, 1000), Importance.MEDIUM, WHEEL_TICK_MS_DOC)
            .define(WHEEL_SIZE_CONFIG, Type.INT, 512, powerOfTwo(), Importance.LOW, WHEEL_SIZE_DOC)
            .define(WHEEL_MAX_TIMERS_CONFIG, Type.INT, 200_000, Range.atLeast(1), Importance.LOW, WHEEL_MAX_TIMERS_DOC)
            .define(WHEEL_FAR_HORIZON_MS_CONFIG, Type.LONG, 600_000L, Range.between(0, 86_400_000), Importance.LOW,
                    WHEEL_FAR_HORIZON_MS_DOC)
            .define(FIRE_BATCH_MAX_CONFIG, Type.INT, 5_000, Range.atLeast(1), Importance.LOW, FIRE_BATCH_MAX_DOC)
            .define(FIRE_BUDGET_MS_CONFIG, Type.LONG, 100L, Range.between(1, 1_000), Importance.LOW, FIRE_BUDGET_MS_DOC)
            .define(CLOCK_STEP_THRESHOLD_MS_CONFIG, Type.LONG, 1_000L, Range.between(1, 3_600_000), Importance.LOW,
                    CLOCK_STEP_THRESHOLD_MS_DOC)
            .define(DISPATCH_AHEAD_MS_CONFIG, Type.LONG, 0L, Range.between(0, 2000), Importance.LOW, DISPATCH_AHEAD_MS_DOC)
            .define(DEFAULT_TIMEOUT_MS_CONFIG, Type.LONG, 300_000L, Range.between(1, ScheduleValidator.MAX_DELAY_MS), Importance.MEDIUM, DEFAULT_TIMEOUT_MS_DOC)
            .define(RETRY_BACKOFF_MS_CONFIG, Type.LONG, 1_000L, Range.between(1, ScheduleValidator.MAX_DELAY_MS), Importance.MEDIUM, RETRY_BACKOFF_MS_DOC)
            .define(RETRY_BACKOFF_MAX_MS_CONFIG, Type.LONG, 600_000L, Range.between(1, ScheduleValidator.MAX_DELAY_MS), Importance.MEDIUM, RETRY_BACKOFF_MAX_MS_DOC)
            .define(RETENTION_MS_CONFIG, Type.LONG, 7L * 24 * 3600 * 1000, Range.between(0, ScheduleValidator.MAX_DELAY_MS), Importance.MEDIUM, RETENTION_MS_DOC)
            .define(MAX_CLOCK_SKEW_MS_CONFIG, Type.LONG, 1_000L, Range.between(0, 60_000), Importance.LOW, MAX_CLOCK_SKEW_MS_DOC)
            .define(MAX_PAYLOAD_BYTES_CONFIG, Type.INT, ScheduleLimits.DEFAULT_MAX_PAYLOAD_BYTES, Range.between(0, 8 * 1024 * 1024),
                    Importance.LOW, MAX_PAYLOAD_BYTES_DOC)
            .define(MIN_INTERVAL_MS_CONFIG, Type.LONG, ScheduleLimits.DEFAULT_MIN_INTERVAL_MS, Range.between(1, ScheduleValidator.MAX_DELAY_MS),
                    Importance.LOW, MIN_INTERVAL_MS_DOC)
            .define(MISFIRE_THRESHOLD_MS_CONFIG, Type.LONG, 60_000L, Range.between(0, ScheduleValidator.MAX_DELAY_MS),
                    Importance.LOW, MISFIRE_THRESHOLD_MS_DOC)
            .define(ADOPT_ENABLED_CONFIG, Type.BOOLEAN, false, Importance.LOW, ADOPT_ENABLED_DOC)
            .define(METRICS_JOB_TYPES_MAX_CONFIG, Type.INT, 100, Range.between(1, 10_000), Importance.LOW, METRICS_JOB_TYPES_MAX_DOC)
            .define(METRICS_REFRESH_MS_CONFIG, Type.LONG, 5_000L, Range.between(100, 3_600_000), Importance.LOW, METRICS_REFRESH_MS_DOC)
            .define(METRICS_LONG_RUNNING_MS_CONFIG, Type.LONG, 3_600_000L, Range.between(1, Long.MAX_VALUE), Importance.LOW,
                    METRICS_LONG_RUNNING_MS_DOC)
            .define(METRICS_LONG_RUNNING_LISTED_CONFIG, Type.INT, 10, Range.between(0, 1_000), Importance.LOW,
                    METRICS_LONG_RUNNING_LISTED_DOC)
            .define(METRICS_SCAN_MAX_CONFIG, Type.INT, 100_000, Range.between(1, 10_000_000), Importance.LOW, METRICS_SCAN_MAX_DOC)
            .define(METRICS_LATE_FIRE_MS_CONFIG, Type.LONG, 2_000L, Range.between(0, Long.MAX_VALUE), Importance.LOW,
                    METRICS_LATE_FIRE_MS_DOC)
            .define(PRIORITY_AGING_MS_CONFIG, Type.LONG, TimingWheel.DEFAULT_PRIORITY_AGING_MS, Range.between(0, 86_400_000L),
                    Importance.LOW, PRIORITY_AGING_MS_DOC)
            .define(HISTORY_MAX_EVENTS_CONFIG, Type.INT, 50, Range.between(1, 1000), Importance.LOW, HISTORY_MAX_EVENTS_DOC)
            .define(HANGING_TXN_CHECK_MS_CONFIG, Type.LONG, 10_000L, Range.between(0, 3_600_000), Importance.LOW,
                    HANGING_TXN_CHECK_MS_DOC)
            .define(HANGING_TXN_MS_CONFIG, Type.LONG, 30_000L, Range.between(1_000, 3_600_000), Importance.LOW,
                    HANGING_TXN_MS_DOC)
            .define(HANGING_TXN_ABORT_CONFIG, Type.BOOLEAN, true, Importance.LOW, HANGING_TXN_ABORT_DOC)
            .define(WORKERS_MAX_CONFIG, Type.INT, 1_000, Range.between(1, 100_000), Importance.LOW, WORKERS_MAX_DOC)
            .define(WORKERS_MISSED_HEARTBEATS_CONFIG, Type.INT, 3, Range.between(1, 100), Importance.LOW,
                    WORKERS_MISSED_HEARTBEATS_DOC)
            .define(WORKERS_CHECK_MS_CONFIG, Type.LONG, 1_000L, Range.between(10, 60_000), Importance.LOW, WORKERS_CHECK_MS_DOC)
            .define(WORKERS_DEAD_RETENTION_MS_CONFIG, Type.LONG, 3_600_000L, Range.between(0, 30L * 86_400_000), Importance.LOW,
                    WORKERS_DEAD_RETENTION_MS_DOC)
            .define(HTTP_LISTEN_CONFIG, Type.STRING, "", HttpAddress.validator(), Importance.MEDIUM, HTTP_LISTEN_DOC)
            .define(HTTP_ADVERTISED_CONFIG, Type.STRING, "", HttpAddress.validator(), Importance.LOW, HTTP_ADVERTISED_DOC)
            .define(HTTP_TOKEN_CONFIG, Type.PASSWORD, null, Importance.MEDIUM, HTTP_TOKEN_DOC)
            .define(HTTP_IDLE_TIMEOUT_MS_CONFIG, Type.LONG, 5_000L, Range.between(100, 300_000), Importance.LOW,
                    HTTP_IDLE_TIMEOUT_MS_DOC)
            .define(HTTP_MAX_CONNECTIONS_CONFIG, Type.INT, 256, Range.between(1, 100_000), Importance.LOW,
                    HTTP_MAX_CONNECTIONS_DOC)
            .define(HTTP_THREADS_CONFIG, Type.INT, 32, Range.between(8, 1_000), Importance.LOW, HTTP_THREADS_DOC)
            .define(HTTP_MAX_DATA_REQUESTS_CONFIG, Type.INT, 16, Range.between(1, 996), Importance.LOW,
                    HTTP_MAX_DATA_REQUESTS_DOC)
            .define(SCHEMA_REGISTRY_URL_CONFIG, Type.STRING, "", Importance.MEDIUM, SCHEMA_REGISTRY_URL_DOC)
            .define(SCHEMA_REGISTRY_USER_INFO_CONFIG, Type.PASSWORD, null, Importance.MEDIUM, SCHEMA_REGISTRY_USER_INFO_DOC)
            .define(SCHEMA_REGISTRY_TRUSTSTORE_CONFIG, Type.STRING, "", Importance.LOW, SCHEMA_REGISTRY_TRUSTSTORE_DOC)
            .define(SCHEMA_REGISTRY_TRUSTSTORE_PASSWORD_CONFIG, Type.PASSWORD, null, Importance.LOW, SCHEMA_REGISTRY_TRUSTSTORE_PASSWORD_DOC)
            .define(SCHEMA_REGISTRY_TRUSTSTORE_TYPE_CONFIG, Type.STRING, "PKCS12", Importance.LOW, SCHEMA_REGISTRY_TRUSTSTORE_TYPE_DOC)
            .define(SCHEMA_REGISTRY_TIMEOUT_MS_CONFIG, Type.LONG, 2_000L, Range.between(100, 60_000), Importance.LOW, SCHEMA_REGISTRY_TIMEOUT_MS_DOC)
            .define(SCHEMA_REGISTRY_BACKOFF_MS_CONFIG, Type.LONG, 30_000L, Range.between(0, 3_600_000), Importance.LOW, SCHEMA_REGISTRY_BACKOFF_MS_DOC)
            .define(SCHEMA_REGISTRY_CACHE_MAX_CONFIG, Type.INT, 1_000, Range.between(1, 100_000), Importance.LOW, SCHEMA_REGISTRY_CACHE_MAX_DOC)
            .define(OUTPUT_FORMAT_CONFIG, Type.STRING, OUTPUT_FORMAT_SINGLE_OBJECT,
                    ConfigDef.ValidString.in(OUTPUT_FORMAT_SINGLE_OBJECT, OUTPUT_FORMAT_REGISTRY), Importance.LOW, OUTPUT_FORMAT_DOC);

    public AxConfig(Map<?, ?> props) {
        super(CONFIG, props, false);
        if (registryOutput() && getString(SCHEMA_REGISTRY_URL_CONFIG).isBlank()) {
            throw new org.apache.kafka.common.config.ConfigException(OUTPUT_FORMAT_CONFIG, OUTPUT_FORMAT_REGISTRY,
                    "needs " + SCHEMA_REGISTRY_URL_CONFIG);
        }
        try {
            registrySettings();
        } catch (IllegalArgumentException e) {
            throw new org.apache.kafka.common.config.ConfigException(SCHEMA_REGISTRY_URL_CONFIG, getString(SCHEMA_REGISTRY_URL_CONFIG), e.getMessage());
        }
        httpListen().ifPresent(listen -> {
            if (!listen.isLoopback() && httpToken().isEmpty()) {
                throw new org.apache.kafka.common.config.ConfigException(HTTP_LISTEN_CONFIG, listen.toString(),
                        "listening on an address other than loopback needs " + HTTP_TOKEN_CONFIG + " (--http-token)");
            }
        });
    }

    /** The schema registry of {@code ax.schema.registry.*}, if its url is set. */
    public java.util.Optional<io.ax.codec.RegistrySettings> registrySettings() {
        String url = getString(SCHEMA_REGISTRY_URL_CONFIG);
        if (url.isBlank()) {
            return java.util.Optional.empty();
        }
        org.apache.kafka.common.config.types.Password userInfo = getPassword(SCHEMA_REGISTRY_USER_INFO_CONFIG);
        org.apache.kafka.common.config.types.Password trustPassword = getPassword(SCHEMA_REGISTRY_TRUSTSTORE_PASSWORD_CONFIG);
        String truststore = getString(SCHEMA_REGISTRY_TRUSTSTORE_CONFIG);
        return java.util.Optional.of(new io.ax.codec.RegistrySettings(java.net.URI.create(url.strip()),
                userInfo == null || userInfo.value().isEmpty() ? null : userInfo.value(), truststore.isBlank() ? null : truststore,
                trustPassword == null ? null : trustPassword.value(), getString(SCHEMA_REGISTRY_TRUSTSTORE_TYPE_CONFIG),
                java.time.Duration.ofMillis(getLong(SCHEMA_REGISTRY_TIMEOUT_MS_CONFIG)), getInt(SCHEMA_REGISTRY_CACHE_MAX_CONFIG),
                java.time.Duration.ofMillis(getLong(SCHEMA_REGISTRY_BACKOFF_MS_CONFIG))));
    }

    /** Whether dispatches and dead letters are written in the registry wire format ({@code ax.output.format=registry}). */
    public boolean registryOutput() {
        return OUTPUT_FORMAT_REGISTRY.equals(getString(OUTPUT_FORMAT_CONFIG));
    }

    /** Where this instance's HTTP API listens, if it has one. */
    public java.util.Optional<HttpAddress> httpListen() {
        String listen = getString(HTTP_LISTEN_CONFIG);
        return listen.isBlank() ? java.util.Optional.empty() : java.util.Optional.of(HttpAddress.parse(listen));
    }

    /** Where the other instances reach this one's HTTP API (Kafka Streams' application.server), if it has one. */
    public java.util.Optional<HttpAddress> httpAdvertised() {
        String advertised = getString(HTTP_ADVERTISED_CONFIG);
        if (!advertised.isBlank()) {
            return java.util.Optional.of(HttpAddress.parse(advertised));
        }
        return httpListen().map(HttpAddress::advertisable);
    }

    /** The HTTP API's bearer token, if one is set. */
    public java.util.Optional<String> httpToken() {
        org.apache.kafka.common.config.types.Password token = getPassword(HTTP_TOKEN_CONFIG);
        return token == null || token.value().isEmpty() ? java.util.Optional.empty() : java.util.Optional.of(token.value());
    }

    private static ConfigDef.Validator powerOfTwo() {
        return ConfigDef.LambdaValidator.with((name, value) -> {
            int n = (Integer) value;
            if (n < 2 || Integer.bitCount(n) != 1) {
                throw new org.apache.kafka.common.config.ConfigException(name, value, "must be a power of two >= 2");
            }
        }, () -> "a power of two >= 2");
    }

    private static ConfigDef.Validator instanceName() {
        return ConfigDef.LambdaValidator.with((name, value) -> {
            if (!String.valueOf(value).matches("[A-Za-z0-9._-]{1,64}")) {
                throw new org.apache.kafka.common.config.ConfigException(name, value, "must be 1-64 chars of A-Z a-z 0-9 . _ -");
            }
        }, () -> "1-64 chars of A-Z a-z 0-9 . _ -");
    }

    /** This instance's state directory: {@code ax.state.dir}, or one of its own under the temp dir. */
    public Path stateDir() {
        String configured = getString(STATE_DIR_CONFIG);
        Path dir = configured.isBlank()
                ? Path.of(System.getProperty("java.io.tmpdir"), "ax-state", getString(APPLICATION_ID_CONFIG), getString(INSTANCE_NAME_CONFIG))
                : Path.of(configured);
        return dir.toAbsolutePath().normalize();
    }

    /** The static group member id: application id, host, and a hash of the state dir (unique per live instance). */
    String instanceId() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            host = "unknown-host";
        }
        return getString(APPLICATION_ID_CONFIG) + "-" + host + "-" + getString(INSTANCE_NAME_CONFIG) + "-"
                + Integer.toHexString(stateDir().toString().hashCode());
    }

    public AxTopics topics() {
        return new AxTopics(getString(TOPIC_PREFIX_CONFIG));
    }

    public ScheduleLimits limits() {
        return new ScheduleLimits(getInt(MAX_PAYLOAD_BYTES_CONFIG), getLong(MIN_INTERVAL_MS_CONFIG));
    }

    /** The largest record the scheduler writes (see {@link OutputBounds}). */
    public int maxRecordBytes() {
        return OutputBounds.maxRecordBytes(getInt(MAX_PAYLOAD_BYTES_CONFIG));
    }

    /** The connection and security settings given at the top level (see {@link KafkaConnection}). */
    public Map<String, Object> connectionProperties() {
        return KafkaConnection.select(originals());
    }

    /**
     * The settings of the admin client that creates and checks the topics at startup: it connects as Kafka Streams'
     * own admin client does. The top-level connection settings, then {@code streams.<key>}, then
     * {@code streams.admin.<key>} of the connection keys, each winning over the one before.
     */
    public Map<String, Object> setupAdminProperties() {
        Map<String, Object> props = new HashMap<>(connectionProperties());
        props.putAll(KafkaConnection.select(originalsWithPrefix(STREAMS_PREFIX)));
        props.putAll(KafkaConnection.select(originalsWithPrefix(STREAMS_PREFIX + StreamsConfig.ADMIN_CLIENT_PREFIX)));
        props.put(AdminClientConfig.CLIENT_ID_CONFIG, getString(APPLICATION_ID_CONFIG) + "-topic-setup");
        return props;
    }

    /** The bounds and periods of the scheduler's metrics. */
    /** The worker registry's settings ({@code ax.workers.*}). */
    public io.ax.app.internal.workers.WorkerRegistrySettings workerRegistry() {
        return new io.ax.app.internal.workers.WorkerRegistrySettings(getInt(WORKERS_MAX_CONFIG),
                getInt(WORKERS_MISSED_HEARTBEATS_CONFIG), getLong(WORKERS_CHECK_MS_CONFIG), getLong(WORKERS_DEAD_RETENTION_MS_CONFIG));
    }

    public MetricsSettings metricsSettings() {
        return new MetricsSettings(getInt(METRICS_JOB_TYPES_MAX_CONFIG), getLong(METRICS_REFRESH_MS_CONFIG),
                getLong(METRICS_LONG_RUNNING_MS_CONFIG), getInt(METRICS_LONG_RUNNING_LISTED_CONFIG), getInt(METRICS_SCAN_MAX_CONFIG),
                getLong(METRICS_LATE_FIRE_MS_CONFIG));
    }

    public long tickMs() {
        return getLong(WHEEL_TICK_MS_CONFIG);
    }

    /**
     * Kafka Streams' properties: the top-level connection settings (for every Streams client), ax's defaults, tuned
     * for firing latency (see topology-docs/CONFIG.md), then every {@code streams.}-prefixed key, which wins.
     */
    public Properties streamsProperties() {
        Properties props = new Properties();
        props.putAll(connectionProperties());
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, getString(BOOTSTRAP_SERVERS_CONFIG));
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, getString(APPLICATION_ID_CONFIG));
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir().toString());
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        // Under exactly-once a dispatch is visible only when its transaction commits: commit often.
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 50);
        // An idle stream thread blocks in poll() for poll.ms; ax's consumer returns early when a timer is due
        // (TimerAwareConsumer), so a long poll keeps an idle scheduler cheap without making timers late.
        props.put(StreamsConfig.POLL_MS_CONFIG, 100);
        props.put(StreamsConfig.producerPrefix("linger.ms"), 5);
        // A burst fills 16 KB batches (the producer's default) every 50-80 records, and each full batch wakes the sender
        // thread from the stream thread: 128 KB makes eight times fewer of those wake-ups and of produce requests.
        props.put(StreamsConfig.producerPrefix("batch.size"), 131_072);
        // The lookup index's memtables are 2 MB vectors instead of 16 MB skip lists: written by every decision, read a few
        // times a second, and its random executionId keys searched a skip list missing the caches (AxRocksDBConfig).
        props.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, io.ax.app.internal.store.AxRocksDBConfig.class.getName());
        // A partition that becomes fetchable while a fetch waits at the broker (assigned at start-up or in a takeover,
        // its position just reset) is first asked for by the next fetch, up to fetch.max.wait.ms (500 ms) later, each
        // time; at start-up that added seconds to the first tasks (./ax bench startup, first task late: 3.8-4.4 s with
        // 500 ms, 1.4-3.7 s with 50 ms, 1.3-2.3 s with 100 ms; BENCHMARKS.md). The price is idle fetches: an idle
        // instance's broker CPU went from 7.6 % to 12.1 % of a core with 100 ms (13.6 % with 50 ms), one run each.
        props.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG), 100);
        // Failover: a dead instance's partitions (and so its timers) move after the session timeout, not Kafka's 45 s;
        // 6 s is the brokers' smallest allowed (group.min.session.timeout.ms), with three heartbeats in it. A standby
        // replica keeps a warm copy of each partition's stores on another instance, so the takeover restores little.
        // Measured (./ax bench failover, BENCHMARKS.md): firing gap 14.5 s (no standby, 10 s) -> 11.2 s (standby)
        // -> 8.2 s (standby, 6 s).
        // The heartbeat decides the rest of the detection: a dead member expires a session timeout after its last
        // heartbeat (up to one interval before the kill), and the survivors learn of the rebalance at their next
        // heartbeat (up to one interval after): with 2 s the takeover began 4-8 s after a kill, with 500 ms 5.5-6.5 s
        // (./ax bench failover --instances 3, two kill -9 on a loaded 2-core box: worst gap 9.9, 12.1, 14.1 s with 2 s;
        // 9.3, 10.2, 11.7, 12.5 s with 500 ms; BENCHMARKS.md). Two heartbeats a second per instance cost the coordinator
        // nothing worth counting.
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 6_000);
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 500);
        props.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, 1);
        // A killed instance leaves its last transaction open, and read_committed readers (workers on ax.dispatch,
        // the survivor restoring changelogs and reading ax.retry) wait behind it until the broker aborts it: after
        // transaction.timeout.ms (Streams' default 10 s) plus up to the broker's
        // transaction.abort.timed.out.transaction.cleanup.interval.ms. ax commits every 50 ms, so 5 s is ample for
        // one transaction. Measured (./ax bench failover, cleanup interval 1 s): firing gap 11.2 s -> 6.5 s.
        props.put(StreamsConfig.producerPrefix(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG), 5_000);
        // A transaction that adds its offsets while the previous one's commit markers are still being written gets
        // CONCURRENT_TRANSACTIONS from the group coordinator, and the producer sends again after retry.backoff.ms: 100 ms
        // by default, for which the stream thread waits inside the commit, timers due or not (seen at each start-up, and
        // whenever two commits come close together). A tick instead: a due timer waits no longer than a tick for it.
        props.put(StreamsConfig.producerPrefix(ProducerConfig.RETRY_BACKOFF_MS_CONFIG), tickMs());
        // Static membership: an instance restarted on the same host and state dir takes its partitions back at
        // once instead of waiting for its old session to time out. Two live instances never share both.
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG), instanceId());
        // Requests, results and retries need no timestamp alignment across partitions: never wait for an empty one.
        props.put(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG, -1L);
        props.put(StreamsConfig.consumerPrefix("max.poll.records"), 2000);
        // The producer must send the largest record the scheduler can write (a large ax.max.payload.bytes).
        props.put(StreamsConfig.producerPrefix(ProducerConfig.MAX_REQUEST_SIZE_CONFIG),
                Math.max(maxRecordBytes() + 1024, TopicSetup.DEFAULT_MAX_MESSAGE_BYTES));
        Quarantine.configure(props, topics().quarantine());
        // Instances find each other's HTTP API through Streams' metadata (queryMetadataForKey, streamsMetadataForStore).
        httpAdvertised().ifPresent(address -> props.put(StreamsConfig.APPLICATION_SERVER_CONFIG, address.toString()));
        Map<String, Object> overrides = new HashMap<>(originalsWithPrefix(STREAMS_PREFIX));
        props.putAll(overrides);
        return props;
    }
}
