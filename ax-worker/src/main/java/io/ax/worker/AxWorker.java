package io.ax.worker;

import io.ax.AxTopics;
import io.ax.codec.RegistryCodec;
import io.ax.codec.RegistrySettings;
import io.ax.KafkaConnection;
import io.ax.codec.AvroTrust;
import io.ax.worker.internal.Announcer;
import io.ax.worker.internal.BacklogLimits;
import io.ax.worker.internal.ClientConfigs;
import io.ax.worker.internal.DispatchLoop;
import io.ax.worker.internal.SlowRuns;
import io.ax.worker.internal.WorkerMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.ax.worker.internal.ExecutionRunner;
import io.ax.worker.internal.Heartbeats;
import io.ax.worker.internal.KafkaReportSink;
import io.ax.worker.internal.Outcomes;
import io.ax.worker.internal.Reports;
import io.ax.worker.internal.WorkerParts;
import io.ax.worker.internal.Sleeper;
import io.ax.worker.internal.WorkerIds;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes the dispatch topic in a consumer group, runs the {@link JobHandler} registered for each task's job
 * type, and reports STARTED, HEARTBEATs while it runs, then SUCCEEDED or FAILED to the results topic.
 *
 * <p>Guarantees: at-least-once (a dispatch's offset is committed only after its handler finished and its reports
 * were acknowledged, tracked per partition when handlers finish out of order; a crash means redelivery, never
 * loss); pair handlers with an idempotency guard ({@code io.ax.worker.idempotency}) for one effect per
 * executionId. Only committed dispatches are read ({@code read_committed}); a handler never starts before its
 * task's due time by this worker's clock (a dispatch that arrives early, in the scheduler's dispatch-ahead mode,
 * is held aside until then without taking a handler thread). Each job type runs at most its limit of handlers at
 * once on threads of its own, so a slow job type cannot delay another. A job type with {@link Builder#maxWaitingPerJobType}
 * dispatches waiting is backlogged, yet its dispatches are still taken, up to {@link Builder#maxOverflow} for all
 * backlogged types together, so other job types on the same partitions keep flowing; beyond that the worker pauses
 * the partitions the backlog comes from, and only those, until it drains (never drops, never stalls the poll loop).
 * A cancel signal interrupts the matching handler ({@link JobContext#isCancelled()}).
 *
 * <p>Bad input: a dispatch that cannot be decoded is reported FAILED (not retryable) with the reason and
 * committed past. A job type with no handler here is skipped, logged and counted ({@link #skippedUnknownJobType()}),
 * because another worker group may serve it; {@link Builder#failUnknownJobTypes()} reports it FAILED instead.
 *
 * <p>{@link #start()} runs the loop on its own non-daemon thread, which keeps the JVM alive like Kafka Streams'
 * threads; {@link #close(Duration)} shuts down gracefully. Loading this class makes Avro trust
 * {@code io.ax.schema}, so {@code -Dorg.apache.avro.SERIALIZABLE_PACKAGES} is not needed.
 */
public final class AxWorker implements AutoCloseable {
    static {
        AvroTrust.ensureAxSchemasTrusted();
    }

    private static final Logger log = LoggerFactory.getLogger(AxWorker.class);
    private static final double DEFAULT_SLOW_RUN_FACTOR = 3;
    private static final Duration DEFAULT_GRACE = Duration.ofSeconds(30);
    private static final Duration INTERRUPTED_HANDLERS_GRACE = Duration.ofSeconds(5);
    private static final Duration POLL_TIMEOUT = Duration.ofSeconds(1);
    private static final Duration DEFAULT_COMMIT_TIMEOUT = Duration.ofSeconds(2);
    private static final Duration MAX_COMMIT_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration DEFAULT_HEARTBEAT = Duration.ofSeconds(10);

    private enum State { CREATED, RUNNING, CLOSED }

    private final String workerId;
    private final DispatchLoop loop;
    private final Thread loopThread;
    private final AtomicReference<State> state = new AtomicReference<>(State.CREATED);

    private AxWorker(String workerId, DispatchLoop loop) {
        this.workerId = workerId;
        this.loop = loop;
        this.loopThread = new Thread(loop, "ax-worker-" + workerId);
    }

    /** Starts configuring a worker. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts consuming on the worker's own thread.
     *
     * @throws IllegalStateException when already started or closed
     */
    public void start() {
        if (!state.compareAndSet(State.CREATED, State.RUNNING)) {
            throw new IllegalStateException("AxWorker " + workerId + " cannot start: it is " + state.get());
        }
        loopThread.start();
        log.info("Worker {} started", workerId);
    }

    /** Same as {@link #close(Duration)} with a 30-second grace period. */
    @Override
    public void close() {
        close(DEFAULT_GRACE);
    }

    /**
     * Shuts down gracefully: stops fetching and starting handlers (dispatches not started yet are left for
     * redelivery), lets running handlers finish for up to {@code grace}, reporting and committing them; then
     * interrupts the ones still running, which are reported as retryable failures; a handler that ignores the
     * interrupt for 5 more seconds is reported retryable and left uncommitted. Finally closes the Kafka clients.
     * Blocks until done. Idempotent.
     */
    public void close(Duration grace) {
        Objects.requireNonNull(grace, "grace");
        State previous = state.getAndSet(State.CLOSED);
        if (previous == State.CLOSED) {
            return;
        }
        if (previous == State.CREATED) {
            loop.closeClients();
            return;
        }
        loop.stop();
        try {
            loopThread.join(Math.max(1, grace.toMillis()));
            if (loopThread.isAlive()) {
                log.warn("Worker {}: handlers still running after {}; interrupting them", workerId, grace);
                loop.interruptHandlers();
                loopThread.join(INTERRUPTED_HANDLERS_GRACE.toMillis());
            }
            if (loopThread.isAlive()) {
                loop.abandon();
                loopThread.join(INTERRUPTED_HANDLERS_GRACE.toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (loopThread.isAlive()) {
            log.error("Worker {} did not stop; its Kafka clients may stay open", workerId);
        } else {
            log.info("Worker {} closed", workerId);
        }
    }

    /** Whether the poll loop is running: false before {@link #start()}, after {@link #close()}, or after a fatal error. */
    public boolean isRunning() {
        return state.get() == State.RUNNING && loopThread.isAlive();
    }

    /**
     * Why the worker stopped on its own, if it did: a fatal Kafka error (a fenced static member, no authorization,
     * ...) or a {@link VirtualMachineError} in a handler. Transient errors (a coordinator outage, a timeout) never
     * stop it: its commits are retried with backoff. A stopped worker takes no more dispatches
     * ({@link #isRunning()} is false; the error was logged at ERROR); close it and build a new one. Empty unless it
     * stopped on its own.
     */
    public Optional<Throwable> failure() {
        return Optional.ofNullable(loop.failure());
    }

    /** This worker's id, carried on every report. */
    public String workerId() {
        return workerId;
    }

    /** How many dispatches had a job type no handler here serves (skipped, or reported FAILED in strict mode). */
    public long skippedUnknownJobType() {
        return loop.skippedUnknownJobType();
    }

    /** How many dispatch records could not be decoded (reported FAILED, not retryable, when their headers allowed). */
    public long undecodableDispatches() {
        return loop.undecodable();
    }

    /** Configures an {@link AxWorker}. Not thread-safe. */
    public static final class Builder {
        private String bootstrapServers;
        private String groupId = "ax-workers";
        private String workerId;
        private AxTopics topics = AxTopics.defaults();
        private Clock clock = Clock.systemUTC();
        private int concurrency = 4;
        private int maxWaitingPerJobType = 100;
        private int maxOverflow = 500;
        private boolean failUnknownJobTypes;
        private Duration commitTimeout = DEFAULT_COMMIT_TIMEOUT;
        private final Map<String, JobHandler> handlers = new LinkedHashMap<>();
        private final Map<String, Integer> limits = new HashMap<>();
        private final List<Class<? extends Throwable>> fatalExceptions = new ArrayList<>();
        private final Map<String, Object> consumerProperties = new HashMap<>();
        private final Map<String, Object> producerProperties = new HashMap<>();
        private final Map<String, Object> connectionProperties = new HashMap<>();
        private Consumer<String, byte[]> consumer;
        private Producer<String, byte[]> producer;
        private Sleeper sleeper = Sleeper.THREAD;
        private java.util.function.LongSupplier nanoTime = System::nanoTime;
        private double slowRunFactor = DEFAULT_SLOW_RUN_FACTOR;
        private long slowRunMinNanos = SlowRuns.DEFAULT_MIN_NANOS;
        private MeterRegistry meterRegistry;
        private Duration priorityAging = Duration.ofSeconds(1);
        private final Map<String, Integer> ownerWeights = new HashMap<>();
        private RegistrySettings registry;
        private Duration heartbeat = DEFAULT_HEARTBEAT;
        private boolean announce = true;

        private Builder() {
        }

        /**
         * Kafka's {@code bootstrap.servers}, e.g. {@code "localhost:9092"}. Required, unless
         * {@link #connectionProperties} gives it; this wins.
         */
        public Builder bootstrapServers(String bootstrapServers) {
            this.bootstrapServers = Objects.requireNonNull(bootstrapServers, "bootstrapServers");
            return this;
        }

        /**
         * How to reach the cluster, for both the dispatch consumer and the report producer: the connection and
         * security settings that every Kafka client of ax shares ({@code bootstrap.servers}, {@code security.protocol},
         * {@code ssl.*}, {@code sasl.*}: the keys of {@link KafkaConnection#KEYS}). Keys outside that set are left out,
         * so the settings of a whole ax config file can be passed as they are; the same file and {@code AX_KAFKA_*}
         * environment the scheduler reads:
         * <pre>{@code
         * AxWorker worker = AxWorker.builder()
         *         .connectionProperties(KafkaConnection.load(Path.of("ax.properties")))
         *         .handler("email", context -> Result.success())
         *         .build();
         * }</pre>
         * {@link #bootstrapServers}, {@link #consumerProperty} and {@link #producerProperty} win over these. A wrong
         * password or an untrusted certificate is fatal: the worker stops and {@link AxWorker#failure()} holds Kafka's
         * {@code AuthenticationException}. May be called more than once; later calls win per key.
         */
        public Builder connectionProperties(Map<String, ?> properties) {
            connectionProperties.putAll(KafkaConnection.select(Objects.requireNonNull(properties, "properties")));
            return this;
        }

        /**
         * How often the worker announces itself on the workers topic ({@code ax.workers}): its id, host, version, job
         * types, lanes with their limits and the executions it runs (README, "Worker registry"); default 10 s, from
         * 100 ms to 1 h. The scheduler lists it ({@code GET /workers}, {@code ./ax workers}) and declares it dead when it
         * has been silent for 3 of these (ax.workers.missed.heartbeats), naming its executions in flight. A graceful
         * {@link AxWorker#close} says goodbye (a tombstone), so the worker is listed as gone, not dead. The scheduler
         * creates the workers topic; against one that predates the registry, on a cluster that does not create topics
         * on demand, the first announcement waits the producer's {@code max.block.ms} (60 s) and the worker then stops
         * announcing (one WARN line): turn it off with {@link #announce announce(false)} there.
         */
        public Builder heartbeat(Duration heartbeat) {
            Objects.requireNonNull(heartbeat, "heartbeat");
            if (heartbeat.toMillis() < 100 || heartbeat.compareTo(Duration.ofHours(1)) > 0) {
                throw new IllegalArgumentException("heartbeat must be from 100 ms to 1 h: " + heartbeat);
            }
            this.heartbeat = heartbeat;
            return this;
        }

        /** Whether the worker announces itself at all (see {@link #heartbeat}); default true. */
        public Builder announce(boolean announce) {
            this.announce = announce;
            return this;
        }

        /** The consumer group; default {@code ax-workers}. Workers serving different job types use different groups. */
        public Builder groupId(String groupId) {
            this.groupId = Objects.requireNonNull(groupId, "groupId");
            return this;
        }

        /** Names this worker on its reports and as the Kafka client id; default {@code hostname-pid}. */
        public Builder workerId(String workerId) {
            this.workerId = Objects.requireNonNull(workerId, "workerId");
            return this;
        }

        /** Topic names; default prefix {@code ax.}. Must match the scheduler's. */
        public Builder topics(AxTopics topics) {
            this.topics = Objects.requireNonNull(topics, "topics");
            return this;
        }

        /** Decides when a task is due and stamps reports; default the system UTC clock. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** How many handlers of one job type may run at once, unless its handler was given a limit; default 4. */
        public Builder concurrency(int concurrency) {
            this.concurrency = requireAtLeastOne("concurrency", concurrency);
            return this;
        }

        /**
         * How many dispatches of one job type may wait for a free handler before the type is backlogged; default
         * 100. The dispatches of a backlogged type are still taken, into the {@link #maxOverflow overflow}.
         */
        public Builder maxWaitingPerJobType(int maxWaiting) {
            this.maxWaitingPerJobType = requireAtLeastOne("maxWaitingPerJobType", maxWaiting);
            return this;
        }

        /**
         * How many dispatches backlogged job types (see {@link #maxWaitingPerJobType}) may hold beyond their waiting
         * limit, all types together, before the worker pauses the partitions they come from; default 500. Up to
         * this, a slow job type's backlog holds back no other job type, on the same partitions neither; 0 pauses
         * those partitions as soon as a type is backlogged. Memory: at most {@code maxWaitingPerJobType} dispatches
         * per job type plus this, plus one poll's worth per partition.
         */
        public Builder maxOverflow(int maxOverflow) {
            if (maxOverflow < 0) {
                throw new IllegalArgumentException("maxOverflow must be >= 0: " + maxOverflow);
            }
            this.maxOverflow = maxOverflow;
            return this;
        }

        /**
         * How a lane orders the dispatches waiting for a free slot: highest priority first, with aging, so that a
         * dispatch of priority p is started before those of lower priority received up to (p − their priority) ×
         * {@code aging} before it, and no more (priority 0 waits, never starves). Default 1 s; zero: in the order
         * received.
         */
        public Builder priorityAging(Duration aging) {
            if (aging.isNegative()) {
                throw new IllegalArgumentException("priorityAging must not be negative: " + aging);
            }
            this.priorityAging = aging;
            return this;
        }

        /**
         * The weight of {@code owner} when owners share a lane (default 1 for every owner): while several owners have
         * dispatches waiting for a free slot of one job type, each starts in turn, an owner of weight w getting w starts
         * for one of a weight-1 owner, so one owner's thousands waiting never hold back another owner's few. One turn
         * is worth one priority level (see {@link #priorityAging}); inside one owner the order is priority with aging.
         */
        public Builder ownerWeight(String owner, int weight) {
            if (owner == null || owner.isEmpty()) {
                throw new IllegalArgumentException("owner must not be empty");
            }
            if (weight < 1 || weight > 1_000) {
                throw new IllegalArgumentException("weight of owner " + owner + " must be 1..1000: " + weight);
            }
            ownerWeights.put(owner, weight);
            return this;
        }

        /**
         * Records the worker's metrics into {@code registry} (names in topology-docs/METRICS.md: handler duration by job
         * type and outcome, dispatch-to-start wait by job type, handlers running, lane queue depth, paused partitions, redeliveries the idempotency guard
         * skipped); a Prometheus registry serves them to a scrape. Without one the worker records none.
         */
        public Builder meterRegistry(MeterRegistry registry) {
            this.meterRegistry = java.util.Objects.requireNonNull(registry, "registry");
            return this;
        }

        /**
         * How long one offset commit may wait for the group coordinator; default 2 seconds, from 1 ms to 60 s. Without
         * a bound a commit waits Kafka's {@code default.api.timeout.ms} (60 s) when the coordinator is unreachable, and
         * the poll loop does nothing else meanwhile: it is also what starts a dispatch held until its due time, or a
         * run waiting to run again, so those would start up to a minute late per attempt; with it, by this bound at
         * most. A commit that runs out of time is a transient failure: retried with backoff, together with whatever is
         * done by then, and never past a dispatch not done yet. The commits on a rebalance and at shutdown are bounded
         * too: one that runs out of time leaves those dispatches for redelivery (at-least-once). Keep it above the
         * coordinator's usual commit latency, or commits keep failing while it is merely slow.
         *
         * <p>Commits stay synchronous, each within this bound, rather than asynchronous: a commit that runs out of time
         * is then one more failed attempt for the same retry and backoff, and an offset counts as committed only once
         * the coordinator said so, with no commit in flight to keep track of.
         */
        public Builder commitTimeout(Duration commitTimeout) {
            Objects.requireNonNull(commitTimeout, "commitTimeout");
            if (commitTimeout.compareTo(Duration.ofMillis(1)) < 0 || commitTimeout.compareTo(MAX_COMMIT_TIMEOUT) > 0) {
                throw new IllegalArgumentException("commitTimeout must be from 1 ms to 60 s: " + commitTimeout);
            }
            this.commitTimeout = commitTimeout;
            return this;
        }

        /** Runs dispatches of {@code jobType} with {@code handler}, at most {@link #concurrency} at once. */
        public Builder handler(String jobType, JobHandler handler) {
            Objects.requireNonNull(jobType, "jobType");
            Objects.requireNonNull(handler, "handler");
            if (jobType.isBlank()) {
                throw new IllegalArgumentException("jobType must not be blank");
            }
            if (handlers.putIfAbsent(jobType, handler) != null) {
                throw new IllegalArgumentException("a handler is already registered for jobType " + jobType);
            }
            return this;
        }

        /** Runs dispatches of {@code jobType} with {@code handler}, at most {@code maxConcurrency} at once. */
        public Builder handler(String jobType, int maxConcurrency, JobHandler handler) {
            requireAtLeastOne("maxConcurrency of " + jobType, maxConcurrency);
            handler(jobType, handler);
            limits.put(jobType, maxConcurrency);
            return this;
        }

        /**
         * Exceptions (and their subclasses) that fail an attempt for good when a handler throws them; any other
         * exception is a retryable failure. May be called more than once.
         */
        @SafeVarargs
        public final Builder fatalExceptions(Class<? extends Throwable>... types) {
            for (Class<? extends Throwable> type : types) {
                fatalExceptions.add(Objects.requireNonNull(type, "fatal exception type"));
            }
            return this;
        }

        /**
         * Reads dispatches in the schema-registry wire format too (the scheduler's {@code ax.output.format=registry}),
         * fetching their writer schemas from this Confluent-compatible registry (e.g.
         * {@code RegistrySettings.of("http://localhost:8081")}). Without it such a dispatch is reported undecodable.
         */
        public Builder schemaRegistry(RegistrySettings registry) {
            this.registry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /**
         * Reports a dispatch whose job type has no handler here FAILED (not retryable) instead of skipping it.
         * Use it only when this worker group is the only one reading the dispatch topic.
         */
        public Builder failUnknownJobTypes() {
            this.failUnknownJobTypes = true;
            return this;
        }

        /**
         * Any Kafka consumer setting. Defaults: {@code auto.offset.reset=earliest}, {@code max.poll.records=500}.
         * Fixed, because the guarantees rest on them: {@code enable.auto.commit=false},
         * {@code isolation.level=read_committed}, the deserializers.
         */
        public Builder consumerProperty(String key, Object value) {
            consumerProperties.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, key));
            return this;
        }

        /** Any Kafka producer setting for reports. Fixed: {@code acks=all}, idempotence, the serializers. */
        public Builder producerProperty(String key, Object value) {
            producerProperties.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, key));
            return this;
        }

        // visible for testing: run against MockConsumer/MockProducer, wait with a driven clock
        Builder clients(Consumer<String, byte[]> consumer, Producer<String, byte[]> producer) {
            this.consumer = consumer;
            this.producer = producer;
            return this;
        }

        /**
         * Logs a WARN line, as it ends, for each run that took more than {@code factor} times the 95th percentile of its
         * job type's recent runs here (the last 100, once there are 20), naming its taskId, executionId and attempt:
         * the handler's own log lines of that execution carry the same ids. Default 3; 0 turns it off.
         */
        public Builder slowRunFactor(double factor) {
            this.slowRunFactor = SlowRuns.requireValidFactor(factor);
            return this;
        }

        /** The least time a run reported slow took (default 1 s): a shorter run is never slow, however fast its job type. */
        public Builder slowRunMin(java.time.Duration min) {
            if (min.isNegative()) {
                throw new IllegalArgumentException("slowRunMin must not be negative: " + min);
            }
            this.slowRunMinNanos = min.toNanos();
            return this;
        }

        // visible for testing: handler run times on a ticker the test drives
        Builder nanoTime(java.util.function.LongSupplier nanoTime) {
            this.nanoTime = nanoTime;
            return this;
        }

        // visible for testing
        Builder sleeper(Sleeper sleeper) {
            this.sleeper = sleeper;
            return this;
        }

        /** @throws IllegalStateException when no handler or no bootstrap servers were given */
        public AxWorker build() {
            if (handlers.isEmpty()) {
                throw new IllegalStateException("AxWorker has no handlers: call handler(jobType, handler)");
            }
            Map<String, Object> shared = new HashMap<>(connectionProperties);
            if (bootstrapServers != null) {
                shared.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
            }
            if (consumer == null && !shared.containsKey(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG)) {
                throw new IllegalStateException("AxWorker has no bootstrap servers: call bootstrapServers(\"host:port\")"
                        + " or give bootstrap.servers in connectionProperties(...)");
            }
            String id = workerId != null ? workerId : WorkerIds.defaultId();
            Map<String, Integer> laneLimits = new LinkedHashMap<>();
            handlers.keySet().forEach(jobType -> laneLimits.put(jobType, limits.getOrDefault(jobType, concurrency)));
            Consumer<String, byte[]> dispatches = consumer != null ? consumer
                    : new KafkaConsumer<>(ClientConfigs.consumer(null, groupId, id, ClientConfigs.layered(shared, consumerProperties)));
            Producer<String, byte[]> results;
            try {
                results = producer != null ? producer
                        : new KafkaProducer<>(ClientConfigs.producer(null, id, ClientConfigs.layered(shared, producerProperties)));
            } catch (RuntimeException e) {
                dispatches.close();
                throw e;
            }
            Reports reports = new Reports(id, clock);
            KafkaReportSink sink = new KafkaReportSink(results, topics.results());
            Heartbeats heartbeats = new Heartbeats(id);
            WorkerMetrics metrics = meterRegistry == null ? WorkerMetrics.none() : new WorkerMetrics(meterRegistry);
            ExecutionRunner runner = new ExecutionRunner(handlers, reports, sink, new Outcomes(fatalExceptions),
                    heartbeats, clock, sleeper, metrics, new SlowRuns(slowRunFactor, slowRunMinNanos), nanoTime);
            int threads = laneLimits.values().stream().mapToInt(Integer::intValue).sum();
            ExecutorService handlerThreads = Executors.newFixedThreadPool(threads, threadsNamed("ax-handler-" + id + "-"));
            WorkerParts parts = WorkerParts.builder()
                    .consumer(dispatches)
                    .producer(results)
                    .topics(topics)
                    .runner(runner)
                    .reports(reports)
                    .sink(sink)
                    .heartbeats(heartbeats)
                    .handlerThreads(handlerThreads)
                    .limits(laneLimits)
                    .backlogLimits(new BacklogLimits(maxWaitingPerJobType, maxOverflow))
                    .failUnknownJobTypes(failUnknownJobTypes)
                    .clock(clock)
                    .commitTimeout(commitTimeout)
                    .metrics(metrics)
                    .priorityAging(priorityAging)
                    .ownerWeights(ownerWeights)
                    .dispatchCodec(registry == null ? RegistryCodec.NONE : RegistryCodec.of(registry, clock))
                    .announcer(announce ? new Announcer(results, topics.workers(), id, WorkerIds.host(), heartbeat.toMillis(),
                            laneLimits, clock) : null)
                    .build();
            return new AxWorker(id, new DispatchLoop(parts, POLL_TIMEOUT));
        }

        private static int requireAtLeastOne(String name, int value) {
            if (value < 1) {
                throw new IllegalArgumentException(name + " must be >= 1: " + value);
            }
            return value;
        }

        private static ThreadFactory threadsNamed(String prefix) {
            AtomicInteger next = new AtomicInteger(1);
            return runnable -> new Thread(runnable, prefix + next.getAndIncrement());
        }
    }
}
