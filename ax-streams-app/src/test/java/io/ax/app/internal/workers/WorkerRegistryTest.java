package io.ax.app.internal.workers;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ax.AxTopics;
import io.ax.app.config.AxConfig;
import io.ax.app.internal.timer.ConsumerPositions;
import io.ax.app.internal.metrics.SchedulerMetrics;
import io.ax.app.internal.store.AxStores;
import io.ax.app.internal.topology.AxTopology;
import io.ax.app.internal.topology.SchedulerSettings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The worker registry in the scheduler's topology, on Kafka Streams' wall clock, which the test drives. */
class WorkerRegistryTest {
    private static final Instant T0 = Instant.parse("2026-12-01T00:00:00Z");
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @TempDir
    Path stateDir;

    private TopologyTestDriver driver;
    private SchedulerMetrics metrics;
    private SchedulerSettings settings;
    private TestInputTopic<String, byte[]> workers;
    private TestOutputTopic<String, byte[]> state;
    private TestOutputTopic<String, byte[]> workersOut;
    private Instant now = T0;

    @BeforeEach
    void start() {
        start(Map.of());
    }

    private void start(Map<String, Object> overrides) {
        start(overrides, ConsumerPositions.SYNCHRONOUS);
    }

    private void start(Map<String, Object> overrides, ConsumerPositions positions) {
        Map<String, Object> props = new HashMap<>();
        props.put(AxConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(AxConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(AxConfig.WORKERS_CHECK_MS_CONFIG, 100L);
        props.putAll(overrides);
        AxConfig config = new AxConfig(props);
        metrics = new SchedulerMetrics(config.metricsSettings());
        settings = SchedulerSettings.from(config, 1, positions, metrics);
        driver = new TopologyTestDriver(AxTopology.build(settings), config.streamsProperties(), T0);
        AxTopics topics = config.topics();
        workers = driver.createInputTopic(topics.workers(), Serdes.String().serializer(), Serdes.ByteArray().serializer());
        state = driver.createOutputTopic(topics.state(), Serdes.String().deserializer(), Serdes.ByteArray().deserializer());
        workersOut = driver.createOutputTopic(topics.workers(), Serdes.String().deserializer(), Serdes.ByteArray().deserializer());
    }

    @AfterEach
    void close() {
        driver.close();
    }

    private static String announcement(String id, long heartbeatMs, String inFlight) {
        return "{\"workerId\":\"" + id + "\",\"host\":\"h1\",\"version\":\"1.2.3\",\"heartbeatMs\":" + heartbeatMs
                + ",\"jobTypes\":[\"email\"],\"lanes\":[{\"jobType\":\"email\",\"limit\":4,\"running\":1,\"waiting\":0}],"
                + "\"inFlight\":[" + inFlight + "]}";
    }

    private void announce(String id, String json) {
        workers.pipeInput(id, json.getBytes(StandardCharsets.UTF_8), now);
    }

    private void advance(Duration duration) {
        now = now.plus(duration);
        driver.advanceWallClockTime(duration);
    }

    private List<JsonNode> stateLines() throws Exception {
        List<JsonNode> lines = new java.util.ArrayList<>();
        for (KeyValue<String, byte[]> record : state.readKeyValuesToList()) {
            JsonNode line = MAPPER.readTree(record.value);
            assertThat(record.key).isEqualTo(line.path("worker").asText());
            lines.add(line);
        }
        return lines;
    }

    private KeyValueStore<String, byte[]> store() {
        return driver.getKeyValueStore(AxStores.WORKERS);
    }

    @Test
    void shouldKeepAnAnnouncedWorkerAndDeclareItDeadAfterThreeSilentHeartbeatsNamingItsExecutions() throws Exception {
        announce("w-1", announcement("w-1", 1_000, "{\"executionId\":\"e-1\",\"taskId\":\"t-1\",\"jobType\":\"email\",\"attempt\":2}"));
        WorkerEntry kept = WorkerEntry.decode("w-1", store().get("w-1"));
        assertThat(kept.dead()).isFalse();
        assertThat(kept.lastSeenMs()).isEqualTo(T0.toEpochMilli());
        assertThat(kept.announcement().lanes()).singleElement().satisfies(lane -> assertThat(lane.limit()).isEqualTo(4));

        advance(Duration.ofMillis(2_900));
        assertThat(stateLines()).as("silent for less than 3 heartbeats").isEmpty();

        advance(Duration.ofMillis(200));
        List<JsonNode> lines = stateLines();
        assertThat(lines).singleElement().satisfies(line -> {
            assertThat(line.path("to").asText()).isEqualTo("DEAD");
            assertThat(line.has("taskId")).as("about no task").isFalse();
            assertThat(line.path("lastSeenAt").asText()).isEqualTo(T0.toString());
            assertThat(line.path("inFlight").get(0).path("executionId").asText()).isEqualTo("e-1");
            assertThat(line.path("inFlight").get(0).path("taskId").asText()).isEqualTo("t-1");
            assertThat(line.path("inFlightCount").asInt()).isEqualTo(1);
            assertThat(line.path("reason").asText()).contains("3 heartbeats of 1000 ms");
        });
        assertThat(WorkerEntry.decode("w-1", store().get("w-1")).dead()).isTrue();
        assertThat(metrics.scrape()).contains("ax_workers_dead_total 1.0").contains("ax_workers{state=\"dead\"} 1.0");

        advance(Duration.ofSeconds(10));
        assertThat(stateLines()).as("declared dead once").isEmpty();
    }

    @Test
    void shouldNotDeclareAWorkerDeadBeforeTheWorkersTopicIsProvenReadPastItsAllowance() throws Exception {
        // the consumer's proof for the workers partition, as a scheduler behind a backlog has it: read up to T0 + 1 s only
        java.util.concurrent.atomic.AtomicLong workersReadUpToMs = new java.util.concurrent.atomic.AtomicLong(T0.toEpochMilli() + 1_000);
        driver.close();
        start(Map.of(), (topic, partition) -> topic.endsWith("workers")
                ? new io.ax.app.internal.timer.Fetched(-1, workersReadUpToMs.get())
                : io.ax.app.internal.timer.Fetched.ALWAYS_CAUGHT_UP);
        announce("w-1", announcement("w-1", 1_000, ""));
        io.ax.app.internal.timer.WakeUps wakeUps = settings.threads().current().wakeUps();
        advance(Duration.ofMillis(100)); // the first check: the wake-up is published from the worker's last word
        assertThat(wakeUps.earliestFire()).as("the consumer asks the end offsets at the first check a death could be proven by")
                .isEqualTo(T0.toEpochMilli() + 3_000);

        advance(Duration.ofSeconds(20));
        assertThat(stateLines()).as("20 s of silence by the clock, but its announcements may be among those not read").isEmpty();

        workersReadUpToMs.set(T0.toEpochMilli() + 3_000);
        advance(Duration.ofMillis(100));
        assertThat(stateLines()).singleElement().satisfies(line -> assertThat(line.path("to").asText()).isEqualTo("DEAD"));
        assertThat(wakeUps.earliestFire()).as("nobody left to wait for").isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void shouldStayAliveWhileItAnnouncesEveryHeartbeat() throws Exception {
        for (int i = 0; i < 10; i++) {
            announce("w-1", announcement("w-1", 1_000, ""));
            advance(Duration.ofMillis(1_000));
        }
        assertThat(stateLines()).isEmpty();
        assertThat(metrics.scrape()).contains("ax_workers{state=\"alive\"} 1.0").contains("ax_workers_dead_total 0.0");
    }

    @Test
    void shouldListADeadWorkerThatAnnouncesAgainAsAlive() throws Exception {
        announce("w-1", announcement("w-1", 1_000, ""));
        advance(Duration.ofSeconds(4));
        assertThat(stateLines()).extracting(l -> l.path("to").asText()).containsExactly("DEAD");

        announce("w-1", announcement("w-1", 1_000, ""));
        assertThat(stateLines()).extracting(l -> l.path("to").asText()).containsExactly("ALIVE");
        assertThat(WorkerEntry.decode("w-1", store().get("w-1")).dead()).isFalse();
    }

    @Test
    void shouldRemoveAWorkerThatSaysGoodbyeWithoutDeclaringItDead() throws Exception {
        announce("w-1", announcement("w-1", 1_000, ""));
        workers.pipeInput("w-1", null, now);

        assertThat(stateLines()).extracting(l -> l.path("to").asText()).containsExactly("LEFT");
        assertThat(store().get("w-1")).isNull();
        advance(Duration.ofSeconds(10));
        assertThat(stateLines()).isEmpty();
    }

    @Test
    void shouldForgetADeadWorkerAfterTheRetentionAndTombstoneItsAnnouncement() throws Exception {
        close();
        start(Map.of(AxConfig.WORKERS_DEAD_RETENTION_MS_CONFIG, 5_000L));
        announce("w-1", announcement("w-1", 1_000, ""));
        advance(Duration.ofSeconds(4));
        assertThat(stateLines()).extracting(l -> l.path("to").asText()).containsExactly("DEAD");

        advance(Duration.ofSeconds(6));
        assertThat(store().get("w-1")).isNull();
        assertThat(workersOut.readKeyValuesToList()).singleElement().satisfies(kv -> {
            assertThat(kv.key).isEqualTo("w-1");
            assertThat(kv.value).isNull();
        });
    }

    @Test
    void shouldRefuseABadAnnouncementWithAReasonAndKeepThePreviousOne() throws Exception {
        announce("w-1", announcement("w-1", 1_000, ""));
        announce("w-1", "{\"workerId\":\"w-1\",\"heartbeatMs\":5}");
        announce("w-2", "{\"workerId\":\"other\",\"heartbeatMs\":1000}");
        workers.pipeInput("w-3", new byte[] {(byte) 0xC3, 1, 2, 3}, now);

        assertThat(WorkerEntry.decode("w-1", store().get("w-1")).announcement().heartbeatMs()).isEqualTo(1_000);
        assertThat(store().get("w-2")).isNull();
        assertThat(metrics.workerErrors().count()).isEqualTo(3);
        assertThat(metrics.workerErrors().last()).extracting(r -> r.reason())
                .anySatisfy(reason -> assertThat(reason).contains("heartbeatMs must be from 100"))
                .anySatisfy(reason -> assertThat(reason).contains("is not the record key"))
                .anySatisfy(reason -> assertThat(reason).contains("malformed JSON"));
        assertThat(stateLines()).isEmpty();
    }

    @Test
    void shouldRefuseNewWorkersBeyondTheBound() {
        close();
        start(Map.of(AxConfig.WORKERS_MAX_CONFIG, 2));
        announce("w-1", announcement("w-1", 1_000, ""));
        announce("w-2", announcement("w-2", 1_000, ""));
        announce("w-3", announcement("w-3", 1_000, ""));
        announce("w-1", announcement("w-1", 1_000, ""));

        assertThat(store().get("w-3")).isNull();
        assertThat(store().get("w-1")).isNotNull();
        assertThat(metrics.workerErrors().last()).singleElement()
                .satisfies(r -> assertThat(r.reason()).contains("ax.workers.max (2)"));
    }
}
