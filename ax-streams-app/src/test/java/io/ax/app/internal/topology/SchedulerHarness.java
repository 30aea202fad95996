package io.ax.app.internal.topology;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ax.AxHeaders;
import io.ax.AxTopics;
import io.ax.app.config.AxConfig;
import io.ax.app.internal.timer.ConsumerPositions;
import io.ax.app.internal.metrics.SchedulerMetrics;
import io.ax.codec.WireCodec;
import io.ax.app.internal.store.AxStores;
import io.ax.schema.DeadLetter;
import io.ax.schema.DispatchTask;
import io.ax.schema.RetryRecord;
import io.ax.schema.StoredTask;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;

/**
 * The scheduler topology in a {@link TopologyTestDriver} (real RocksDB stores, mocked wall clock), with
 * helpers that speak the JSON forms. Time starts at {@link #T0} and moves only by {@link #advance}.
 */
final class SchedulerHarness implements AutoCloseable {
    static final Instant T0 = Instant.parse("2026-12-01T00:00:00Z");
    private static final ObjectMapper MAPPER = new ObjectMapper();

    final AxTopics topics = AxTopics.defaults();
    /** What the scheduler's {@code /metrics} would serve. */
    final SchedulerMetrics metrics;
    private final TopologyTestDriver driver;
    private final TestInputTopic<String, byte[]> requests;
    private final TestInputTopic<String, byte[]> results;
    private final TestInputTopic<String, byte[]> retryInput;
    private final TestOutputTopic<String, byte[]> dispatch;
    private final TestOutputTopic<String, byte[]> state;
    private final TestOutputTopic<String, byte[]> retry;
    private final TestOutputTopic<String, byte[]> deadLetter;
    private final Map<String, TestInputTopic<byte[], byte[]>> rawInputs = new HashMap<>();
    private final Map<String, TestOutputTopic<byte[], byte[]>> rawOutputs = new HashMap<>();
    private Instant now = T0;

    SchedulerHarness(Path stateDir) {
        this(stateDir, Map.of());
    }

    SchedulerHarness(Path stateDir, Map<String, Object> overrides) {
        this(stateDir, overrides, 1, ConsumerPositions.SYNCHRONOUS);
    }

    /**
     * @param partitions the partition count the scheduler is told its input topics have; the driver feeds partition 0
     *                   only, so with more than one, records whose key belongs elsewhere are refused
     */
    SchedulerHarness(Path stateDir, Map<String, Object> overrides, int partitions) {
        this(stateDir, overrides, partitions, ConsumerPositions.SYNCHRONOUS);
    }

    /** @param positions how far the inputs count as read (a test can make the scheduler lag behind its inputs) */
    SchedulerHarness(Path stateDir, Map<String, Object> overrides, ConsumerPositions positions) {
        this(stateDir, overrides, 1, positions);
    }

    private SchedulerHarness(Path stateDir, Map<String, Object> overrides, int partitions, ConsumerPositions positions) {
        this(stateDir, overrides, partitions, 0, positions);
    }

    /**
     * @param flowPartitions the partition count the flow gates are told the flow topic has (0: unknown, unchecked); the
     *                       driver feeds partition 0 only, so flow records whose gate key belongs elsewhere are skipped
     */
    static SchedulerHarness withFlowPartitions(Path stateDir, int flowPartitions) {
        return new SchedulerHarness(stateDir, Map.of(), 1, flowPartitions, ConsumerPositions.SYNCHRONOUS, null);
    }

    /** @param fireClock the clock the punctuation's fire budget ({@code ax.fire.budget.ms}) is measured with */
    static SchedulerHarness withFireClock(Path stateDir, Map<String, Object> overrides, org.apache.kafka.common.utils.Time fireClock) {
        return new SchedulerHarness(stateDir, overrides, 1, 0, ConsumerPositions.SYNCHRONOUS, fireClock);
    }

    private SchedulerHarness(Path stateDir, Map<String, Object> overrides, int partitions, int flowPartitions,
                             ConsumerPositions positions) {
        this(stateDir, overrides, partitions, flowPartitions, positions, null);
    }

    private SchedulerHarness(Path stateDir, Map<String, Object> overrides, int partitions, int flowPartitions,
                             ConsumerPositions positions, org.apache.kafka.common.utils.Time fireClock) {
        Map<String, Object> props = new HashMap<>();
        props.put(AxConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(AxConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.putAll(overrides);
        AxConfig config = new AxConfig(props);
        metrics = new SchedulerMetrics(config.metricsSettings());
        // The fire budget (ax.fire.budget.ms) is measured on a clock that stands still unless a test drives it: what one
        // punctuation fires must not depend on how fast this machine is today.
        driver = new TopologyTestDriver(AxTopology.build(SchedulerSettings.from(config, partitions, positions, metrics)
                .withFlowPartitions(flowPartitions).withTime(fireClock == null ? STILL : fireClock)), config.streamsProperties(), T0);
        requests = driver.createInputTopic(topics.requests(), Serdes.String().serializer(), Serdes.ByteArray().serializer());
        results = driver.createInputTopic(topics.results(), Serdes.String().serializer(), Serdes.ByteArray().serializer());
        retryInput = driver.createInputTopic(topics.retry(), Serdes.String().serializer(), Serdes.ByteArray().serializer());
        dispatch = driver.createOutputTopic(topics.dispatch(), Serdes.String().deserializer(), Serdes.ByteArray().deserializer());
        state = driver.createOutputTopic(topics.state(), Serdes.String().deserializer(), Serdes.ByteArray().deserializer());
        retry = driver.createOutputTopic(topics.retry(), Serdes.String().deserializer(), Serdes.ByteArray().deserializer());
        deadLetter = driver.createOutputTopic(topics.deadLetter(), Serdes.String().deserializer(), Serdes.ByteArray().deserializer());
    }

    /** A clock that never moves: no punctuation runs out of its fire budget. */
    private static final org.apache.kafka.common.utils.Time STILL = new org.apache.kafka.common.utils.Time() {
        @Override
        public long milliseconds() {
            return 0;
        }

        @Override
        public long nanoseconds() {
            return 0;
        }

        @Override
        public void sleep(long ms) {
        }

        @Override
        public void waitObject(Object obj, java.util.function.Supplier<Boolean> condition, long deadlineMs) {
            throw new UnsupportedOperationException();
        }
    };

    static Path tempDir() {
        try {
            return Files.createTempDirectory("ax-ttd");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    Instant now() {
        return now;
    }

    long nowMs() {
        return now.toEpochMilli();
    }

    void advance(Duration duration) {
        now = now.plus(duration);
        driver.advanceWallClockTime(duration);
    }

    void advanceMs(long ms) {
        advance(Duration.ofMillis(ms));
    }

    /** Pipes a request (JSON text or raw bytes) with the current time as its record timestamp. */
    void request(String taskId, String json) {
        requests.pipeInput(taskId, json.getBytes(StandardCharsets.UTF_8), now);
    }

    void requestBytes(String taskId, byte[] value) {
        requests.pipeInput(taskId, value, now);
    }

    /** Pipes a request with the record timestamp {@code timestampMs} (a producer can set any). */
    void requestAt(String taskId, String json, long timestampMs) {
        requests.pipeInput(taskId, json.getBytes(StandardCharsets.UTF_8), timestampMs);
    }

    /** Pipes raw bytes onto the retry topic (anyone can write to it). */
    void retryBytes(String taskId, byte[] value) {
        retryInput.pipeInput(taskId, value, now);
    }

    /** A worker's report of {@code d}: STARTED, SUCCEEDED, or FAILED (not retryable). */
    void report(Dispatched d, String status) {
        report(d.key(), "{\"executionId\":\"" + d.executionId() + "\",\"attempt\":" + d.task().getAttempt()
                + ",\"status\":\"" + status + "\"" + ("FAILED".equals(status) ? ",\"retryable\":false" : "") + "}");
    }

    /** The events of {@code taskId} among {@code events}, in order. */
    static List<JsonNode> eventsOf(List<JsonNode> events, String taskId) {
        return events.stream().filter(e -> taskId.equals(e.get("taskId").asText())).toList();
    }

    /** An event's transition, e.g. {@code PENDING->TRIGGERED} ({@code ->PENDING} for the first). */
    static String fromTo(JsonNode e) {
        return (e.get("from") == null || e.get("from").isNull() ? "" : e.get("from").asText()) + "->" + e.get("to").asText();
    }

    void report(String taskId, String json) {
        results.pipeInput(taskId, json.getBytes(StandardCharsets.UTF_8), now);
    }

    void reportBytes(String taskId, byte[] value) {
        results.pipeInput(taskId, value, now);
    }

    /** Pipes raw key and value bytes (either may be null) to any topic, with the given record timestamp. */
    void pipeRaw(String topic, byte[] key, byte[] value, long timestampMs) {
        rawInputs.computeIfAbsent(topic, t -> driver.createInputTopic(t, new ByteArraySerializer(), new ByteArraySerializer()))
                .pipeInput(key, value, timestampMs);
    }

    /**
     * Records written to {@code topic} since the last call, raw; empty when nothing was ever written to it (the topic
     * need not be one of the topology's sinks). Do not mix with the decoding readers of the same topic.
     */
    java.util.Set<String> producedTopics() {
        return driver.producedTopicNames();
    }

    List<TestRecord<byte[], byte[]>> drainRaw(String topic) {
        if (!driver.producedTopicNames().contains(topic)) {
            return List.of();
        }
        return rawOutputs.computeIfAbsent(topic, t -> driver.createOutputTopic(t, new ByteArrayDeserializer(), new ByteArrayDeserializer()))
                .readRecordsToList();
    }

    /** Dispatch records written since the last call. */
    List<Dispatched> dispatches() {
        List<Dispatched> out = new ArrayList<>();
        for (TestRecord<String, byte[]> record : dispatch.readRecordsToList()) {
            Map<String, String> headers = new HashMap<>();
            record.headers().forEach(h -> headers.put(h.key(), new String(h.value(), StandardCharsets.UTF_8)));
            out.add(new Dispatched(record.key(), WireCodec.decodeBinary(record.value(), DispatchTask.class), headers,
                    record.timestamp()));
        }
        return out;
    }

    /** Retry records written since the last call. */
    List<RetryRecord> retries() {
        return retry.readValuesToList().stream().map(v -> WireCodec.decodeBinary(v, RetryRecord.class)).toList();
    }

    /** Dead letters written since the last call. */
    List<DeadLetter> deadLetters() {
        return deadLetter.readValuesToList().stream().map(v -> WireCodec.decodeBinary(v, DeadLetter.class)).toList();
    }

    /** Size of the task store's record for this taskId as its changelog carries it (key + value bytes), or -1 if none. */
    long storedTaskBytes(String taskId) {
        StoredTask task = driver.<String, StoredTask>getKeyValueStore(AxStores.TASKS).get(taskId);
        return task == null ? -1 : taskId.getBytes(StandardCharsets.UTF_8).length + WireCodec.encode(task).length;
    }

    /**
     * Whether the stored task arms this timer: what a restart derives into the timer index and the wheel
     * ({@code core.ArmedTimers}). The index alone no longer says: a timer within the wheel's horizon is the wheel's.
     */
    boolean hasTimer(long dueAtMs, String taskId, io.ax.app.internal.core.TimerKind kind) {
        StoredTask task = storedTask(taskId);
        return task != null && io.ax.app.internal.core.ArmedTimers.of(task).stream()
                .anyMatch(timer -> timer.dueAtMs() == dueAtMs && timer.kind() == kind);
    }

    /** The global limits store (key to normalized JSON), as every instance reads it from ax.limits. */
    org.apache.kafka.streams.state.KeyValueStore<String, String> limitsStore() {
        return driver.getKeyValueStore(io.ax.app.internal.store.FlowStores.LIMITS);
    }

    /** The task store's record for {@code taskId}, or null. */
    StoredTask storedTask(String taskId) {
        return driver.<String, StoredTask>getKeyValueStore(AxStores.TASKS).get(taskId);
    }

    /** Every key and value of the task index store, raw (see {@code TaskIndex}). */
    /** The index as readers see it: its writes wait for the punctuation, so one wheel tick passes first. */
    Map<org.apache.kafka.common.utils.Bytes, byte[]> indexContents() {
        advanceMs(AxConfig.DEFAULT_WHEEL_TICK_MS);
        Map<org.apache.kafka.common.utils.Bytes, byte[]> contents = new java.util.TreeMap<>();
        try (KeyValueIterator<org.apache.kafka.common.utils.Bytes, byte[]> all =
                     driver.<org.apache.kafka.common.utils.Bytes, byte[]>getKeyValueStore(AxStores.INDEX).all()) {
            all.forEachRemaining(kv -> contents.put(kv.key, kv.value));
        }
        return contents;
    }

    /** Every key and value of the dependency store, raw (see {@code Dependencies}). */
    Map<org.apache.kafka.common.utils.Bytes, byte[]> dependencyContents() {
        Map<org.apache.kafka.common.utils.Bytes, byte[]> contents = new java.util.TreeMap<>();
        try (KeyValueIterator<org.apache.kafka.common.utils.Bytes, byte[]> all =
                     driver.<org.apache.kafka.common.utils.Bytes, byte[]>getKeyValueStore(AxStores.DEPENDENCIES).all()) {
            all.forEachRemaining(kv -> contents.put(kv.key, kv.value));
        }
        return contents;
    }

    /** The task's history of state changes, oldest first (see {@code TaskHistory}). */
    List<io.ax.app.internal.store.HistoryEntry> history(String taskId) {
        StoredTask task = storedTask(taskId);
        return task == null ? List.of() : io.ax.app.internal.store.TaskHistory.of(task);
    }

    /** The task whose history holds {@code executionId}, or null. */
    String taskOfExecutionInHistory(String executionId) {
        return io.ax.app.internal.store.TaskIndex.taskOfExecution(driver.getKeyValueStore(AxStores.INDEX), executionId);
    }

    /** Every task in the task store. */
    List<StoredTask> allStoredTasks() {
        List<StoredTask> out = new ArrayList<>();
        try (KeyValueIterator<String, StoredTask> all = driver.<String, StoredTask>getKeyValueStore(AxStores.TASKS).all()) {
            all.forEachRemaining(kv -> out.add(kv.value));
        }
        return out;
    }

    /** Tasks in the task store (exact: counts the entries). */
    long storedTasks() {
        return count(driver.getKeyValueStore(AxStores.TASKS));
    }

    /** Timers in the timer index. */
    long storedTimers() {
        return count(driver.getKeyValueStore(AxStores.TIMERS));
    }

    private static long count(KeyValueStore<?, ?> store) {
        long n = 0;
        try (KeyValueIterator<?, ?> all = store.all()) {
            while (all.hasNext()) {
                all.next();
                n++;
            }
        }
        return n;
    }

    /** State records written since the last call, raw (key and JSON bytes). */
    List<TestRecord<String, byte[]>> stateRecords() {
        return state.readRecordsToList();
    }

    /** State events written since the last call, as JSON trees. */
    List<JsonNode> events() {
        List<JsonNode> out = new ArrayList<>();
        for (TestRecord<String, byte[]> record : state.readRecordsToList()) {
            try {
                out.add(MAPPER.readTree(record.value()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return out;
    }

    /** Reads the dispatch records written so far and drops them, unchecked, like {@link #discardEvents()}. */
    void discardDispatches() {
        dispatch.readRecordsToList();
    }

    /**
     * Reads the state events written so far and drops them, unchecked: for a test's setup steps, so that the next
     * {@link #events()} or {@link #transitions()} shows only what the step under test wrote.
     */
    void discardEvents() {
        state.readRecordsToList();
    }

    /** "to" of each event, in order, e.g. [PENDING, TRIGGERED]. */
    List<String> transitions() {
        return events().stream().map(e -> e.get("to").asText()).toList();
    }

    /** Every topic the topology has written to so far (outputs, internal topics and the stores' changelogs). */
    java.util.Set<String> producedTopicNames() {
        return driver.producedTopicNames();
    }

    /** The Kafka Streams metrics of the driven topology (those of the stores included, see {@code StoreOps}). */
    Map<org.apache.kafka.common.MetricName, ? extends org.apache.kafka.common.Metric> kafkaMetrics() {
        return driver.metrics();
    }

    @Override
    public void close() {
        driver.close();
    }

    record Dispatched(String key, DispatchTask task, Map<String, String> headers, long timestampMs) {
        String header(String name) {
            return headers.get(name);
        }

        String executionId() {
            return header(AxHeaders.EXECUTION_ID);
        }
    }
}
