package io.ax.app.internal.flow;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ax.AxTopics;
import io.ax.FlowLimit;
import io.ax.app.config.AxConfig;
import io.ax.app.fuzz.FuzzSettings;
import io.ax.app.internal.metrics.RefusedRecords;
import io.ax.app.internal.metrics.SchedulerMetrics;
import io.ax.app.internal.store.FlowStores;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fuzz of the flow-control gates alone (the gate sub-topology of {@code AxTopology}, in a TopologyTestDriver): random
 * sequences of ACQUIRE, RELEASE and STARTED (duplicates, higher attempts, stale attempts, releases of unknown executions or
 * at one gate only), limits records (good, bad, tombstones) and clock steps, checked against a model of each gate built
 * from the documented rules (topology-docs/FLOW-CONTROL.md), not from the code:
 * <ul>
 *   <li>a gate grants only an execution waiting there, and only while fewer than its {@code maxInFlight} hold a slot
 *       (and, at a type gate, fewer than {@code maxNotStarted} hold one not yet STARTED): no limit is ever exceeded;</li>
 *   <li>nothing escapes the gate (no exception out of {@code pipeInput}); a bad limits record is counted and changes nothing;</li>
 *   <li>once every limit is removed, every execution still waiting is granted: no slot or queue place is lost.</li>
 * </ul>
 * ({@code maxPerSecond} is set at times, so the bucket's arithmetic runs, but its rate is not checked here:
 * {@code FlowControlTest} does.) CI runs {@value #CI_RUNS} sequences of {@value #OPS} steps; {@code -Dax.fuzz.count=N}
 * runs N sequences, {@code -Dax.fuzz.seed=random} new ones:
 * <pre>
 * mvn -B -ntp -pl ax-streams-app -am test -Dtest=FuzzFlowGateTest -Dsurefire.failIfNoSpecifiedTests=false -Dax.fuzz.count=300
 * </pre>
 */
@Tag("fuzz")
class FuzzFlowGateTest {
    static final int CI_RUNS = 12;
    static final int OPS = 400;
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String TYPE = "type:g1";
    private static final String OWNER = "owner:o1";
    /**
     * One gate per execution. (A chain of two makes the driver process a forwarded ACQUIRE after the rest of the step
     * that forwarded it, an order its outputs do not show, so a model fed by them would guess; chains are covered by
     * FlowControlTest and FuzzInternalTopicsTest.)
     */
    private static final List<List<String>> CHAINS = List.of(List.of(TYPE), List.of(OWNER));

    @Test
    void shouldNeverGrantPastALimitNorLoseAWaitingExecution(@TempDir Path stateRoot) {
        FuzzSettings settings = FuzzSettings.fromSystemProperties(CI_RUNS);
        List<String> failures = new ArrayList<>();
        long grants = 0;
        for (int run : settings.indexes()) {
            SplittableRandom random = new SplittableRandom(settings.seed() ^ (run * 0x9E3779B97F4A7C15L));
            try (GateRun gates = new GateRun(stateRoot.resolve("gates-" + run), random)) {
                List<String> problems = gates.play();
                grants += gates.grants;
                if (!problems.isEmpty()) {
                    failures.add("sequence " + run + ":\n    " + String.join("\n    ", problems.subList(0, Math.min(10, problems.size())))
                            + "\n    last steps: " + String.join("; ", gates.steps.subList(Math.max(0, gates.steps.size() - 30),
                            gates.steps.size())) + (System.getProperty("ax.fuzz.steps") == null ? "" : "\n    every step: "
                            + String.join("; ", gates.steps)));
                    if (failures.size() >= settings.stopAfterFailures()) {
                        break;
                    }
                }
            }
        }
        System.out.println("=== fuzz figures: flow gates, " + settings + " sequences: " + grants + " grants checked ===");
        assertThat(failures).as(() -> settings + ":\n" + String.join("\n", failures)).isEmpty();
    }

    /** A gate's state as the documented rules have it. */
    private static final class ModelGate {
        final Map<String, Integer> waiting = new HashMap<>();
        final Map<String, Integer> slots = new HashMap<>();
        final Set<String> started = new HashSet<>();

        void acquire(String executionId, int attempt) {
            Integer slot = slots.get(executionId);
            if (slot != null && slot >= attempt) {
                return; // a copy of an ACQUIRE already granted
            }
            if (slot != null) {
                free(executionId); // an earlier attempt's slot
            }
            waiting.putIfAbsent(executionId, attempt);
        }

        void release(String executionId, int attempt) {
            Integer slot = slots.get(executionId);
            if (slot != null && slot <= attempt) {
                free(executionId);
            } else if (waiting.containsKey(executionId) && waiting.get(executionId) <= attempt) {
                waiting.remove(executionId);
            }
        }

        void free(String executionId) {
            slots.remove(executionId);
            started.remove(executionId);
        }

        long notStarted() {
            return slots.keySet().stream().filter(e -> !started.contains(e)).count();
        }
    }

    private static final class GateRun implements AutoCloseable {
        private final SplittableRandom random;
        private final AxTopics topics = AxTopics.defaults();
        private final SchedulerMetrics metrics;
        private final TopologyTestDriver driver;
        private final TestInputTopic<String, byte[]> flow;
        private final TestInputTopic<String, byte[]> limits;
        private final TestOutputTopic<String, byte[]> flowOut;
        private final TestOutputTopic<String, byte[]> grantsOut;
        private final Map<String, ModelGate> model = Map.of(TYPE, new ModelGate(), OWNER, new ModelGate());
        private final Map<String, FlowLimit> limitsModel = new HashMap<>();
        private final Map<String, List<String>> chains = new HashMap<>();
        private final Map<String, Integer> attempts = new HashMap<>();
        private final List<String> problems = new ArrayList<>();
        final List<String> steps = new ArrayList<>();
        long grants;
        private Instant now = Instant.parse("2026-12-01T00:00:00Z");

        GateRun(Path stateDir, SplittableRandom random) {
            this.random = random;
            AxConfig config = new AxConfig(Map.of(AxConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092",
                    AxConfig.STATE_DIR_CONFIG, stateDir.toString()));
            metrics = new SchedulerMetrics(config.metricsSettings());
            RefusedRecords errors = metrics.limitErrors();
            LimitsChanges limitsChanges = new LimitsChanges();
            Topology topology = new Topology(); // as AxTopology.addFlowControl builds it
            topology.addGlobalStore(FlowStores.limits(), "limits-source", Serdes.String().deserializer(), Serdes.ByteArray().deserializer(),
                    topics.limits(), "limits", () -> new ApplyLimitRecord(errors, limitsChanges));
            topology.addSource("flow-source", Serdes.String().deserializer(), Serdes.ByteArray().deserializer(), topics.flow());
            topology.addProcessor("gate", () -> new FlowGate("flow-sink", "grants-sink", metrics, limitsChanges, 1_000, key -> -1), "flow-source");
            topology.addStateStore(FlowStores.gates(), "gate");
            topology.addSink("flow-sink", topics.flow(), Serdes.String().serializer(), Serdes.ByteArray().serializer(), "gate");
            topology.addSink("grants-sink", topics.flowGrants(), Serdes.String().serializer(), Serdes.ByteArray().serializer(), "gate");
            driver = new TopologyTestDriver(topology, config.streamsProperties(), now);
            flow = driver.createInputTopic(topics.flow(), new StringSerializer(), new ByteArraySerializer());
            limits = driver.createInputTopic(topics.limits(), new StringSerializer(), new ByteArraySerializer());
            flowOut = driver.createOutputTopic(topics.flow(), new StringDeserializer(), new ByteArrayDeserializer());
            grantsOut = driver.createOutputTopic(topics.flowGrants(), new StringDeserializer(), new ByteArrayDeserializer());
        }

        List<String> play() {
            for (int i = 0; i < OPS && problems.isEmpty(); i++) {
                switch (random.nextInt(10)) {
                    case 0 -> setLimit();
                    case 1, 2, 3 -> acquire();
                    case 4, 5 -> release();
                    case 6 -> started();
                    default -> advance(random.nextInt(4) == 0 ? 0 : random.nextInt(300));
                }
            }
            if (problems.isEmpty()) {
                checkNothingLost();
            }
            return problems;
        }

        private void setLimit() {
            String key = switch (random.nextInt(4)) {
                case 0 -> OWNER;
                case 1 -> "owner:*";
                default -> TYPE;
            };
            long refusedBefore = metrics.limitErrors().count();
            boolean bad = random.nextInt(6) == 0;
            String json;
            if (!bad && random.nextInt(5) == 0) {
                json = null;
            } else if (bad) {
                json = key.equals(TYPE) ? "{\"weight\":2}" : random.nextBoolean() ? "{\"maxInFlight\":0}" : "{\"maxInFlight\":1}x";
            } else if (key.equals(TYPE)) {
                List<String> fields = new ArrayList<>();
                if (random.nextBoolean()) {
                    fields.add("\"maxInFlight\":" + (1 + random.nextInt(4)));
                }
                if (random.nextInt(3) == 0) {
                    fields.add("\"maxNotStarted\":" + (1 + random.nextInt(3)));
                }
                if (random.nextInt(4) == 0) {
                    fields.add("\"maxPerSecond\":" + (random.nextInt(20) + 0.5));
                }
                json = "{" + String.join(",", fields) + "}";
            } else {
                json = "{\"maxInFlight\":" + (1 + random.nextInt(3)) + (random.nextBoolean() ? ",\"weight\":" + (1 + random.nextInt(5)) : "") + "}";
            }
            steps.add("limit " + key + "=" + json);
            try {
                limits.pipeInput(key, json == null ? null : json.getBytes(StandardCharsets.UTF_8), now);
            } catch (RuntimeException | Error e) {
                problems.add("limits record threw " + e);
            }
            if (bad) {
                if (metrics.limitErrors().count() != refusedBefore + 1) {
                    problems.add("a bad limits record was not counted: " + key + " " + json);
                }
            } else if (json == null) {
                limitsModel.remove(key);
            } else {
                limitsModel.put(key, FlowLimit.parse(key, json.getBytes(StandardCharsets.UTF_8)));
            }
            observe();
        }

        private String someExecution() {
            List<String> known = new ArrayList<>(chains.keySet());
            return known.isEmpty() || random.nextInt(4) == 0 ? "e" + chains.size() : known.get(random.nextInt(known.size()));
        }

        private void acquire() {
            String executionId = someExecution();
            boolean known = chains.containsKey(executionId);
            List<String> chain = chains.computeIfAbsent(executionId, e -> CHAINS.get(random.nextInt(CHAINS.size())));
            int attempt = attempts.getOrDefault(executionId, 1) + (known && random.nextInt(3) == 0 ? 1 : 0);
            attempts.put(executionId, attempt);
            steps.add("acquire " + executionId + "#" + attempt + " " + chain);
            model.get(chain.get(0)).acquire(executionId, attempt);
            send("ACQUIRE", executionId, attempt, chain, 0);
        }

        private void release() {
            String executionId = someExecution();
            List<String> chain = chains.getOrDefault(executionId, List.of(TYPE));
            int attempt = attempts.getOrDefault(executionId, 1) - (random.nextInt(5) == 0 ? 1 : 0);
            boolean all = random.nextInt(5) > 0;
            int only = random.nextInt(chain.size());
            steps.add("release " + executionId + "#" + attempt + (all ? " at every gate" : " at " + chain.get(only) + " only"));
            for (int i = 0; i < chain.size(); i++) {
                if (all || i == only) {
                    model.get(chain.get(i)).release(executionId, attempt);
                    send("RELEASE", executionId, attempt, chain, i);
                }
            }
        }

        private void started() {
            String executionId = someExecution();
            List<String> chain = chains.getOrDefault(executionId, List.of(TYPE));
            int attempt = attempts.getOrDefault(executionId, 1);
            steps.add("started " + executionId + "#" + attempt);
            for (int i = 0; i < chain.size(); i++) {
                ModelGate gate = model.get(chain.get(i));
                if (gate.slots.containsKey(executionId) && gate.slots.get(executionId) == attempt) {
                    gate.started.add(executionId);
                }
                send("STARTED", executionId, attempt, chain, i);
            }
        }

        private void advance(long ms) {
            steps.add("advance " + ms);
            now = now.plusMillis(ms);
            try {
                driver.advanceWallClockTime(Duration.ofMillis(ms));
            } catch (RuntimeException | Error e) {
                problems.add("punctuation threw " + e);
            }
            observe();
        }

        private void send(String kind, String executionId, int attempt, List<String> chain, int gateIndex) {
            String json = "{\"kind\":\"" + kind + "\",\"taskId\":\"t-" + executionId + "\",\"executionId\":\"" + executionId
                    + "\",\"attempt\":" + attempt + ",\"jobType\":\"g1\",\"owner\":\"" + (random.nextBoolean() ? "o1" : "o2")
                    + "\",\"priority\":" + random.nextInt(10) + ",\"dueAtMs\":" + now.toEpochMilli()
                    + ",\"state\":\"PENDING\",\"gates\":" + chainJson(chain) + ",\"gateIndex\":" + gateIndex + ",\"heldSinceMs\":"
                    + now.toEpochMilli() + "}";
            try {
                flow.pipeInput(chain.get(gateIndex), json.getBytes(StandardCharsets.UTF_8), now);
            } catch (RuntimeException | Error e) {
                problems.add("flow record threw " + e);
            }
            observe();
        }

        private static String chainJson(List<String> chain) {
            return "[" + String.join(",", chain.stream().map(g -> "\"" + g + "\"").toList()) + "]";
        }

        /** The gates' outputs in order: a forwarded ACQUIRE is a grant at the gate before it, a grant one at the last gate. */
        private void observe() {
            for (TestRecord<String, byte[]> forwarded : flowOut.readRecordsToList()) {
                JsonNode message = json(forwarded.value());
                List<String> chain = chainOf(message);
                int index = message.path("gateIndex").asInt();
                if (!message.path("kind").asText().equals("ACQUIRE") || index < 1) {
                    problems.add("the gate forwarded something other than an ACQUIRE to a next gate: " + message);
                    continue;
                }
                granted(chain.get(index - 1), message.path("executionId").asText(), message.path("attempt").asInt());
                model.get(chain.get(index)).acquire(message.path("executionId").asText(), message.path("attempt").asInt());
            }
            for (TestRecord<String, byte[]> grant : grantsOut.readRecordsToList()) {
                JsonNode message = json(grant.value());
                if (message.hasNonNull("notice")) {
                    // a HELD notice (the gate holds it, the reason for the task's held event): no slot given
                    if (!message.path("notice").asText().equals("HELD") || !message.hasNonNull("reason")) {
                        problems.add("a notice other than HELD with its reason: " + message);
                    }
                    continue;
                }
                List<String> chain = chainOf(message);
                String executionId = message.path("executionId").asText();
                granted(chain.get(chain.size() - 1), executionId, message.path("attempt").asInt());
                if (!("t-" + executionId).equals(grant.key())) {
                    problems.add("grant keyed " + grant.key() + " for " + executionId);
                }
            }
        }

        private void granted(String gateKey, String executionId, int attempt) {
            grants++;
            steps.add("(granted at " + gateKey + ": " + executionId + "#" + attempt + ")");
            ModelGate gate = model.get(gateKey);
            Integer waitingAttempt = gate.waiting.remove(executionId);
            if (waitingAttempt == null) {
                problems.add(gateKey + " granted " + executionId + "#" + attempt + ", which does not wait there");
                return;
            }
            FlowLimit limit = gateKey.equals(TYPE) ? limitsModel.get(TYPE)
                    : limitsModel.getOrDefault(OWNER, limitsModel.get("owner:*"));
            if (limit != null && limit.maxInFlight() != null && gate.slots.size() >= limit.maxInFlight()) {
                problems.add(gateKey + " granted " + executionId + " with " + gate.slots.size() + " slots held: maxInFlight "
                        + limit.maxInFlight() + " exceeded; holders " + gate.slots);
            }
            if (gateKey.equals(TYPE) && limit != null && limit.maxNotStarted() != null && gate.notStarted() >= limit.maxNotStarted()) {
                problems.add(gateKey + " granted " + executionId + " with " + gate.notStarted() + " not started: maxNotStarted "
                        + limit.maxNotStarted() + " exceeded");
            }
            gate.slots.put(executionId, waitingAttempt);
        }

        /** With every limit removed, each execution that still waits anywhere is granted: nothing was lost. */
        private void checkNothingLost() {
            steps.add("remove every limit");
            for (String key : List.of(TYPE, OWNER, "owner:*")) {
                limits.pipeInput(key, (byte[]) null, now);
                limitsModel.remove(key);
            }
            for (int i = 0; i < 5; i++) {
                advance(20);
            }
            for (Map.Entry<String, ModelGate> gate : model.entrySet()) {
                if (!gate.getValue().waiting.isEmpty()) {
                    problems.add("still waiting at " + gate.getKey() + " with no limit left: " + gate.getValue().waiting);
                }
            }
        }

        private static List<String> chainOf(JsonNode message) {
            List<String> chain = new ArrayList<>();
            message.path("gates").forEach(g -> chain.add(g.asText()));
            return chain;
        }

        private static JsonNode json(byte[] bytes) {
            try {
                return MAPPER.readTree(bytes);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void close() {
            driver.close();
        }
    }
}
