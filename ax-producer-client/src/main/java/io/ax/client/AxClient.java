package io.ax.client;

import io.ax.AxTopics;
import io.ax.FlowLimit;
import io.ax.InvalidRequestException;
import io.ax.KafkaConnection;
import io.ax.codec.AvroTrust;
import io.ax.codec.RegistryEncoder;
import io.ax.codec.RegistrySettings;
import io.ax.codec.SchemaRegistryClient;
import io.ax.client.internal.ProducerDefaults;
import io.ax.client.internal.RequestSender;
import io.ax.schema.CancelRequest;
import io.ax.schema.ReplayRequest;
import io.ax.schema.TriggerRequest;
import io.ax.schema.PauseRequest;
import io.ax.schema.ResumeRequest;
import io.ax.validation.ScheduleLimits;
import io.ax.validation.ScheduleValidator;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Schedules, cancels, triggers and replays ax tasks by writing requests to the requests topic (key = taskId, value = Avro
 * single-object encoding).
 *
 * <p>The taskId is the dedup key while its task is live: derive it from a business key and a resubmit after a crash
 * or timeout is harmless while the task has not finished (the scheduler keeps the live task, or replaces it with
 * {@code ifExists(REPLACE)}). Once the task has finished its id is free, and a resubmit schedules it again. Every
 * outcome, including rejections, is published on the state topic.
 *
 * <p>Thread-safe: share one client per application. Futures complete on the producer's I/O thread, so
 * dependent stages doing slow work should use the {@code ...Async} variants.
 *
 * <p>Loading this class makes Avro trust the generated classes in {@code io.ax.schema} (Avro 1.12.2+ refuses
 * untrusted ones), so {@code -Dorg.apache.avro.SERIALIZABLE_PACKAGES} is not needed.
 */
public final class AxClient implements AutoCloseable {
    static {
        AvroTrust.ensureAxSchemasTrusted();
    }

    private final Producer<String, byte[]> producer;
    private final boolean ownsProducer;
    private final RequestSender sender;
    private final ScheduleValidator validator;
    private final String limitsTopic;

    private AxClient(Producer<String, byte[]> producer, boolean ownsProducer, AxTopics topics, Clock clock,
                     ScheduleLimits limits) {
        this(producer, ownsProducer, topics, clock, limits, null);
    }

    private AxClient(Producer<String, byte[]> producer, boolean ownsProducer, AxTopics topics, Clock clock,
                     ScheduleLimits limits, RegistrySettings registry) {
        this.producer = Objects.requireNonNull(producer, "producer");
        this.ownsProducer = ownsProducer;
        String requests = Objects.requireNonNull(topics, "topics").requests();
        this.limitsTopic = topics.limits();
        this.sender = registry == null ? new RequestSender(producer, requests, clock)
                : new RequestSender(producer, requests, clock,
                        new RegistryEncoder(new SchemaRegistryClient(registry), requests + "-value")::encode);
        this.validator = new ScheduleValidator(Objects.requireNonNull(limits, "limits"));
    }

    /** A builder that creates and owns its Kafka producer. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A client on a producer you created and own: {@link #close()} leaves it open. It must have String keys
     * and byte[] values; use {@code acks=all} and idempotence, or an acknowledged request may still be lost.
     * Also the way to test code that uses the client, with Kafka's {@code MockProducer}.
     *
     * @param clock stamps each request record; the scheduler counts delays from that timestamp
     */
    public static AxClient create(Producer<String, byte[]> producer, AxTopics topics, Clock clock, ScheduleLimits limits) {
        return new AxClient(producer, false, topics, clock, limits);
    }

    /** Starts describing the task {@code taskId}; nothing is sent before {@link ScheduleBuilder#submit()}. */
    public ScheduleBuilder schedule(String taskId) {
        return new ScheduleBuilder(taskId, sender, validator);
    }

    /**
     * Starts describing the exclusion calendar {@code name} (created, or replaced whole); nothing is sent before
     * {@link CalendarBuilder#set()}.
     */
    public CalendarBuilder calendar(String name) {
        return new CalendarBuilder(name, sender);
    }

    /**
     * Deletes the exclusion calendar {@code name}. Tasks naming it run unexcluded from their next occurrence on; the
     * outcome appears on the state topic: ACCEPTED, or IGNORED when there is no such calendar.
     *
     * @throws InvalidRequestException when the name is empty, too long or has control characters
     */
    public CompletableFuture<RecordMetadata> deleteCalendar(String name) {
        io.ax.validation.CalendarValidator.validateName(name);
        return sender.send(name, io.ax.schema.CalendarRequest.newBuilder().setDelete(true).build());
    }

    /** Same as {@link #cancel(String, String)} without a reason. */
    public CompletableFuture<RecordMetadata> cancel(String taskId) {
        return cancel(taskId, null);
    }

    /**
     * Asks the scheduler to cancel {@code taskId}: its timer is removed and a running execution gets a cancel
     * signal. The outcome appears on the state topic: CANCELLED, or IGNORED when the task is unknown or
     * already finished; this method cannot know which.
     *
     * @param reason free text recorded on the CANCELLED event, may be null
     * @return completes when Kafka acknowledged the request, or exceptionally when sending failed
     * @throws InvalidRequestException when the taskId is empty, too long or has control characters
     */
    public CompletableFuture<RecordMetadata> cancel(String taskId, String reason) {
        ScheduleValidator.validateTaskId(taskId);
        return sender.send(taskId, new CancelRequest(reason));
    }

    /**
     * Asks the scheduler to run a dead-lettered task again: a task whose last execution ended FAILED gets a new
     * execution, due now, with a new executionId. The outcome appears on the state topic: PENDING (then
     * TRIGGERED), or IGNORED when the task is unknown, still live, or did not end FAILED.
     *
     * @param reason free text recorded on the new execution's PENDING event, may be null
     * @return completes when Kafka acknowledged the request, or exceptionally when sending failed
     * @throws InvalidRequestException when the taskId is empty, too long or has control characters
     */
    public CompletableFuture<RecordMetadata> replay(String taskId, String reason) {
        ScheduleValidator.validateTaskId(taskId);
        return sender.send(taskId, new ReplayRequest(reason));
    }

    /**
     * Asks the scheduler to run a pending task now, ahead of its due time: a one-shot task fires now instead of
     * later; a periodic task runs one extra occurrence now and keeps its schedule. The outcome appears on the state
     * topic: TRIGGERED (due now), or IGNORED when the task is unknown, already running or finished.
     *
     * @param reason free text recorded on the TRIGGERED event, may be null
     * @return completes when Kafka acknowledged the request, or exceptionally when sending failed
     * @throws InvalidRequestException when the taskId is empty, too long or has control characters, or the reason is
     *         longer than {@value ScheduleValidator#MAX_REASON_CHARS} chars
     */
    public CompletableFuture<RecordMetadata> trigger(String taskId, String reason) {
        ScheduleValidator.validateTaskId(taskId);
        ScheduleValidator.requireLength("reason", reason, ScheduleValidator.MAX_REASON_CHARS);
        return sender.send(taskId, new TriggerRequest(reason));
    }

    /**
     * Asks the scheduler to pause a periodic task: no occurrence fires until it is resumed; the execution in flight is
     * not disturbed. The outcome appears on the state topic: the next occurrence's PENDING event with the reason
     * "paused by request", or IGNORED when the task is unknown, a one-shot, finished or already paused.
     *
     * @param reason free text recorded on the event, may be null
     * @return completes when Kafka acknowledged the request, or exceptionally when sending failed
     * @throws InvalidRequestException when the taskId is empty, too long or has control characters, or the reason is
     *         longer than {@value ScheduleValidator#MAX_REASON_CHARS} chars
     */
    public CompletableFuture<RecordMetadata> pause(String taskId, String reason) {
        ScheduleValidator.validateTaskId(taskId);
        ScheduleValidator.requireLength("reason", reason, ScheduleValidator.MAX_REASON_CHARS);
        return sender.send(taskId, new PauseRequest(reason));
    }

    /**
     * Asks the scheduler to resume a paused periodic task: the occurrences due while it was paused are SKIPPED (one
     * event) and the first occurrence after now is timed. IGNORED when the task is unknown, a one-shot, finished or
     * not paused.
     *
     * @param reason free text recorded on the event, may be null
     * @return completes when Kafka acknowledged the request, or exceptionally when sending failed
     * @throws InvalidRequestException when the taskId is empty, too long or has control characters, or the reason is
     *         longer than {@value ScheduleValidator#MAX_REASON_CHARS} chars
     */
    public CompletableFuture<RecordMetadata> resume(String taskId, String reason) {
        ScheduleValidator.validateTaskId(taskId);
        ScheduleValidator.requireLength("reason", reason, ScheduleValidator.MAX_REASON_CHARS);
        return sender.send(taskId, new ResumeRequest(reason));
    }

    /**
     * Sets the flow-control limits of {@code key} ({@code type:<jobType>}, {@code owner:<owner>} or {@code owner:*}) on the
     * compacted limits topic (topology-docs/FLOW-CONTROL.md); every scheduler instance applies them within its next
     * reads of that topic. Replaces the key's previous limits as a whole.
     *
     * @throws InvalidRequestException when the key is not one of those forms, or the limit has a field the key kind does
     *         not take
     */
    public CompletableFuture<RecordMetadata> setLimit(String key, FlowLimit limit) {
        Objects.requireNonNull(limit, "limit");
        FlowLimit.parse(key, limit.toJsonBytes()); // the scheduler's own check, so a bad limit fails here
        return sendLimit(key, limit.toJsonBytes());
    }

    /** Removes every flow-control limit of {@code key} (a tombstone on the limits topic). */
    public CompletableFuture<RecordMetadata> removeLimit(String key) {
        FlowLimit.validateKey(key);
        return sendLimit(key, null);
    }

    private CompletableFuture<RecordMetadata> sendLimit(String key, byte[] value) {
        CompletableFuture<RecordMetadata> done = new CompletableFuture<>();
        producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(limitsTopic, key, value), (metadata, e) -> {
            if (e != null) {
                done.completeExceptionally(e);
            } else {
                done.complete(metadata);
            }
        });
        return done;
    }

    /** Sends buffered requests now and waits for them to complete. */
    public void flush() {
        producer.flush();
    }

    /** Sends buffered requests and closes the producer, unless it was passed to {@link #create}. */
    @Override
    public void close() {
        if (ownsProducer) {
            producer.close();
        }
    }

    /** Configures an {@link AxClient} that creates its own producer. Not thread-safe. */
    public static final class Builder {
        private String bootstrapServers;
        private AxTopics topics = AxTopics.defaults();
        private Clock clock = Clock.systemUTC();
        private ScheduleLimits limits = ScheduleLimits.defaults();
        private final Map<String, Object> producerProperties = new HashMap<>();
        private final Map<String, Object> connectionProperties = new HashMap<>();
        private RegistrySettings registry;

        private Builder() {
        }

        /**
         * Produces requests in the schema-registry wire format (byte 0, schema id, Avro binary, as Confluent's
         * {@code KafkaAvroSerializer} does) instead of single-object encoding, registering each request schema under
         * {@code <requests topic>-value} at its first use. The scheduler needs {@code ax.schema.registry.url} set to the
         * same registry. E.g. {@code RegistrySettings.of("http://localhost:8081")}, or with
         * {@link RegistrySettings#withBasicAuth}.
         */
        public Builder schemaRegistry(RegistrySettings registry) {
            this.registry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /**
         * Kafka's {@code bootstrap.servers}, e.g. {@code "localhost:9092"}. Required, unless
         * {@link #connectionProperties} gives it; this wins.
         */
        public Builder bootstrapServers(String bootstrapServers) {
            this.bootstrapServers = Objects.requireNonNull(bootstrapServers, "bootstrapServers");
            return this;
        }

        /** Topic names; default prefix {@code ax.}. Must match the scheduler's. */
        public Builder topics(AxTopics topics) {
            this.topics = Objects.requireNonNull(topics, "topics");
            return this;
        }

        /** Stamps request records; default the system UTC clock. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** Limits checked before sending; keep them equal to the scheduler's. */
        public Builder limits(ScheduleLimits limits) {
            this.limits = Objects.requireNonNull(limits, "limits");
            return this;
        }

        /**
         * Any Kafka producer setting, overriding the defaults ({@code acks=all}, {@code enable.idempotence=true},
         * {@code linger.ms=5}, {@code client.id=ax-client}). The serializers cannot be changed.
         */
        public Builder producerProperty(String key, Object value) {
            producerProperties.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, key));
            return this;
        }

        /**
         * How to reach the cluster: the connection and security settings that every Kafka client of ax shares
         * ({@code bootstrap.servers}, {@code security.protocol}, {@code ssl.*}, {@code sasl.*}: the keys of
         * {@link KafkaConnection#KEYS}). Keys outside that set are left out, so the settings of a whole ax config
         * file can be passed as they are; the same file and {@code AX_KAFKA_*} environment the scheduler reads:
         * <pre>{@code
         * AxClient client = AxClient.builder()
         *         .connectionProperties(KafkaConnection.load(Path.of("ax.properties")))
         *         .build();
         * }</pre>
         * {@link #bootstrapServers} and {@link #producerProperty} win over these. May be called more than once; later
         * calls win per key.
         */
        public Builder connectionProperties(Map<String, ?> properties) {
            connectionProperties.putAll(KafkaConnection.select(Objects.requireNonNull(properties, "properties")));
            return this;
        }

        /** @throws IllegalStateException when no bootstrap servers were given */
        public AxClient build() {
            Map<String, Object> settings = new HashMap<>(connectionProperties);
            if (bootstrapServers != null) {
                settings.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
            }
            settings.putAll(producerProperties);
            if (!settings.containsKey(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG)) {
                throw new IllegalStateException("AxClient has no bootstrap servers: call bootstrapServers(\"host:port\")"
                        + " or give bootstrap.servers in connectionProperties(...)");
            }
            Producer<String, byte[]> producer = new KafkaProducer<>(ProducerDefaults.with(null, settings));
            return new AxClient(producer, true, topics, clock, limits, registry);
        }
    }
}
