package io.ax.app.internal.topology;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ax.AxHeaders;
import io.ax.FlowLimit;
import io.ax.InvalidRequestException;
import io.ax.app.fuzz.AnswerLedger;
import io.ax.app.fuzz.FuzzSettings;
import io.ax.app.fuzz.HostileInternalRecords;
import io.ax.app.fuzz.HostileInternalRecords.Expect;
import io.ax.app.fuzz.HostileInternalRecords.Internal;
import io.ax.app.fuzz.Quarantine;
import io.ax.validation.ScheduleValidator;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fuzz of the scheduler's own topics ({@code ax.deps}, {@code ax.flow}, {@code ax.flow-grants}) and of {@code ax.limits},
 * through the topology in a TopologyTestDriver ({@link HostileInternalRecords} makes the records). A run first sets up
 * tasks that must stay unaffected: a job type limited to one execution in flight with one task dispatched and one held,
 * and an ungated task dispatched. Per record the oracle is:
 * <ul>
 *   <li>no exception out of {@code pipeInput} and nothing quarantined (an exception out of a processor);</li>
 *   <li>deps and grants: the answer the record is owed on ax.state (REJECTED or IGNORED with its coordinates), never two;
 *       flow records: none (a bad one is logged and skipped);</li>
 *   <li>limits: a good record is applied (the store holds it), a bad one is counted ({@code ax_flow_limit_records_refused})
 *       and the key's previous limits stay;</li>
 *   <li>the tasks set up are unaffected: the held task is never dispatched, no (executionId, attempt) is dispatched twice,
 *       every output under the size bound, and a canary after the record is dispatched within one tick.</li>
 * </ul>
 *
 * <p>CI runs {@value #CI_COUNT} records. A larger run, a random seed, single records again:
 * <pre>
 * mvn -B -ntp -pl ax-streams-app -am test -Dtest=FuzzInternalTopicsTest -Dsurefire.failIfNoSpecifiedTests=false -Dax.fuzz.count=20000
 * ... -Dax.fuzz.seed=random          (the seed is printed in every failure)
 * ... -Dax.fuzz.seed=S -Dax.fuzz.only=17,342
 * </pre>
 */
@Tag("fuzz")
class FuzzInternalTopicsTest {
    static final int CI_COUNT = 900;
    /** Sequences of the waiting-task test at CI size; a larger -Dax.fuzz.count scales them alike. */
    static final int WAITER_CI_SEQUENCES = 30;
    /** A reason shown to operators quotes values short (LIMITS.md): a few hundred chars, never the record. */
    static final int MAX_REASON_CHARS = 1_024;
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final long TICK_MS = 10;

    @Test
    void shouldSkipOrAnswerEveryInternalRecordAndLeaveTasksUnaffected(@TempDir Path stateRoot) {
        FuzzSettings settings = FuzzSettings.fromSystemProperties(CI_COUNT);
        HostileInternalRecords generator = new HostileInternalRecords(settings.seed());
        List<String> failures = new ArrayList<>();
        Map<String, int[]> figures = new TreeMap<>();
        Run run = new Run(stateRoot, 1);
        try {
            for (int index : settings.indexes()) {
                Internal record = generator.get(index);
                List<String> problems = run.send(record);
                int[] row = figures.computeIfAbsent(record.kind().replaceAll("/(valid|tombstone)?[^/]*$", "/$1")
                        .replaceAll("/$", ""), k -> new int[2]);
                row[0]++;
                if (!problems.isEmpty()) {
                    row[1]++;
                    failures.add(record.describe() + "\n    " + String.join("\n    ", problems));
                    run.close();
                    run = new Run(stateRoot, index + 2);
                    if (failures.size() >= settings.stopAfterFailures()) {
                        break;
                    }
                }
            }
        } finally {
            run.close();
            StringBuilder text = new StringBuilder("=== fuzz figures: internal topics, " + settings + " ===\n");
            figures.forEach((kind, row) -> text.append(String.format("%-40s %7d tried %5d broken%n", kind, row[0], row[1])));
            System.out.println(text);
        }
        assertThat(failures).as(() -> settings + ": " + failures.size() + " broken records:\n" + String.join("\n", failures)
                + "\nagain: " + settings.reproduce("FuzzInternalTopicsTest", List.of())).isEmpty();
    }

    /**
     * Notifications for a task that waits ({@code after} three tasks, one condition of each kind), forged on ax.deps in
     * random order: from tasks it waits for, from others and from itself, duplicated, contradicting each other. A model of
     * WORKFLOWS.md (the latest outcome recorded per task waited for replaces the one before) says when the task may be
     * released: never before, never dispatched twice, never after it was cancelled; every notification answered at most
     * once, nothing quarantined.
     */
    @Test
    void shouldReleaseAWaitingTaskOnlyWhenTheNotificationsItWaitsForSaySo(@TempDir Path stateRoot) {
        FuzzSettings records = FuzzSettings.fromSystemProperties(CI_COUNT); // one sequence per 30 records of the other test
        FuzzSettings settings = new FuzzSettings(records.seed(), Math.max(1, records.count() / (CI_COUNT / WAITER_CI_SEQUENCES)),
                records.only(), records.stopAfterFailures());
        List<String> failures = new ArrayList<>();
        List<String> upstreams = List.of("up-a", "up-b", "up-c", "up-z", "waiter");
        List<String> outcomes = List.of("SUCCESS", "FAILED", "CANCELLED", "PURGED");
        for (int run : settings.indexes()) {
            java.util.SplittableRandom random = new java.util.SplittableRandom(settings.seed() ^ (run * 0x9E3779B97F4A7C15L) ^ 0xD0);
            boolean runAnyway = random.nextBoolean();
            long afterDelayMs = List.of(0L, 1_000L, ScheduleValidator.MAX_DELAY_MS).get(random.nextInt(3));
            long delayMs = List.of(0L, 60_000L, ScheduleValidator.MAX_DELAY_MS).get(random.nextInt(3));
            List<String> steps = new ArrayList<>();
            List<String> problems = new ArrayList<>();
            try (SchedulerHarness ax = new SchedulerHarness(stateRoot.resolve("waiter-" + run), Map.of())) {
                ax.request("waiter", "{\"jobType\":\"fzw\",\"after\":[{\"taskId\":\"up-a\",\"on\":\"SUCCESS\"},"
                        + "{\"taskId\":\"up-b\",\"on\":\"FAILURE\"},{\"taskId\":\"up-c\",\"on\":\"COMPLETED\"}],"
                        + "\"afterRunAnyway\":" + runAnyway + ",\"afterDelayMs\":" + afterDelayMs + ",\"delayMs\":" + delayMs + "}");
                long acceptedAtMs = ax.nowMs();
                long metAtMs = -1;
                Map<String, String> recorded = new HashMap<>();
                String modelState = "WAITING";
                String actualState = null;
                int dispatches = 0;
                long offset = 0;
                for (int i = 0; i < 12 && problems.isEmpty(); i++) {
                    for (JsonNode event : ax.events()) {
                        actualState = event.path("taskId").asText().equals("waiter") && !event.has("source")
                                ? event.path("to").asText() : actualState;
                    }
                    String upstream = upstreams.get(random.nextInt(upstreams.size()));
                    String outcome = outcomes.get(random.nextInt(outcomes.size()));
                    steps.add(upstream + " " + outcome);
                    byte[] signal = io.ax.codec.WireCodec.encode(io.ax.schema.DependencySignal.newBuilder()
                            .setKind(io.ax.schema.DependencySignalKind.NOTIFY).setUpstream(upstream).setDependent("waiter")
                            .setOutcome(outcome).setExecutionId("x-" + i).setAtMs(ax.nowMs()).build());
                    for (TestRecord<byte[], byte[]> r : ax.drainRaw(ax.topics.deps())) {
                        offset++; // the scheduler's own SUBSCRIBEs took offsets
                    }
                    long at = offset++;
                    try {
                        ax.pipeRaw(ax.topics.deps(), "waiter".getBytes(StandardCharsets.UTF_8), signal, ax.nowMs());
                        ax.advanceMs(TICK_MS);
                    } catch (RuntimeException | Error e) {
                        problems.add("threw " + TopologyFuzzRun.describe(e));
                    }
                    if (modelState.equals("WAITING") && List.of("up-a", "up-b", "up-c").contains(upstream)) {
                        recorded.put(upstream, outcome);
                        modelState = waiterState(recorded, runAnyway);
                        metAtMs = modelState.equals("RELEASED") ? ax.nowMs() - TICK_MS : metAtMs;
                    }
                    int answers = 0;
                    for (JsonNode event : ax.events()) {
                        if (event.has("source") && event.path("source").path("offset").asLong() == at
                                && event.path("source").path("topic").asText().equals(ax.topics.deps())) {
                            answers++;
                        }
                        if (event.path("taskId").asText().equals("waiter") && !event.has("source")) {
                            actualState = event.path("to").asText();
                            if (actualState.equals("PENDING") && event.hasNonNull("dueAt") && metAtMs >= 0) {
                                long dueMs = Instant.parse(event.get("dueAt").asText()).toEpochMilli();
                                long earliestMs = Math.max(metAtMs + afterDelayMs, acceptedAtMs + delayMs);
                                if (dueMs < earliestMs) {
                                    problems.add("released due " + dueMs + ", before max(met + afterDelayMs, its own trigger) = " + earliestMs);
                                }
                            }
                        }
                    }
                    for (SchedulerHarness.Dispatched d : ax.dispatches()) {
                        dispatches++;
                        if (metAtMs < 0 || d.timestampMs() < Math.max(metAtMs + afterDelayMs, acceptedAtMs + delayMs)) {
                            problems.add("dispatched at " + d.timestampMs() + ", before it was due (met " + metAtMs + ")");
                        }
                    }
                    if (answers > 1) {
                        problems.add("a notification answered " + answers + " times");
                    }
                    if (!ax.drainRaw(Quarantine.topic(ax.topics)).isEmpty()) {
                        problems.add("quarantined");
                    }
                    if (dispatches > 1) {
                        problems.add("the waiting task was dispatched " + dispatches + " times");
                    }
                    boolean released = actualState != null && List.of("PENDING", "TRIGGERED").contains(actualState);
                    if ((released || dispatches > 0) && !modelState.equals("RELEASED")) {
                        problems.add("released (" + actualState + ", " + dispatches + " dispatches) while the model says " + modelState
                                + " (recorded " + recorded + ")");
                    }
                    if (modelState.equals("RELEASED") && !released && dispatches == 0) {
                        problems.add("every condition is met or settled (" + recorded + ") but the task is " + actualState);
                    }
                    if (modelState.equals("CANCELLED") && !"CANCELLED".equals(actualState)) {
                        problems.add("a condition can no longer be met (" + recorded + ") but the task is " + actualState);
                    }
                }
            }
            if (!problems.isEmpty()) {
                failures.add("sequence " + run + " (afterRunAnyway " + runAnyway + ", afterDelayMs " + afterDelayMs + ", delayMs "
                        + delayMs + "): " + problems + "\n    notifications: " + steps);
            }
        }
        assertThat(failures).as(() -> settings + ":\n" + String.join("\n", failures)).isEmpty();
    }

    /** WAITING, RELEASED or CANCELLED, by WORKFLOWS.md's rules, for the outcomes recorded so far. */
    private static String waiterState(Map<String, String> recorded, boolean runAnyway) {
        Map<String, java.util.function.Predicate<String>> met = Map.of("up-a", "SUCCESS"::equals, "up-b", "FAILED"::equals,
                "up-c", o -> !o.equals("PURGED"));
        boolean all = true;
        for (Map.Entry<String, java.util.function.Predicate<String>> condition : met.entrySet()) {
            String outcome = recorded.get(condition.getKey());
            if (outcome == null) {
                all = false;
            } else if (!condition.getValue().test(outcome) && !runAnyway) {
                return "CANCELLED";
            }
        }
        return all ? "RELEASED" : "WAITING";
    }

    /** One driver with the tasks that must stay unaffected. */
    private static final class Run implements AutoCloseable {
        private final SchedulerHarness ax;
        private final Map<String, Long> offsets = new HashMap<>();
        private final Set<String> dispatched = new HashSet<>();
        private final Map<String, String> limitsModel = new HashMap<>();
        private final Map<String, TestRecord<byte[], byte[]>> kept = new HashMap<>();
        private final String gated1;
        private final String gated2;
        private final String bystander;
        private int canaries;

        Run(Path stateRoot, int serial) {
            ax = new SchedulerHarness(stateRoot.resolve("internal-" + serial), Map.of());
            gated1 = "gated-1";
            gated2 = "gated-2";
            bystander = "bystander";
            List<String> setup = new ArrayList<>();
            pipe(ax.topics.limits(), "type:" + HostileInternalRecords.RUN_GATED_TYPE, "{\"maxInFlight\":1}", setup);
            limitsModel.put("type:" + HostileInternalRecords.RUN_GATED_TYPE, "{\"maxInFlight\":1}");
            for (String task : List.of(gated1, gated2)) {
                pipe(ax.topics.requests(), task, "{\"jobType\":\"" + HostileInternalRecords.RUN_GATED_TYPE + "\",\"delayMs\":0}", setup);
            }
            pipe(ax.topics.requests(), bystander, "{\"jobType\":\"fzb\",\"delayMs\":0}", setup);
            for (int i = 0; i < 5; i++) {
                tick(setup);
                drain(ax.topics.requests(), -1, setup);
            }
            assertThat(setup).as("setup").isEmpty();
            assertThat(dispatched).as("set up: one gated task and the bystander dispatched").hasSize(2);
            assertThat(kept.keySet()).as("set up: the grant and ACQUIREs to replay").containsAll(HostileInternalRecords.REPLAYS);
        }

        private long takeOffset(String topic) {
            return offsets.merge(topic, 1L, Long::sum) - 1;
        }

        private long pipe(String topic, String key, String value, List<String> problems) {
            return pipeBytes(topic, key, value == null ? null : value.getBytes(StandardCharsets.UTF_8), problems);
        }

        private long pipeBytes(String topic, String key, byte[] value, List<String> problems) {
            long offset = takeOffset(topic);
            try {
                ax.pipeRaw(topic, key == null ? null : key.getBytes(StandardCharsets.UTF_8), value, ax.nowMs());
            } catch (RuntimeException | Error e) {
                problems.add("pipeInput threw " + TopologyFuzzRun.describe(e));
            }
            return offset;
        }

        private void tick(List<String> problems) {
            try {
                ax.advanceMs(TICK_MS);
            } catch (RuntimeException | Error e) {
                problems.add("the wall-clock punctuation threw " + TopologyFuzzRun.describe(e));
            }
        }

        /** Reads every output: answers to {@code topic}@{@code offset} returned, the other properties checked. */
        private List<String> drain(String topic, long offset, List<String> problems) {
            List<String> answers = new ArrayList<>();
            for (String internal : List.of(ax.topics.deps(), ax.topics.flow(), ax.topics.flowGrants())) {
                for (TestRecord<byte[], byte[]> r : ax.drainRaw(internal)) {
                    takeOffset(internal); // the scheduler's own records take offsets too
                    maybeKeep(internal, r);
                }
            }
            for (TestRecord<byte[], byte[]> out : ax.drainRaw(ax.topics.state())) {
                checkSize(ax.topics.state(), out, problems);
                JsonNode event;
                try {
                    event = MAPPER.readTree(out.value());
                } catch (IOException e) {
                    problems.add("an ax.state record that is not JSON");
                    continue;
                }
                JsonNode source = event.get("source");
                if (source != null && source.path("topic").asText().equals(topic) && source.path("offset").asLong() == offset) {
                    answers.add(event.path("to").asText());
                }
                String taskId = event.path("taskId").asText();
                if (taskId.equals(gated2) && event.path("to").asText().equals("TRIGGERED")) {
                    problems.add("the held task was dispatched: " + event);
                }
            }
            for (TestRecord<byte[], byte[]> out : ax.drainRaw(ax.topics.dispatch())) {
                checkSize(ax.topics.dispatch(), out, problems);
                String key = new String(out.key(), StandardCharsets.UTF_8);
                String id = header(out, AxHeaders.EXECUTION_ID) + "/" + header(out, AxHeaders.ATTEMPT) + "/" + header(out, AxHeaders.KIND);
                if (!dispatched.add(id)) {
                    problems.add("dispatched " + id + " of " + key + " twice");
                }
                if (key.equals(gated2)) {
                    problems.add("the held task " + gated2 + " was dispatched past its type's maxInFlight 1");
                }
            }
            for (TestRecord<byte[], byte[]> out : ax.drainRaw(Quarantine.topic(ax.topics))) {
                problems.add("quarantined (an exception escaped a processor): " + header(out, "ax-error"));
            }
            return answers;
        }

        /** Keeps the first grant and ACQUIREs of the gated tasks, which replayed later must change nothing. */
        private void maybeKeep(String topic, TestRecord<byte[], byte[]> record) {
            String value = record.value() == null ? "" : new String(record.value(), StandardCharsets.UTF_8);
            String key = record.key() == null ? "" : new String(record.key(), StandardCharsets.UTF_8);
            if (topic.equals(ax.topics.flowGrants()) && key.equals(gated1)) {
                kept.putIfAbsent(HostileInternalRecords.REPLAYS.get(0), record);
            } else if (topic.equals(ax.topics.flow()) && value.contains("\"ACQUIRE\"")) {
                kept.putIfAbsent(value.contains("\"" + gated1 + "\"") ? HostileInternalRecords.REPLAYS.get(1)
                        : value.contains("\"" + gated2 + "\"") ? HostileInternalRecords.REPLAYS.get(2) : "other", record);
            }
        }

        private static String header(TestRecord<byte[], byte[]> record, String name) {
            Header header = record.headers().lastHeader(name);
            return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
        }

        private static void checkSize(String topic, TestRecord<byte[], byte[]> out, List<String> problems) {
            long size = (out.key() == null ? 0 : out.key().length) + (out.value() == null ? 0 : out.value().length);
            if (size >= AnswerLedger.MAX_OUTPUT_BYTES) {
                problems.add("wrote a " + size + "-byte record to " + topic);
            }
        }

        List<String> send(Internal generated) {
            List<String> problems = new ArrayList<>();
            Internal record = generated;
            if (HostileInternalRecords.REPLAYS.contains(generated.kind())) {
                TestRecord<byte[], byte[]> copy = kept.get(generated.kind());
                record = new Internal(generated.origin(), generated.kind(), generated.topic(),
                        new String(copy.key(), StandardCharsets.UTF_8), copy.value(), generated.expect());
            }
            String topic = switch (record.topic()) {
                case "deps" -> ax.topics.deps();
                case "flow" -> ax.topics.flow();
                case "flow-grants" -> ax.topics.flowGrants();
                default -> ax.topics.limits();
            };
            long refusedBefore = ax.metrics.limitErrors().count();
            long skippedBefore = ax.metrics.flowRecordsSkipped();
            long offset = pipeBytes(topic, record.key(), record.value(), problems);
            List<String> answers = drain(topic, offset, problems);
            tick(problems);
            answers.addAll(drain(topic, offset, problems));
            switch (record.expect()) {
                case ONE_ANSWER -> {
                    if (answers.size() != 1) {
                        problems.add("owed one answer on ax.state with source " + topic + "@" + offset + ", got " + answers);
                    }
                }
                case AT_MOST_ONE_ANSWER -> {
                    if (answers.size() > 1) {
                        problems.add("answered " + answers.size() + " times: " + answers);
                    }
                }
                case LIMIT_APPLIED, LIMIT_REFUSED -> checkLimits(record, refusedBefore, problems);
            }
            if (topic.equals(ax.topics.flow()) && !answers.isEmpty()) {
                problems.add("a flow record is answered on ax.state with its source: " + answers);
            }
            if (topic.equals(ax.topics.flow()) && record.kind().startsWith("flow/bytes/")
                    && ax.metrics.flowRecordsSkipped() != skippedBefore + 1) {
                problems.add("a flow record that is not a flow message was not counted as skipped (ax_flow_records_skipped)");
            }
            fireCanary(problems);
            return problems;
        }

        private void checkLimits(Internal record, long refusedBefore, List<String> problems) {
            long refused = ax.metrics.limitErrors().count() - refusedBefore;
            if (record.expect() == Expect.LIMIT_APPLIED) {
                String expected = null;
                if (record.value() != null) {
                    try {
                        expected = FlowLimit.parse(record.key(), record.value()).toJson();
                    } catch (InvalidRequestException e) {
                        problems.add("the generator's valid limits record does not parse: " + e.getMessage());
                        return;
                    }
                }
                if (refused != 0) {
                    problems.add("a valid limits record was refused: " + ax.metrics.limitErrors().last());
                }
                if (expected == null) {
                    limitsModel.remove(record.key());
                } else {
                    limitsModel.put(record.key(), expected);
                }
            } else if (refused != 1) {
                problems.add("a bad limits record was counted " + refused + " times as refused, not once");
            } else {
                List<io.ax.app.internal.metrics.RefusedRecords.Refused> last = ax.metrics.limitErrors().last();
                String reason = last.get(last.size() - 1).reason();
                if (reason.length() > MAX_REASON_CHARS) {
                    problems.add("the refusal's reason is " + reason.length() + " chars (kept for GET /limits and logged; bound "
                            + MAX_REASON_CHARS + ")");
                }
            }
            if (record.key() != null) {
                String stored = ax.limitsStore().get(record.key());
                if (!Objects.equals(stored, limitsModel.get(record.key()))) {
                    problems.add("limits of " + record.key() + " are " + stored + ", expected " + limitsModel.get(record.key())
                            + (record.expect() == Expect.LIMIT_REFUSED ? " (the previous ones must stay)" : ""));
                }
            }
        }

        private void fireCanary(List<String> problems) {
            String key = "canary-" + (++canaries);
            pipe(ax.topics.requests(), key, "{\"jobType\":\"canary\",\"delayMs\":0}", problems);
            int before = dispatched.size();
            drain(ax.topics.requests(), -1, problems);
            tick(problems);
            drain(ax.topics.requests(), -1, problems);
            if (dispatched.size() <= before) {
                problems.add("the canary " + key + " sent after it was not dispatched within one tick");
            }
        }

        @Override
        public void close() {
            try {
                ax.close();
            } catch (RuntimeException e) {
                // broken already
            }
        }
    }
}
