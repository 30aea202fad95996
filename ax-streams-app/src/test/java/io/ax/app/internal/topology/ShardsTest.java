package io.ax.app.internal.topology;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.ax.AxHeaders;
import io.ax.app.internal.core.TimerKind;
import io.ax.app.internal.topology.SchedulerHarness.Dispatched;
import io.ax.codec.WireCodec;
import io.ax.schema.DeadLetter;
import io.ax.schema.DispatchKind;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;
import io.ax.validation.ScheduleValidator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Sharded tasks under TopologyTestDriver ({@code "shards":N}, topology-docs/WORKFLOWS.md): each occurrence runs N
 * slices, each its own execution with the header {@code ax-shard} i/N, retried on its own; the occurrence succeeds once
 * every slice succeeded, fails when one fails for good (the others cancelled, or let finish), and every slice's
 * transitions on ax.state say which slice.
 */
class ShardsTest {
    private static final long SECOND = 1000;
    private static final long TICK_MS = 10;

    private static void report(SchedulerHarness ax, Dispatched d, String status, String more) {
        ax.report("s", "{\"executionId\":\"" + d.executionId() + "\",\"attempt\":" + d.task().getAttempt()
                + ",\"status\":\"" + status + "\"" + more + "}");
    }

    private static void report(SchedulerHarness ax, Dispatched d, String status) {
        report(ax, d, status, "");
    }

    private static List<JsonNode> withTo(List<JsonNode> events, String to) {
        return events.stream().filter(e -> e.get("to").asText().equals(to)).toList();
    }

    private static List<Dispatched> runs(List<Dispatched> dispatched) {
        return dispatched.stream().filter(d -> d.task().getKind() == DispatchKind.RUN).toList();
    }

    /** Schedules task "s" due now with {@code options} and returns its slices' dispatches, in shard order. */
    private static List<Dispatched> fired(SchedulerHarness ax, String options) {
        ax.request("s", "{\"jobType\":\"scan\",\"delayMs\":0" + options + "}");
        ax.advanceMs(TICK_MS);
        return runs(ax.dispatches());
    }

    /** The event about the occurrence as a whole: {@code shards} without {@code shard}, after it fired. */
    private static List<JsonNode> occurrenceOutcomes(List<JsonNode> events) {
        return events.stream().filter(e -> e.has("shards") && !e.has("shard") && e.has("from")).toList();
    }

    @Test
    void shouldDispatchOneExecutionPerSliceWithItsIndexInTheHeaderAndTheEvent() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            List<Dispatched> slices = fired(ax, ",\"shards\":4");

            assertThat(slices).hasSize(4);
            assertThat(slices).extracting(d -> d.header(AxHeaders.SHARD)).containsExactly("0/4", "1/4", "2/4", "3/4");
            assertThat(slices).extracting(d -> d.task().getShard()).containsExactly(0, 1, 2, 3);
            assertThat(slices).extracting(d -> d.task().getShards()).containsOnly(4);
            Set<String> ids = new HashSet<>();
            slices.forEach(d -> ids.add(d.executionId()));
            assertThat(ids).as("each slice its own executionId").hasSize(4);

            List<JsonNode> triggered = withTo(ax.events(), "TRIGGERED");
            assertThat(triggered).extracting(e -> e.get("shard").asInt()).containsExactly(0, 1, 2, 3);
            assertThat(triggered).extracting(e -> e.get("shards").asInt()).containsOnly(4);
            assertThat(triggered).extracting(e -> e.get("executionId").asText()).containsExactlyElementsOf(
                    slices.stream().map(Dispatched::executionId).toList());
            StoredTask stored = ax.storedTask("s");
            assertThat(stored.getExecution().getShard()).isZero();
            assertThat(stored.getSlices()).extracting(StoredExecution::getShard).containsExactly(1, 2, 3);
        }
    }

    @Test
    void shouldNotShardATaskWithoutShards() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            List<Dispatched> one = fired(ax, "");
            assertThat(one).singleElement().satisfies(d -> {
                assertThat(d.header(AxHeaders.SHARD)).isNull();
                assertThat(d.task().getShard()).isNull();
            });
            assertThat(ax.events()).noneMatch(e -> e.has("shard") || e.has("shards"));
        }
    }

    @Test
    void shouldRetryAFailedSliceAloneAndSucceedTheTaskOnceEverySliceSucceeded() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            List<Dispatched> slices = fired(ax, ",\"shards\":3,\"backoffIntervalsMs\":[1000],\"jitter\":false");
            ax.discardEvents();

            report(ax, slices.get(1), "FAILED", ",\"retryable\":true,\"message\":\"disk full\"");
            List<JsonNode> events = ax.events();
            assertThat(events).extracting(e -> e.get("to").asText()).containsExactly("RETRY_WAITING");
            assertThat(events.get(0).get("shard").asInt()).isEqualTo(1);
            ax.retryBytes("s", WireCodec.encode(ax.retries().get(0)));
            ax.advanceMs(SECOND + TICK_MS);
            List<Dispatched> retried = runs(ax.dispatches());
            assertThat(retried).as("only the failed slice runs again").singleElement().satisfies(d -> {
                assertThat(d.executionId()).isEqualTo(slices.get(1).executionId());
                assertThat(d.task().getAttempt()).isEqualTo(2);
                assertThat(d.header(AxHeaders.SHARD)).isEqualTo("1/3");
            });

            report(ax, slices.get(0), "SUCCEEDED");
            report(ax, slices.get(2), "SUCCEEDED");
            assertThat(ax.storedTask("s").getFinishedAtMs()).as("not finished while slice 1 runs").isNull();
            assertThat(occurrenceOutcomes(ax.events())).isEmpty();
            report(ax, retried.get(0), "SUCCEEDED");

            events = ax.events();
            assertThat(withTo(events, "SUCCESS")).hasSize(2);
            List<JsonNode> outcome = occurrenceOutcomes(events);
            assertThat(outcome).as("the task succeeds once").singleElement().satisfies(e -> {
                assertThat(e.get("to").asText()).isEqualTo("SUCCESS");
                assertThat(e.get("from").asText()).isEqualTo("RUNNING");
                assertThat(e.get("reason").asText()).isEqualTo("all 3 slices succeeded");
            });
            StoredTask done = ax.storedTask("s");
            assertThat(done.getShardsOutcome()).isEqualTo("SUCCESS");
            assertThat(done.getFinishedAtMs()).isNotNull();
            assertThat(io.ax.app.internal.core.Liveness.finalOutcome(done)).isEqualTo("SUCCESS");

            report(ax, slices.get(0), "SUCCEEDED");
            assertThat(ax.events()).as("a late copy changes nothing").extracting(e -> e.get("to").asText()).containsExactly("IGNORED");
        }
    }

    @Test
    void shouldFailTheTaskAndCancelTheOtherSlicesWhenOneFailsForGood() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            List<Dispatched> slices = fired(ax, ",\"shards\":3,\"maxRetries\":0");
            report(ax, slices.get(0), "STARTED");
            ax.discardEvents();

            report(ax, slices.get(2), "FAILED", ",\"retryable\":false,\"message\":\"bad input\"");

            List<JsonNode> events = ax.events();
            assertThat(withTo(events, "FAILED")).extracting(e -> e.has("shard") ? e.get("shard").asText() : "occurrence")
                    .containsExactly("2", "occurrence");
            List<JsonNode> cancelled = withTo(events, "CANCELLED");
            assertThat(cancelled).extracting(e -> e.get("shard").asInt()).containsExactlyInAnyOrder(0, 1);
            assertThat(cancelled).allSatisfy(e -> assertThat(e.get("reason").asText())
                    .contains("slice 2/3").contains("failed for good").contains("shardFailure CANCEL_OTHERS"));
            List<Dispatched> signals = ax.dispatches().stream().filter(d -> d.task().getKind() == DispatchKind.CANCEL).toList();
            assertThat(signals).extracting(d -> d.header(AxHeaders.SHARD)).containsExactlyInAnyOrder("0/3", "1/3");
            List<DeadLetter> letters = ax.deadLetters();
            assertThat(letters).singleElement().satisfies(l -> assertThat(l.getDispatch().getShard()).isEqualTo(2));
            StoredTask done = ax.storedTask("s");
            assertThat(done.getShardsOutcome()).isEqualTo("FAILED");
            assertThat(done.getFinishedAtMs()).isNotNull();
            assertThat(io.ax.app.internal.core.Liveness.finalOutcome(done)).isEqualTo("FAILED");
        }
    }

    @Test
    void shouldLetTheOtherSlicesFinishUnderLetFinishAndFailTheTaskThen() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            List<Dispatched> slices = fired(ax, ",\"shards\":3,\"maxRetries\":0,\"shardFailure\":\"LET_FINISH\"");
            ax.discardEvents();

            report(ax, slices.get(1), "FAILED", ",\"retryable\":false");
            assertThat(ax.events()).extracting(e -> e.get("to").asText()).containsExactly("FAILED");
            assertThat(ax.dispatches()).as("no cancel signal").isEmpty();
            assertThat(ax.storedTask("s").getFinishedAtMs()).isNull();

            report(ax, slices.get(0), "SUCCEEDED");
            report(ax, slices.get(2), "SUCCEEDED");
            List<JsonNode> outcome = occurrenceOutcomes(ax.events());
            assertThat(outcome).singleElement().satisfies(e -> {
                assertThat(e.get("to").asText()).isEqualTo("FAILED");
                assertThat(e.get("reason").asText()).contains("slice 1/3 failed for good").contains("2 of 3 slices succeeded");
            });
            assertThat(ax.storedTask("s").getFinishedAtMs()).isNotNull();
        }
    }

    @Test
    void shouldEndEverySliceWhenTheTaskIsCancelled() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            List<Dispatched> slices = fired(ax, ",\"shards\":3");
            report(ax, slices.get(1), "SUCCEEDED");
            ax.discardEvents();

            ax.request("s", "{\"cancel\":true,\"reason\":\"enough\"}");

            List<JsonNode> events = ax.events();
            assertThat(withTo(events, "CANCELLED")).extracting(e -> e.has("shard") ? e.get("shard").asText() : "occurrence")
                    .containsExactly("0", "2", "occurrence");
            assertThat(ax.dispatches()).extracting(d -> d.header(AxHeaders.SHARD)).containsExactlyInAnyOrder("0/3", "2/3");
            StoredTask done = ax.storedTask("s");
            assertThat(done.getFinishedAtMs()).isNotNull();
            assertThat(io.ax.app.internal.core.Liveness.isLive(done)).isFalse();
            report(ax, slices.get(0), "SUCCEEDED");
            assertThat(ax.events()).extracting(e -> e.get("to").asText()).containsExactly("IGNORED");
        }
    }

    @Test
    void shouldKeepTheSharedTimeoutTimerOfTheOtherSlicesInTheTimerIndexAndTimeThemOut() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            List<Dispatched> slices = fired(ax, ",\"shards\":3,\"timeoutMs\":5000,\"maxRetries\":0");
            StoredTask stored = ax.storedTask("s");
            long timeoutAt = stored.getExecution().getTimeoutAtMs();
            assertThat(stored.getSlices()).extracting(StoredExecution::getTimeoutAtMs).containsOnly(timeoutAt);

            report(ax, slices.get(0), "SUCCEEDED"); // gives the one timer key up: slices 1 and 2 still need it
            assertThat(ax.hasTimer(timeoutAt, "s", TimerKind.TIMEOUT)).as("still armed, what a restart derives").isTrue();
            report(ax, slices.get(1), "SUCCEEDED");
            assertThat(ax.hasTimer(timeoutAt, "s", TimerKind.TIMEOUT)).isTrue();
            ax.discardEvents();

            ax.advanceMs(5 * SECOND);
            List<JsonNode> events = ax.events();
            assertThat(withTo(events, "TIMED_OUT")).singleElement().satisfies(e -> assertThat(e.get("shard").asInt()).isEqualTo(2));
            assertThat(occurrenceOutcomes(events)).singleElement().satisfies(e -> assertThat(e.get("to").asText()).isEqualTo("FAILED"));
            assertThat(ax.hasTimer(timeoutAt, "s", TimerKind.TIMEOUT)).isFalse();
        }
    }

    @Test
    void shouldTimeOutEverySliceThatSharesOneTimeoutMillisecond() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            fired(ax, ",\"shards\":3,\"timeoutMs\":5000,\"maxRetries\":1,\"backoffIntervalsMs\":[1000],\"jitter\":false");
            ax.discardEvents();
            ax.advanceMs(5 * SECOND);
            List<JsonNode> events = ax.events();
            assertThat(withTo(events, "TIMED_OUT")).extracting(e -> e.get("shard").asInt()).containsExactly(0, 1, 2);
            assertThat(withTo(events, "RETRY_WAITING")).hasSize(3);
            assertThat(ax.storedTask("s").getSlices()).extracting(StoredExecution::getState).containsOnly(TaskState.RETRY_WAITING);
        }
    }

    @Test
    void shouldRunEveryOccurrenceOfAPeriodicTaskAsSlicesAndSkipOneDueWhileASliceRuns() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("s", "{\"jobType\":\"scan\",\"everyMs\":1000,\"shards\":2,\"timeoutMs\":60000}");
            ax.advanceMs(SECOND + TICK_MS);
            List<Dispatched> first = runs(ax.dispatches());
            assertThat(first).hasSize(2);
            report(ax, first.get(0), "SUCCEEDED");
            ax.discardEvents();

            ax.advanceMs(SECOND);
            assertThat(runs(ax.dispatches())).as("slice 1 still runs: overlap SKIP").isEmpty();
            assertThat(withTo(ax.events(), "SKIPPED")).singleElement().satisfies(e -> assertThat(e.get("reason").asText())
                    .contains(first.get(1).executionId()));

            report(ax, first.get(1), "SUCCEEDED");
            assertThat(occurrenceOutcomes(ax.events())).singleElement().satisfies(e -> assertThat(e.get("to").asText()).isEqualTo("SUCCESS"));
            assertThat(ax.storedTask("s").getFinishedAtMs()).as("a periodic task goes on").isNull();
            ax.advanceMs(SECOND);
            List<Dispatched> third = runs(ax.dispatches());
            assertThat(third).extracting(d -> d.header(AxHeaders.SHARD)).containsExactly("0/2", "1/2");
            assertThat(third).extracting(Dispatched::executionId).doesNotContainAnyElementsOf(
                    first.stream().map(Dispatched::executionId).toList());
            StoredTask stored = ax.storedTask("s");
            assertThat(stored.getShardsOutcome()).as("the new occurrence's outcome is not decided yet").isNull();
            assertThat(stored.getSlices()).singleElement().satisfies(s -> assertThat(s.getState()).isEqualTo(TaskState.TRIGGERED));
        }
    }

    @Test
    void shouldHoldEachSliceAtAFlowGateAndGrantThemOneByOne() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.pipeRaw(ax.topics.limits(), "type:scan".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                    "{\"maxInFlight\":1}".getBytes(java.nio.charset.StandardCharsets.UTF_8), ax.nowMs());
            List<Dispatched> first = fired(ax, ",\"shards\":3");
            assertThat(first).as("one slot: one slice runs, two wait at the gate").hasSize(1);
            report(ax, first.get(0), "SUCCEEDED");
            List<Dispatched> second = runs(ax.dispatches());
            assertThat(second).hasSize(1);
            report(ax, second.get(0), "SUCCEEDED");
            List<Dispatched> third = runs(ax.dispatches());
            assertThat(third).hasSize(1);
            assertThat(List.of(first.get(0), second.get(0), third.get(0))).extracting(d -> d.header(AxHeaders.SHARD))
                    .containsExactlyInAnyOrder("0/3", "1/3", "2/3");
            report(ax, third.get(0), "SUCCEEDED");
            assertThat(occurrenceOutcomes(ax.events())).singleElement().satisfies(e -> assertThat(e.get("to").asText()).isEqualTo("SUCCESS"));
        }
    }

    @Test
    void shouldKeepASlicesStoredStateWithinItsBound() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            int shards = ScheduleValidator.MAX_SHARDS;
            List<Dispatched> slices = fired(ax, ",\"shards\":" + shards + ",\"maxRetries\":5,\"backoffIntervalsMs\":[60000]");
            long before = ax.storedTaskBytes("s");
            String big = "x".repeat(4096);
            for (Dispatched slice : slices) {
                report(ax, slice, "HEARTBEAT", ",\"progress\":\"" + big + "\"");
                report(ax, slice, "FAILED", ",\"retryable\":true,\"message\":\"" + big + "\"");
            }
            long after = ax.storedTaskBytes("s");
            assertThat(after - before).as("each slice grows the record by less than SLICE_BYTES")
                    .isLessThan((long) shards * ScheduleValidator.SLICE_BYTES);
            assertThat(ax.storedTask("s").getSlices()).allSatisfy(s -> {
                assertThat(s.getErrors()).hasSize(1);
                assertThat(s.getProgress()).isNull();
            });
        }
    }

    @Test
    void shouldRejectBadShardsWithAReason() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            for (String[] bad : new String[][]{
                    {"\"shards\":0", "shards must be between 1 and 64: 0"},
                    {"\"shards\":-3", "shards must be between 1 and 64: -3"},
                    {"\"shards\":65", "shards must be between 1 and 64: 65"},
                    {"\"shards\":\"four\"", "shards"},
                    {"\"shardFailure\":\"LET_FINISH\"", "shardFailure goes with shards > 1 only"},
                    {"\"shards\":2,\"shardFailure\":\"MAYBE\"", "shardFailure"}}) {
                ax.request("s", "{\"jobType\":\"scan\",\"delayMs\":0," + bad[0] + "}");
                assertThat(ax.events()).as(bad[0]).singleElement().satisfies(e -> {
                    assertThat(e.get("to").asText()).isEqualTo("REJECTED");
                    assertThat(e.get("reason").asText()).contains(bad[1]);
                });
            }
            ax.request("s", "{\"jobType\":\"scan\",\"everyMs\":1000,\"overlap\":\"ALLOW\",\"shards\":2}");
            assertThat(ax.events()).singleElement().satisfies(e -> assertThat(e.get("reason").asText())
                    .contains("does not go with overlap ALLOW"));
            String payload = "\"" + "p".repeat(200_000) + "\"";
            ax.request("s", "{\"jobType\":\"scan\",\"delayMs\":0,\"shards\":64,\"payload\":" + payload + "}");
            assertThat(ax.events()).singleElement().satisfies(e -> assertThat(e.get("reason").asText())
                    .contains("more than the payload limit"));
            ax.advanceMs(TICK_MS);
            assertThat(ax.dispatches()).isEmpty();
            assertThat(ax.storedTask("s")).isNull();
        }
    }

    @Test
    void shouldReplayAFailedShardedTaskAsANewOccurrenceOfEverySlice() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            List<Dispatched> slices = fired(ax, ",\"shards\":2,\"maxRetries\":0");
            report(ax, slices.get(0), "SUCCEEDED");
            report(ax, slices.get(1), "FAILED", ",\"retryable\":false");
            assertThat(ax.storedTask("s").getShardsOutcome()).isEqualTo("FAILED");
            assertThat(ax.storedTask("s").getExecution().getState()).as("slice 0 succeeded").isEqualTo(TaskState.SUCCESS);
            ax.discardEvents();
            ax.discardDispatches();

            ax.request("s", "{\"replay\":true}");
            ax.advanceMs(TICK_MS);
            List<Dispatched> again = runs(ax.dispatches());
            assertThat(again).extracting(d -> d.header(AxHeaders.SHARD)).containsExactly("0/2", "1/2");
            assertThat(again).extracting(Dispatched::executionId).doesNotContainAnyElementsOf(
                    slices.stream().map(Dispatched::executionId).toList());
            report(ax, again.get(0), "SUCCEEDED");
            report(ax, again.get(1), "SUCCEEDED");
            assertThat(occurrenceOutcomes(ax.events())).singleElement().satisfies(e -> assertThat(e.get("to").asText()).isEqualTo("SUCCESS"));
            assertThat(io.ax.app.internal.core.Liveness.finalOutcome(ax.storedTask("s"))).isEqualTo("SUCCESS");
        }
    }

    @Test
    void shouldListEverySliceWithItsStateAndAttemptInTheTaskView() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            List<Dispatched> slices = fired(ax, ",\"shards\":3");
            report(ax, slices.get(0), "SUCCEEDED");
            report(ax, slices.get(2), "STARTED");

            JsonNode view = io.ax.app.internal.query.TaskViews.of(ax.storedTask("s"), 0, "here");
            assertThat(view.get("state").asText()).as("a slice runs").isEqualTo("RUNNING");
            assertThat(view.get("shards").asInt()).isEqualTo(3);
            assertThat(view.get("shardFailure").asText()).isEqualTo("CANCEL_OTHERS");
            assertThat(view.get("shardsOutcome").isNull()).isTrue();
            List<String> rows = new java.util.ArrayList<>();
            view.get("slices").forEach(slice -> rows.add(slice.get("shard").asInt() + " " + slice.get("state").asText() + " "
                    + slice.get("attempt").asInt()));
            assertThat(rows).containsExactly("0 SUCCESS 1", "1 TRIGGERED 1", "2 RUNNING 1");
        }
    }

    @Test
    void shouldRefuseToAdoptAShardedTaskWithSlicesInFlightAndAdoptOneBetweenOccurrences() {
        try (SchedulerHarness old = new SchedulerHarness(SchedulerHarness.tempDir());
             SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir(),
                     java.util.Map.of(io.ax.app.config.AxConfig.ADOPT_ENABLED_CONFIG, true))) {
            old.request("s", "{\"jobType\":\"scan\",\"everyMs\":1000,\"shards\":2,\"timeoutMs\":60000}");
            old.advanceMs(SECOND + TICK_MS);
            List<Dispatched> slices = runs(old.dispatches());
            assertThat(slices).hasSize(2);
            ax.requestBytes("s", adopt(old.storedTask("s")));
            assertThat(ax.events()).singleElement().satisfies(e -> {
                assertThat(e.get("to").asText()).isEqualTo("REJECTED");
                assertThat(e.get("reason").asText()).contains("a sharded task is adopted only between occurrences: slice 0/2 is TRIGGERED");
            });

            report(old, slices.get(0), "SUCCEEDED");
            report(old, slices.get(1), "SUCCEEDED");
            ax.requestBytes("s", adopt(old.storedTask("s")));
            assertThat(ax.events()).extracting(e -> e.get("to").asText()).doesNotContain("REJECTED");
            ax.advanceMs(old.nowMs() - ax.nowMs() + SECOND);
            assertThat(runs(ax.dispatches())).extracting(d -> d.header(AxHeaders.SHARD)).containsExactly("0/2", "1/2");
        }
    }

    @Test
    void shouldReleaseADependentOnlyOnceEverySliceSucceeded() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("d", "{\"jobType\":\"report\",\"after\":[{\"taskId\":\"s\",\"on\":\"SUCCESS\"}]}");
            List<Dispatched> slices = fired(ax, ",\"shards\":3");
            report(ax, slices.get(0), "SUCCEEDED");
            report(ax, slices.get(1), "SUCCEEDED");
            ax.advanceMs(TICK_MS);
            assertThat(ax.storedTask("d").getWaitTimeoutAtMs()).as("still waiting: slice 2 runs").isNotNull();
            report(ax, slices.get(2), "SUCCEEDED");
            ax.advanceMs(TICK_MS);
            assertThat(runs(ax.dispatches())).extracting(Dispatched::key).containsExactly("d");
            assertThat(ax.storedTask("d").getDependencyOutcomes()).containsEntry("s", "SUCCESS");
        }
    }

    @Test
    void shouldCancelADependentWaitingForSuccessWhenASliceFailsForGood() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("d", "{\"jobType\":\"report\",\"after\":[{\"taskId\":\"s\",\"on\":\"SUCCESS\"}]}");
            List<Dispatched> slices = fired(ax, ",\"shards\":3,\"maxRetries\":0");
            report(ax, slices.get(0), "SUCCEEDED");
            report(ax, slices.get(1), "FAILED", ",\"retryable\":false");
            ax.advanceMs(TICK_MS);
            assertThat(ax.storedTask("d").getDependencyOutcomes()).containsEntry("s", "FAILED");
            assertThat(ax.storedTask("d").getCancelled()).isTrue();
        }
    }

    @Test
    void shouldCancelSlicesHeldAtAGateWithoutASignal() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.pipeRaw(ax.topics.limits(), "type:scan".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                    "{\"maxInFlight\":1}".getBytes(java.nio.charset.StandardCharsets.UTF_8), ax.nowMs());
            List<Dispatched> running = fired(ax, ",\"shards\":3");
            assertThat(running).hasSize(1);
            ax.discardEvents();

            ax.request("s", "{\"cancel\":true}");
            assertThat(withTo(ax.events(), "CANCELLED")).extracting(e -> e.has("shard") ? e.get("shard").asText() : "occurrence")
                    .containsExactlyInAnyOrder("0", "1", "2", "occurrence");
            assertThat(ax.dispatches()).as("one signal, for the slice dispatched").extracting(Dispatched::executionId)
                    .containsExactly(running.get(0).executionId());
            ax.request("other", "{\"jobType\":\"scan\",\"delayMs\":0}");
            ax.advanceMs(TICK_MS);
            assertThat(runs(ax.dispatches())).as("every slot was given back").extracting(Dispatched::key).containsExactly("other");
        }
    }

    private static byte[] adopt(StoredTask task) {
        return WireCodec.encode(io.ax.schema.AdoptRequest.newBuilder().setTask(task).setFromApplicationId("ax-old")
                .setFromTopic("old.requests").setFromPartition(0).setMigratedAtMs(SchedulerHarness.T0.toEpochMilli()).build());
    }
}
