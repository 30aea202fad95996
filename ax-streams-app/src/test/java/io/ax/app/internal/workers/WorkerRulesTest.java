package io.ax.app.internal.workers;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.ax.app.internal.workers.WorkerRules.Liveness;
import io.ax.app.internal.workers.WorkerRules.Verdict;
import io.ax.codec.StrictJson;
import io.ax.codec.WorkerAnnouncement;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The registry's rules without Kafka: the verdict on one worker, and every decision on a record or a check, applied to an
 * in-memory registry ({@link MemoryRegistry}) that records the effects the processor would apply.
 */
class WorkerRulesTest {
    private static final long T0 = 1_000_000;
    private final WorkerRules rules = new WorkerRules(new WorkerRegistrySettings(2, 3, 1_000, 60_000));
    private final MemoryRegistry registry = new MemoryRegistry();

    @Test
    void shouldDeclareAWorkerDeadAfterExactlyThreeOfItsHeartbeatsOfSilence() {
        Liveness worker = new Liveness(T0, 10_000, false, 0);

        assertThat(rules.check(worker, T0 + 29_999, 0, T0 + 29_999)).isEqualTo(Verdict.NONE);
        assertThat(rules.check(worker, T0 + 30_000, 0, T0 + 30_000)).isEqualTo(Verdict.DEAD);
        assertThat(rules.check(worker, T0 + 30_001, 0, T0 + 30_001)).isEqualTo(Verdict.DEAD);
    }

    @Test
    void shouldCountSilenceInTheWorkersOwnHeartbeat() {
        assertThat(rules.check(new Liveness(T0, 500, false, 0), T0 + 1_499, 0, T0 + 1_499)).isEqualTo(Verdict.NONE);
        assertThat(rules.check(new Liveness(T0, 500, false, 0), T0 + 1_500, 0, T0 + 1_500)).isEqualTo(Verdict.DEAD);
        assertThat(rules.check(new Liveness(T0, 60_000, false, 0), T0 + 179_999, 0, T0 + 179_999)).isEqualTo(Verdict.NONE);
    }

    @Test
    void shouldNotDeclareAnyoneDeadBeforeTheRegistryHasWatchedForThreeHeartbeats() {
        // a scheduler back after 10 minutes down: the announcements sent meanwhile may not be read yet
        long watchingSinceMs = T0 + 600_000;
        Liveness lastHeardLongAgo = new Liveness(T0, 10_000, false, 0);

        assertThat(rules.check(lastHeardLongAgo, watchingSinceMs + 29_999, watchingSinceMs, watchingSinceMs + 29_999)).isEqualTo(Verdict.NONE);
        assertThat(rules.check(lastHeardLongAgo, watchingSinceMs + 30_000, watchingSinceMs, watchingSinceMs + 30_000)).isEqualTo(Verdict.DEAD);
    }

    @Test
    void shouldCountSilenceOnlyAsFarAsTheWorkersTopicIsProvenRead() {
        Liveness worker = new Liveness(T0, 10_000, false, 0);

        // a scheduler behind its input: the clock says 60 s of silence, the topic is read up to 20 s after the last word
        assertThat(rules.check(worker, T0 + 60_000, 0, T0 + 20_000)).isEqualTo(Verdict.NONE);
        assertThat(rules.check(worker, T0 + 60_000, 0, T0 + 29_999)).isEqualTo(Verdict.NONE);
        assertThat(rules.check(worker, T0 + 60_000, 0, T0 + 30_000)).isEqualTo(Verdict.DEAD);
        // a proof ahead of the clock (a producer's clock ahead) does not make anyone dead before its time
        assertThat(rules.check(worker, T0 + 29_999, 0, Long.MAX_VALUE)).isEqualTo(Verdict.NONE);
    }

    @Test
    void shouldNotDeclareAWorkerWhoseAnnouncementIsNotReadYetButOnceTheTopicIsReadPastItsAllowance() {
        announce("w-1", T0);
        registry.effects.clear();

        rules.checkAll(T0 + 45_000, 0, T0 + 25_000, registry, registry);
        assertThat(registry.effects).as("its next announcement may be among those not read yet").isEmpty();

        rules.checkAll(T0 + 46_000, 0, T0 + 30_000, registry, registry);
        assertThat(registry.effects).contains("dead w-1: silent for 46000 ms (3 heartbeats of 10000 ms); 0 execution(s) in flight");
    }

    @Test
    void shouldGiveTheEarliestTimeALiveWorkerCouldBeDeclaredDead() {
        assertThat(rules.earliestDeathMs(Map.of(), 0)).isEqualTo(Long.MAX_VALUE);
        Map<String, Liveness> listed = Map.of(
                "slow", new Liveness(T0, 60_000, false, 0),
                "fast", new Liveness(T0 + 5_000, 1_000, false, 0),
                "dead", new Liveness(T0 - 100_000, 1_000, true, T0 - 97_000));

        assertThat(rules.earliestDeathMs(listed, 0)).as("the fast one, 3 of its heartbeats after its last word").isEqualTo(T0 + 8_000);
        assertThat(rules.earliestDeathMs(listed, T0 + 100_000)).as("counted from when the registry started watching")
                .isEqualTo(T0 + 103_000);
        assertThat(rules.earliestDeathMs(Map.of("max", new Liveness(Long.MAX_VALUE - 1, 3_600_000, false, 0)), 0))
                .as("no overflow").isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void shouldForgetADeadWorkerAfterTheRetentionAndNotDeclareItTwice() {
        Liveness dead = new Liveness(T0, 10_000, true, T0 + 30_000);

        assertThat(rules.check(dead, T0 + 30_000 + 59_999, 0, T0 + 30_000 + 59_999)).isEqualTo(Verdict.NONE);
        assertThat(rules.check(dead, T0 + 30_000 + 60_000, 0, T0 + 30_000 + 60_000)).isEqualTo(Verdict.FORGET);
    }

    @Test
    void shouldAdmitNewWorkersUpToTheBound() {
        assertThat(rules.admits(0)).isTrue();
        assertThat(rules.admits(1)).isTrue();
        assertThat(rules.admits(2)).isFalse();
    }

    // ---- decisions on records and checks ----

    private static byte[] announcement(String id, long heartbeatMs, String inFlight) {
        return ("{\"workerId\":\"" + id + "\",\"host\":\"h1\",\"heartbeatMs\":" + heartbeatMs + ",\"jobTypes\":[\"email\"],"
                + "\"inFlight\":[" + inFlight + "]}").getBytes(StandardCharsets.UTF_8);
    }

    private void announce(String id, long nowMs) {
        rules.decide(id, announcement(id, 10_000, ""), nowMs, registry, registry);
    }

    @Test
    void shouldKeepANewWorkersAnnouncementAndCountItOnce() {
        announce("w-1", T0);

        assertThat(registry.stored.get("w-1")).satisfies(entry -> {
            assertThat(entry.dead()).isFalse();
            assertThat(entry.lastSeenMs()).isEqualTo(T0);
            assertThat(entry.announcement().heartbeatMs()).isEqualTo(10_000);
        });
        assertThat(registry.listed).containsEntry("w-1", new Liveness(T0, 10_000, false, 0));
        assertThat(registry.effects).containsExactly("put w-1", "note Worker \"w-1\" joined (heartbeat 10000 ms, job types [email])",
                "counts");

        registry.effects.clear();
        announce("w-1", T0 + 10_000);
        assertThat(registry.effects).as("a heartbeat: stored, no count, no line").containsExactly("put w-1");
        assertThat(registry.stored.get("w-1").lastSeenMs()).isEqualTo(T0 + 10_000);
    }

    @Test
    void shouldRefuseABadAnnouncementWithItsReasonAndChangeNothing() {
        announce("w-1", T0);
        registry.effects.clear();

        rules.decide("w-1", "{\"workerId\":\"w-1\",\"heartbeatMs\":5}".getBytes(StandardCharsets.UTF_8), T0 + 1, registry, registry);
        rules.decide("w-2", announcement("other", 1_000, ""), T0 + 1, registry, registry);
        rules.decide("w-3", new byte[] {(byte) 0xC3, 1, 2, 3}, T0 + 1, registry, registry);

        assertThat(registry.effects).hasSize(3).allSatisfy(effect -> assertThat(effect).startsWith("refuse "));
        assertThat(registry.effects.get(0)).contains("heartbeatMs must be from 100");
        assertThat(registry.effects.get(1)).startsWith("refuse w-2").contains("is not the record key");
        assertThat(registry.effects.get(2)).contains("malformed JSON");
        assertThat(registry.stored.get("w-1").lastSeenMs()).as("the previous announcement stays").isEqualTo(T0);
        assertThat(registry.stored).containsOnlyKeys("w-1");
    }

    @Test
    void shouldRefuseANewWorkerBeyondTheBoundButKeepHearingTheKnownOnes() {
        announce("w-1", T0);
        announce("w-2", T0);
        registry.effects.clear();

        announce("w-3", T0 + 1);
        announce("w-1", T0 + 2);

        assertThat(registry.effects).containsExactly("refuse w-3: the registry holds ax.workers.max (2) workers already", "put w-1");
        assertThat(registry.stored).containsOnlyKeys("w-1", "w-2");
    }

    @Test
    void shouldDeclareASilentWorkerDeadOnceNamingItsExecutionsInFlight() {
        rules.decide("w-1", announcement("w-1", 1_000, "{\"executionId\":\"e-1\",\"taskId\":\"t-1\",\"jobType\":\"email\",\"attempt\":2}"),
                T0, registry, registry);
        registry.effects.clear();

        rules.checkAll(T0 + 2_999, 0, T0 + 2_999, registry, registry);
        assertThat(registry.effects).as("silent for less than 3 heartbeats").isEmpty();

        rules.checkAll(T0 + 3_000, 0, T0 + 3_000, registry, registry);
        assertThat(registry.effects).containsExactly("put w-1", "line w-1 DEAD",
                "dead w-1: silent for 3000 ms (3 heartbeats of 1000 ms); 1 execution(s) in flight", "counts");
        assertThat(registry.lines).singleElement().satisfies(line -> {
            assertThat(line.path("worker").asText()).isEqualTo("w-1");
            assertThat(line.has("taskId")).as("about no task").isFalse();
            assertThat(line.path("at").asText()).isEqualTo(Instant.ofEpochMilli(T0 + 3_000).toString());
            assertThat(line.path("lastSeenAt").asText()).isEqualTo(Instant.ofEpochMilli(T0).toString());
            assertThat(line.path("inFlight").get(0).path("executionId").asText()).isEqualTo("e-1");
            assertThat(line.path("inFlightCount").asInt()).isEqualTo(1);
        });
        assertThat(registry.stored.get("w-1")).satisfies(entry -> {
            assertThat(entry.dead()).isTrue();
            assertThat(entry.deadAtMs()).isEqualTo(T0 + 3_000);
            assertThat(entry.lastSeenMs()).isEqualTo(T0);
        });

        registry.effects.clear();
        rules.checkAll(T0 + 10_000, 0, T0 + 10_000, registry, registry);
        assertThat(registry.effects).as("declared dead once").isEmpty();
    }

    @Test
    void shouldCountSilenceInTheReasonFromWhenTheRegistryStartedWatching() {
        announce("w-1", T0);
        registry.effects.clear();
        long watchingSinceMs = T0 + 600_000;

        rules.checkAll(watchingSinceMs + 29_999, watchingSinceMs, watchingSinceMs + 29_999, registry, registry);
        assertThat(registry.effects).isEmpty();
        rules.checkAll(watchingSinceMs + 30_000, watchingSinceMs, watchingSinceMs + 30_000, registry, registry);
        assertThat(registry.effects).contains("dead w-1: silent for 30000 ms (3 heartbeats of 10000 ms); 0 execution(s) in flight");
    }

    @Test
    void shouldListADeadWorkerThatAnnouncesAgainAsAlive() {
        announce("w-1", T0);
        rules.checkAll(T0 + 30_000, 0, T0 + 30_000, registry, registry);
        registry.effects.clear();
        registry.lines.clear();

        announce("w-1", T0 + 40_000);

        assertThat(registry.effects).containsExactly("line w-1 ALIVE",
                "note Worker \"w-1\" announced again after it was declared dead", "put w-1", "counts");
        assertThat(registry.lines).singleElement().satisfies(line -> assertThat(line.path("reason").asText())
                .isEqualTo("announced again after it was declared dead at " + Instant.ofEpochMilli(T0 + 30_000)));
        assertThat(registry.stored.get("w-1").dead()).isFalse();
        assertThat(registry.listed.get("w-1").dead()).isFalse();
    }

    @Test
    void shouldRemoveAWorkerThatSaysGoodbyeWithALeftLine() {
        announce("w-1", T0);
        registry.effects.clear();

        rules.decide("w-1", null, T0 + 5, registry, registry);

        assertThat(registry.effects).containsExactly("delete w-1", "counts", "line w-1 LEFT", "note Worker \"w-1\" left (goodbye)");
        assertThat(registry.lines).singleElement().satisfies(line -> {
            assertThat(line.path("reason").asText()).isEqualTo("said goodbye (tombstone on the workers topic)");
            assertThat(line.path("lastSeenAt").asText()).isEqualTo(Instant.ofEpochMilli(T0).toString());
        });
        assertThat(registry.stored).isEmpty();
        assertThat(registry.listed).isEmpty();
    }

    @Test
    void shouldIgnoreAGoodbyeOfAWorkerItDoesNotList() {
        rules.decide("w-1", null, T0, registry, registry); // e.g. the tombstone the registry wrote when it forgot w-1
        rules.decide(null, null, T0, registry, registry);

        assertThat(registry.effects).isEmpty();
    }

    @Test
    void shouldForgetADeadWorkerAfterTheRetentionAndTombstoneItsAnnouncement() {
        announce("w-1", T0);
        rules.checkAll(T0 + 30_000, 0, T0 + 30_000, registry, registry);
        registry.effects.clear();

        rules.checkAll(T0 + 30_000 + 59_999, 0, T0 + 30_000 + 59_999, registry, registry);
        assertThat(registry.effects).isEmpty();
        rules.checkAll(T0 + 30_000 + 60_000, 0, T0 + 30_000 + 60_000, registry, registry);

        assertThat(registry.effects).containsExactly("delete w-1", "tombstone w-1", "counts");
        assertThat(registry.stored).isEmpty();
    }

    @Test
    void shouldStopListingAWorkerWhoseEntryIsNoLongerStoredWithoutALine() {
        announce("w-1", T0);
        registry.stored.remove("w-1");
        registry.effects.clear();

        rules.checkAll(T0 + 30_000, 0, T0 + 30_000, registry, registry);

        assertThat(registry.effects).containsExactly("unlist w-1", "counts");
        assertThat(registry.listed).isEmpty();
    }

    @Test
    void shouldListWhatTheStoreHoldsAtAssignmentAndForgetAnEntryThatDoesNotRead() {
        WorkerEntry alive = WorkerEntry.alive(WorkerAnnouncement.parse("w-1", announcement("w-1", 10_000, "")), T0);
        WorkerEntry dead = WorkerEntry.alive(WorkerAnnouncement.parse("w-3", announcement("w-3", 1_000, "")), T0)
                .markedDead(T0 + 3_000);
        Map<String, byte[]> store = new LinkedHashMap<>();
        store.put("w-1", alive.encode());
        store.put("w-2", "{\"written by\":\"another version\"}".getBytes(StandardCharsets.UTF_8));
        store.put("w-3", dead.encode());
        registry.stored.put("w-2", alive); // stands for the unreadable bytes, so the delete is seen

        rules.load(store::forEach, registry);

        assertThat(registry.effects).hasSize(5);
        assertThat(registry.effects.get(0)).isEqualTo("list w-1");
        assertThat(registry.effects.get(1)).startsWith("warn Worker \"w-2\" in the registry store cannot be read and is forgotten: ");
        assertThat(registry.effects.subList(2, 5)).containsExactly("delete w-2", "list w-3", "counts");
        assertThat(registry.listed).containsOnlyKeys("w-1", "w-3");
        assertThat(registry.listed.get("w-1")).isEqualTo(new Liveness(T0, 10_000, false, 0));
        assertThat(registry.listed.get("w-3")).isEqualTo(new Liveness(T0, 1_000, true, T0 + 3_000));
        assertThat(registry.stored).doesNotContainKey("w-2");
    }

    @Test
    void shouldPublishTheCountsOfAnEmptyStore() {
        rules.load(each -> { }, registry);

        assertThat(registry.effects).containsExactly("counts");
    }

    /** The registry as the processor holds it (the store and the liveness in memory), in maps; effects recorded in order. */
    private static final class MemoryRegistry implements WorkerRules.Reads, WorkerRules.Effects {
        final Map<String, WorkerEntry> stored = new LinkedHashMap<>();
        final Map<String, Liveness> listed = new LinkedHashMap<>();
        final List<String> effects = new ArrayList<>();
        final List<JsonNode> lines = new ArrayList<>();

        @Override
        public Liveness liveness(String workerId) {
            return listed.get(workerId);
        }

        @Override
        public Map<String, Liveness> listed() {
            return Collections.unmodifiableMap(listed);
        }

        @Override
        public WorkerEntry entry(String workerId) {
            WorkerEntry entry = stored.get(workerId);
            return entry == null ? null : WorkerEntry.decode(workerId, entry.encode()); // as the store gives it back
        }

        @Override
        public void list(WorkerEntry entry) {
            listed.put(entry.workerId(), Liveness.of(entry));
            effects.add("list " + entry.workerId());
        }

        @Override
        public void put(WorkerEntry entry) {
            stored.put(entry.workerId(), entry);
            listed.put(entry.workerId(), Liveness.of(entry));
            effects.add("put " + entry.workerId());
        }

        @Override
        public void delete(String workerId) {
            stored.remove(workerId);
            listed.remove(workerId);
            effects.add("delete " + workerId);
        }

        @Override
        public void unlist(String workerId) {
            listed.remove(workerId);
            effects.add("unlist " + workerId);
        }

        @Override
        public void stateLine(String workerId, byte[] line) {
            JsonNode json = StrictJson.readTree(line);
            assertThat(json.path("worker").asText()).isEqualTo(workerId);
            lines.add(json);
            effects.add("line " + workerId + " " + json.path("to").asText());
        }

        @Override
        public void tombstoneAnnouncement(String workerId) {
            effects.add("tombstone " + workerId);
        }

        @Override
        public void refuse(String workerId, String reason) {
            effects.add("refuse " + workerId + ": " + reason);
        }

        @Override
        public void declaredDead(WorkerEntry entry, String reason) {
            effects.add("dead " + entry.workerId() + ": " + reason);
        }

        @Override
        public void countsChanged() {
            effects.add("counts");
        }

        @Override
        public void note(String message) {
            effects.add("note " + message);
        }

        @Override
        public void warn(String message) {
            effects.add("warn " + message);
        }
    }
}
