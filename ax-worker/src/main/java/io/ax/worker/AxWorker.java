package io.ax.worker;

import io.ax.AxTopics;
import io.ax.codec.AvroTrust;
import io.ax.worker.internal.ClientConfigs;
import io.ax.worker.internal.DispatchLoop;
import io.ax.worker.internal.DispatchRunner;
import io.ax.worker.internal.Reports;
import io.ax.worker.internal.Sleeper;
import io.ax.worker.internal.WorkerIds;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes the dispatch topic in a consumer group, runs the {@link JobHandler} registered for each task's job
 * type, and reports STARTED and then SUCCEEDED or FAILED to the results topic.
 *
 * <p>Guarantees: at-least-once (a batch's offsets are committed only after its handlers finished and their
 * reports were acknowledged; a crash redelivers); only committed dispatches are read
 * ({@code read_committed}); a handler never starts before its task's due time by this worker's clock.
 * Dispatches whose job type has no handler here are skipped without a report, because another worker group
 * may serve them (see {@link #skippedUnknownJobType()}); cancel signals are ignored for now.
 *
 * <p>{@link #start()} runs the loop on its own non-daemon thread, which keeps the JVM alive like Kafka
 * Streams' threads; {@link #close()} stops it. Loading this class makes Avro trust {@code io.ax.schema}, so
 * {@code -Dorg.apache.avro.SERIALIZABLE_PACKAGES} is not needed.
 */
public final class AxWorker implements AutoCloseable {
    static {
        AvroTrust.ensureAxSchemasTrusted();
    }

    private static final Logger log = LoggerFactory.getLogger(AxWorker.class);
    private static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration INTERRUPTED_HANDLERS_GRACE = Duration.ofSeconds(5);
    private static final Duration POLL_TIMEOUT = Duration.ofSeconds(1);

    private enum State { CREATED, RUNNING, CLOSED }

    private final String workerId;
    private final DispatchRunner runner;
    private final DispatchLoop loop;
    private final ExecutorService handlerThreads;
    private final Thread loopThread;
    private final AtomicReference<State> state = new AtomicReference<>(State.CREATED);

    private AxWorker(String workerId, DispatchRunner runner, DispatchLoop loop, ExecutorService handlerThreads) {
        this.workerId = workerId;
        this.runner = runner;
        this.loop = loop;
        this.handlerThreads = handlerThreads;
        this.loopThread = new Thread(loop, "ax-worker-" + workerId);
    }

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

    /** Same as {@link #close(Duration)} with 30 seconds. */
    @Override
    public void close() {
        close(DEFAULT_CLOSE_TIMEOUT);
    }

    /**
     * Stops polling, lets the running batch finish and commit for up to {@code timeout}, then interrupts the
     * handlers still running (their dispatches are redelivered) and closes the Kafka clients. Idempotent.
     */
    public void close(Duration timeout) {
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
            loopThread.join(Math.max(1, timeout.toMillis()));
            if (loopThread.isAlive()) {
                log.warn("Worker {}: handlers still running after {}; interrupting them", workerId, timeout);
                handlerThreads.shutdownNow();
                loopThread.join(INTERRUPTED_HANDLERS_GRACE.toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (loopThread.isAlive()) {
            log.error("Worker {} did not stop: a handler ignores interruption; its Kafka clients stay open", workerId);
        } else {
            log.info("Worker {} closed", workerId);
        }
    }

    /** Whether the poll loop is running: false before {@link #start()}, after {@link #close()}, or after a fatal error. */
    public boolean isRunning() {
        return state.get() == State.RUNNING && loopThread.isAlive();
    }

    /** This worker's id, carried on every report. */
    public String workerId() {
        return workerId;
    }

    /** How many dispatches were skipped because no handler here serves their job type. */
    public long skippedUnknownJobType() {
        return runner.skippedUnknownJobType();
    }

    /** Configures an {@link AxWorker}. Not thread-safe. */
    public static final class Builder {
        private String bootstrapServers;
        private String groupId = "ax-workers";
        private String workerId;
        private AxTopics topics = AxTopics.defaults();
        private Clock clock = Clock.systemUTC();
        private int concurrency = 4;
        private final Map<String, JobHandler> handlers = new LinkedHashMap<>();
        private final Map<String, Object> consumerProperties = new HashMap<>();
        private final Map<String, Object> producerProperties = new HashMap<>();
        private Consumer<String, byte[]> consumer;
        private Producer<String, byte[]> producer;
        private Sleeper sleeper = Sleeper.THREAD;

        private Builder() {
        }

        /** Kafka's {@code bootstrap.servers}, e.g. {@code "localhost:9092"}. Required. */
        public Builder bootstrapServers(String bootstrapServers) {
            this.bootstrapServers = Objects.requireNonNull(bootstrapServers, "bootstrapServers");
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

        /** Handler threads, so at most this many handlers run at once; default 4. */
        public Builder concurrency(int concurrency) {
            if (concurrency < 1) {
                throw new IllegalArgumentException("concurrency must be >= 1: " + concurrency);
            }
            this.concurrency = concurrency;
            return this;
        }

        /** Runs dispatches of {@code jobType} with {@code handler}. At least one is required. */
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

        /**
         * Any Kafka consumer setting. Defaults: {@code auto.offset.reset=earliest}, {@code max.poll.records} =
         * 10 x concurrency. Fixed, because the guarantees rest on them: {@code enable.auto.commit=false},
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
            if (consumer == null && bootstrapServers == null) {
                throw new IllegalStateException("AxWorker has no bootstrap servers: call bootstrapServers(\"host:port\")");
            }
            String id = workerId != null ? workerId : WorkerIds.defaultId();
            DispatchRunner runner = new DispatchRunner(handlers, new Reports(id, clock), clock, sleeper);
            Consumer<String, byte[]> dispatches = consumer != null ? consumer
                    : new KafkaConsumer<>(ClientConfigs.consumer(bootstrapServers, groupId, id, concurrency, consumerProperties));
            Producer<String, byte[]> results;
            try {
                results = producer != null ? producer
                        : new KafkaProducer<>(ClientConfigs.producer(bootstrapServers, id, producerProperties));
            } catch (RuntimeException e) {
                dispatches.close();
                throw e;
            }
            ExecutorService handlerThreads = Executors.newFixedThreadPool(concurrency, threadsNamed("ax-handler-" + id + "-"));
            DispatchLoop loop = new DispatchLoop(dispatches, results, runner, handlerThreads, topics, POLL_TIMEOUT);
            return new AxWorker(id, runner, loop, handlerThreads);
        }

        private static ThreadFactory threadsNamed(String prefix) {
            AtomicInteger next = new AtomicInteger(1);
            return runnable -> new Thread(runnable, prefix + next.getAndIncrement());
        }
    }
}
