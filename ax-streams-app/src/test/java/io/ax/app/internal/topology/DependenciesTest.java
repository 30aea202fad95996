package io.ax.app.internal.topology;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.ax.app.config.AxConfig;
import io.ax.app.internal.topology.SchedulerHarness.Dispatched;
import io.ax.schema.StoredTask;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Tasks that wait for other tasks ({@code after}, topology-docs/WORKFLOWS.md), through the whole topology: the
 * dependency protocol goes over ax.deps, which the driver pipes back into the scheduler as the broker would.
 */
class DependenciesTest {
    private static final String ONE_SHOT = "{\"jobType\":\"j\",\"delayMs\":0,\"maxRetries\":0}";

    private static String after(String conditions) {
        return "{\"jobType\":\"j\",\"after\":[" + conditions + "]}";
    }

    private static String on(String taskId, String condition) {
        return "{\"taskId\":\"" + taskId + "\",\"on\":\"" + condition + "\"}";
    }

    /** Fires what is due and returns the dispatches by taskId. */
    private static Map<String, Dispatched> fire(SchedulerHarness ax) {
        ax.advanceMs(10);
        return ax.dispatches().stream().collect(Collectors.toMap(Dispatched::key, d -> d));
    }

    @Test
    void shouldRunAChainOneAfterTheOther() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("b", after(on("a", "SUCCESS")));
            ax.request("c", after(on("b", "SUCCESS")));
            assertThat(ax.events()).extracting(SchedulerHarness::fromTo).containsExactly("->WAITING", "->WAITING");
            ax.request("a", ONE_SHOT);
            Map<String, Dispatched> fired = fire(ax);
            assertThat(fired).containsOnlyKeys("a");
            ax.discardEvents();

            ax.report(fired.get("a"), "SUCCEEDED");
            List<JsonNode> events = ax.events();
            assertThat(SchedulerHarness.eventsOf(events, "b")).extracting(SchedulerHarness::fromTo).containsExactly("WAITING->PENDING");
            assertThat(SchedulerHarness.eventsOf(events, "b").get(0).get("reason").asText()).isEqualTo("every condition met (1); due now");
            fired = fire(ax);
            assertThat(fired).containsOnlyKeys("b");
            assertThat(ax.storedTask("c").getWaitTimeoutAtMs()).as("c still waits").isNotNull();

            ax.report(fired.get("b"), "SUCCEEDED");
            assertThat(fire(ax)).containsOnlyKeys("c");
        }
    }

    @Test
    void shouldReleaseAFanInOnlyWhenTheLastConditionIsMet() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            List<String> ups = IntStream.range(0, 20).mapToObj(i -> "up-" + i).toList();
            ax.request("join", after(ups.stream().map(u -> on(u, "SUCCESS")).collect(Collectors.joining(","))));
            ups.forEach(u -> ax.request(u, ONE_SHOT));
            Map<String, Dispatched> fired = fire(ax);
            assertThat(fired).hasSize(20).doesNotContainKey("join");
            ax.discardEvents();
            for (int i = 0; i < 19; i++) {
                ax.report(fired.get(ups.get(i)), "SUCCEEDED");
            }
            List<JsonNode> join = SchedulerHarness.eventsOf(ax.events(), "join");
            assertThat(join).hasSize(19).allSatisfy(e -> assertThat(SchedulerHarness.fromTo(e)).isEqualTo("WAITING->WAITING"));
            assertThat(join.get(18).get("reason").asText()).startsWith("up-18 ended SUCCESS (execution ")
                    .endsWith(": met; still waits for 1: up-19");
            assertThat(fire(ax)).isEmpty();

            ax.report(fired.get("up-19"), "SUCCEEDED");
            assertThat(SchedulerHarness.eventsOf(ax.events(), "join")).extracting(SchedulerHarness::fromTo).containsExactly("WAITING->PENDING");
            assertThat(fire(ax)).containsOnlyKeys("join");
        }
    }

    @Test
    void shouldReleaseAFanOutWhenTheirOneDependencySucceeds() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            for (int i = 0; i < 5; i++) {
                ax.request("out-" + i, after(on("root", "COMPLETED")));
            }
            ax.request("root", ONE_SHOT);
            Map<String, Dispatched> fired = fire(ax);
            ax.report(fired.get("root"), "SUCCEEDED");
            assertThat(fire(ax)).containsOnlyKeys("out-0", "out-1", "out-2", "out-3", "out-4");
        }
    }

    /**
     * 1,500 dependents: more than one sweep sends (1,000 per step), so the rest go out from the sweep's cursor in the
     * steps that follow (here the records the first batch fed back; otherwise the next punctuation). Each exactly once.
     */
    @Test
    void shouldNotifyEveryDependentOfAFanOutLargerThanOneSweepOnce() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            for (int i = 0; i < 1_500; i++) {
                ax.request("many-" + i, after(on("root", "SUCCESS")));
            }
            ax.request("root", ONE_SHOT);
            Dispatched root = fire(ax).get("root");
            ax.discardEvents();
            ax.report(root, "SUCCEEDED");
            ax.advanceMs(10);
            List<JsonNode> released = ax.events().stream().filter(e -> SchedulerHarness.fromTo(e).equals("WAITING->PENDING")).toList();
            assertThat(released).hasSize(1_500);
            assertThat(released.stream().map(e -> e.get("taskId").asText()).distinct()).hasSize(1_500);
            assertThat(ax.dispatches()).hasSize(1_500);
            assertThat(ax.dependencyContents().keySet()).as("no sweep left owed").noneMatch(k -> k.get()[0] == 'n');
        }
    }

    @Test
    void shouldCancelADependentWhoseConditionCanNoLongerBeMetAndCascade() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("on-failure", after(on("a", "FAILURE")));
            ax.request("next", after(on("on-failure", "SUCCESS")));
            ax.request("a", ONE_SHOT);
            Map<String, Dispatched> fired = fire(ax);
            ax.discardEvents();
            ax.report(fired.get("a"), "SUCCEEDED");
            List<JsonNode> events = ax.events();
            assertThat(SchedulerHarness.eventsOf(events, "on-failure")).singleElement().satisfies(e -> {
                assertThat(SchedulerHarness.fromTo(e)).isEqualTo("WAITING->CANCELLED");
                assertThat(e.get("reason").asText()).isEqualTo("a condition can no longer be met: a ended SUCCESS, not FAILURE");
            });
            assertThat(SchedulerHarness.eventsOf(events, "next")).singleElement().satisfies(e -> {
                assertThat(SchedulerHarness.fromTo(e)).isEqualTo("WAITING->CANCELLED");
                assertThat(e.get("reason").asText()).isEqualTo("a condition can no longer be met: on-failure ended CANCELLED, not SUCCESS");
            });
            assertThat(fire(ax)).isEmpty();
        }
    }

    @Test
    void shouldCancelADependentOfACancelledTask() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("a", "{\"jobType\":\"j\",\"delayMs\":60000}");
            ax.request("b", after(on("a", "SUCCESS")));
            ax.discardEvents();
            ax.request("a", "{\"cancel\":true}");
            assertThat(SchedulerHarness.eventsOf(ax.events(), "b")).singleElement().satisfies(e ->
                    assertThat(e.get("reason").asText()).isEqualTo("a condition can no longer be met: a ended CANCELLED, not SUCCESS"));
        }
    }

    @Test
    void shouldRunAnywayWhenTheRequestSaysSo() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("cleanup", "{\"jobType\":\"j\",\"after\":[" + on("a", "SUCCESS") + "],\"afterRunAnyway\":true}");
            ax.request("a", ONE_SHOT);
            Map<String, Dispatched> fired = fire(ax);
            ax.discardEvents();
            ax.report(fired.get("a"), "FAILED");
            assertThat(SchedulerHarness.eventsOf(ax.events(), "cleanup")).singleElement().satisfies(e -> {
                assertThat(SchedulerHarness.fromTo(e)).isEqualTo("WAITING->PENDING");
                assertThat(e.get("reason").asText())
                        .isEqualTo("every condition settled; runs anyway (afterRunAnyway) although a ended FAILED, not SUCCESS; due now");
            });
            assertThat(fire(ax)).containsOnlyKeys("cleanup");
        }
    }

    @Test
    void shouldTimeTheReleasedTaskAfterTheDelayOrAtItsOwnTriggerWhicheverIsLater() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("delayed", "{\"jobType\":\"j\",\"after\":[" + on("a", "SUCCESS") + "],\"afterDelayMs\":5000}");
            java.time.Instant at = ax.now().plusSeconds(3600);
            ax.request("at-later", "{\"jobType\":\"j\",\"at\":\"" + at + "\",\"after\":[" + on("a", "SUCCESS") + "]}");
            ax.request("a", ONE_SHOT);
            Map<String, Dispatched> fired = fire(ax);
            ax.discardEvents();
            long releasedAtMs = ax.nowMs();
            ax.report(fired.get("a"), "SUCCEEDED");
            ax.events();
            assertThat(ax.storedTask("delayed").getNextDueAtMs()).isEqualTo(releasedAtMs + 5000);
            assertThat(ax.storedTask("at-later").getNextDueAtMs()).isEqualTo(at.toEpochMilli());
            ax.advanceMs(4980);
            assertThat(ax.dispatches()).isEmpty();
            ax.advanceMs(20);
            assertThat(ax.dispatches()).extracting(Dispatched::key).containsExactly("delayed");
        }
    }

    @Test
    void shouldWaitForATaskNotYetKnownAndGoOnWhenItArrives() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("b", after(on("later", "SUCCESS")));
            ax.advanceMs(60_000);
            assertThat(ax.dispatches()).isEmpty();
            ax.request("later", ONE_SHOT);
            Map<String, Dispatched> fired = fire(ax);
            ax.report(fired.get("later"), "SUCCEEDED");
            assertThat(fire(ax)).containsOnlyKeys("b");
        }
    }

    @Test
    void shouldAnswerADependentThatComesAfterItsDependencyEnded() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("a", ONE_SHOT);
            ax.report(fire(ax).get("a"), "SUCCEEDED");
            ax.discardEvents();
            ax.request("b", after(on("a", "SUCCESS")));
            assertThat(ax.events()).extracting(SchedulerHarness::fromTo).containsExactly("->WAITING", "WAITING->PENDING");
            assertThat(fire(ax)).containsOnlyKeys("b");
        }
    }

    @Test
    void shouldCancelAWaitThatTimesOutNamingWhatItStillWaitsFor() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("a", ONE_SHOT);
            ax.report(fire(ax).get("a"), "SUCCEEDED");
            ax.request("b", "{\"jobType\":\"j\",\"after\":[" + on("a", "SUCCESS") + "," + on("never", "SUCCESS") + "],\"afterTimeoutMs\":30000}");
            ax.discardEvents();
            ax.advanceMs(29_990);
            assertThat(ax.events()).isEmpty();
            ax.advanceMs(10);
            assertThat(ax.events()).singleElement().satisfies(e -> {
                assertThat(SchedulerHarness.fromTo(e)).isEqualTo("WAITING->CANCELLED");
                assertThat(e.get("reason").asText()).isEqualTo("wait timed out after 30000 ms (afterTimeoutMs): still waiting for never (SUCCESS)");
            });
            assertThat(ax.dependencyContents().keySet()).as("the subscription to the task that never came is withdrawn")
                    .noneMatch(k -> k.get()[0] == 'd' && new String(k.get()).contains("never"));
        }
    }

    @Test
    void shouldEndACycleByTheWaitTimeoutsWithoutSpinning() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("x", "{\"jobType\":\"j\",\"after\":[" + on("y", "SUCCESS") + "],\"afterTimeoutMs\":10000}");
            ax.request("y", "{\"jobType\":\"j\",\"after\":[" + on("x", "SUCCESS") + "],\"afterTimeoutMs\":10000}");
            ax.discardEvents();
            ax.advanceMs(5_000);
            assertThat(ax.events()).as("nothing moves while they wait for each other").isEmpty();
            ax.advanceMs(5_000);
            List<JsonNode> events = ax.events();
            for (String task : List.of("x", "y")) {
                List<JsonNode> ended = SchedulerHarness.eventsOf(events, task);
                JsonNode first = ended.get(0);
                assertThat(SchedulerHarness.fromTo(first)).isEqualTo("WAITING->CANCELLED");
                assertThat(first.get("reason").asText()).isEqualTo("wait timed out after 10000 ms (afterTimeoutMs): still waiting for "
                        + (task.equals("x") ? "y" : "x") + " (SUCCESS)");
                // Both timed out in one tick, so each then hears that the other ended: too late, and said so.
                assertThat(ended.subList(1, ended.size())).allSatisfy(e -> assertThat(e.get("to").asText()).isEqualTo("IGNORED"));
            }
            ax.advanceMs(60_000);
            assertThat(ax.events()).isEmpty();
            assertThat(ax.dispatches()).isEmpty();
        }
    }

    @Test
    void shouldReEvaluateAWaitingDependentWhenItsDependencyIsReplayed() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("waits", after(on("a", "FAILURE") + "," + on("other", "SUCCESS")));
            ax.request("released", after(on("a", "FAILURE")));
            ax.request("a", ONE_SHOT);
            ax.report(fire(ax).get("a"), "FAILED");
            assertThat(fire(ax)).containsOnlyKeys("released");
            assertThat(ax.storedTask("waits").getDependencyOutcomes()).containsEntry("a", "FAILED");
            ax.discardEvents();

            ax.request("a", "{\"replay\":true}");
            Map<String, Dispatched> again = fire(ax);
            ax.discardEvents();
            ax.report(again.get("a"), "SUCCEEDED");
            List<JsonNode> events = ax.events();
            assertThat(SchedulerHarness.eventsOf(events, "waits")).singleElement().satisfies(e -> {
                assertThat(SchedulerHarness.fromTo(e)).isEqualTo("WAITING->CANCELLED");
                assertThat(e.get("reason").asText()).isEqualTo("a condition can no longer be met: a ended SUCCESS, not FAILURE");
            });
            assertThat(SchedulerHarness.eventsOf(events, "released")).singleElement().satisfies(e -> {
                assertThat(e.get("to").asText()).isEqualTo("IGNORED");
                assertThat(e.get("reason").asText()).startsWith("dependency outcome: a ended SUCCESS (execution ")
                        .endsWith("after this task stopped waiting (TRIGGERED); it is not re-evaluated");
            });
        }
    }

    /** Runs {@code taskId} as a one-shot task to SUCCESS and lets its retention (1 s here) end: the task is purged. */
    private static void runAndPurge(SchedulerHarness ax, String taskId) {
        ax.request(taskId, ONE_SHOT);
        ax.report(fire(ax).get(taskId), "SUCCEEDED");
        ax.advanceMs(1000);
        assertThat(ax.storedTask(taskId)).as("purged").isNull();
    }

    @Test
    void shouldAnswerADependentOfAPurgedTaskWithAClearReason() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir(), Map.of(AxConfig.RETENTION_MS_CONFIG, 1000L))) {
            runAndPurge(ax, "a");
            ax.discardEvents();
            ax.request("b", after(on("a", "COMPLETED")));
            assertThat(ax.events()).extracting(e -> e.get("reason").asText()).last()
                    .isEqualTo("a condition can no longer be met: a was purged (its retention ended) before this task asked");

            ax.request("a", ONE_SHOT); // a new task under the purged id: no longer purged
            ax.report(fire(ax).get("a"), "SUCCEEDED");
            ax.request("c", after(on("a", "SUCCESS")));
            assertThat(fire(ax)).containsOnlyKeys("c");
        }
    }

    @Test
    void shouldExpireAPurgedTasksTombstoneOnceItsRetentionHasEndedAgain() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir(), Map.of(AxConfig.RETENTION_MS_CONFIG, 1000L))) {
            runAndPurge(ax, "a");
            assertThat(ax.dependencyContents().keySet()).as("the purged task's tombstone").anyMatch(k -> k.get()[0] == 'p')
                    .anyMatch(k -> k.get()[0] == 'P');
            ax.advance(Duration.ofMinutes(2)); // past the tombstone's own retention and the once-a-minute expiry
            assertThat(ax.dependencyContents().keySet()).as("the tombstone expired").noneMatch(k -> k.get()[0] == 'p' || k.get()[0] == 'P');
        }
    }

    @Test
    void shouldCancelAWaitingTaskByRequestAndWithdrawItsSubscriptions() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("b", after(on("a", "SUCCESS")));
            ax.discardEvents();
            ax.request("b", "{\"cancel\":true,\"reason\":\"not needed\"}");
            assertThat(ax.events()).singleElement().satisfies(e -> {
                assertThat(SchedulerHarness.fromTo(e)).isEqualTo("WAITING->CANCELLED");
                assertThat(e.get("reason").asText()).isEqualTo("cancelled: not needed");
            });
            assertThat(ax.dependencyContents().keySet()).noneMatch(k -> k.get()[0] == 'd');
            ax.request("a", ONE_SHOT);
            ax.report(fire(ax).get("a"), "SUCCEEDED");
            assertThat(fire(ax)).isEmpty();
        }
    }

    @Test
    void shouldShowWhatAWaitingTaskWaitsForInTheStoreAndOnTheStateTopic() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            ax.request("b", after(on("a1", "SUCCESS") + "," + on("a2", "COMPLETED")));
            assertThat(ax.events()).singleElement().satisfies(e -> assertThat(e.get("reason").asText())
                    .isEqualTo("waits for a1 (SUCCESS), a2 (COMPLETED); the wait times out at " + ax.now().plusMillis(86_400_000)));
            ax.request("a1", ONE_SHOT);
            ax.report(fire(ax).get("a1"), "SUCCEEDED");
            StoredTask b = ax.storedTask("b");
            assertThat(b.getDependencyOutcomes()).containsExactly(Map.entry("a1", "SUCCESS"));
            assertThat(io.ax.app.internal.store.IndexEntry.stateOf(b).name()).isEqualTo("WAITING");
        }
    }

    @Test
    void shouldRejectBadDependenciesWithSpecificReasons() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            List<String> reasons = new ArrayList<>();
            for (String json : List.of(
                    after(on("self", "SUCCESS")),
                    after(on("a", "SUCCESS") + "," + on("a", "FAILURE")),
                    after("{\"taskId\":\" \"}"),
                    after(IntStream.range(0, 101).mapToObj(i -> on("t" + i, "SUCCESS")).collect(Collectors.joining(","))),
                    "{\"jobType\":\"j\",\"everyMs\":60000,\"afterDelayMs\":5,\"after\":[" + on("a", "SUCCESS") + "]}",
                    "{\"jobType\":\"j\",\"delayMs\":0,\"afterDelayMs\":5}",
                    after(on("a", "MAYBE")),
                    after("{\"taskId\":\"a\",\"when\":\"SUCCESS\"}"))) {
                ax.request("self", json);
                reasons.add(ax.events().get(0).get("reason").asText());
            }
            assertThat(reasons).containsExactly(
                    "after: a task cannot wait for itself: \"self\"",
                    "after: taskId \"a\" is named twice",
                    "after: a taskId is blank",
                    "after names 101 tasks, more than 100; wait for more through intermediate tasks (topology-docs/WORKFLOWS.md)",
                    "afterDelayMs goes with a one-shot task (at or delayMs) only, not with everyMs or cron",
                    "afterDelayMs goes with after (the tasks to wait for) only",
                    reasons.get(6),
                    reasons.get(7));
            assertThat(reasons.get(6)).contains("on").contains("MAYBE");
            assertThat(reasons.get(7)).contains("when");
            assertThat(ax.storedTask("self")).isNull();
        }
    }

    @Test
    void shouldRefuseForgedDependencySignals() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            byte[] forged = io.ax.codec.WireCodec.encode(io.ax.schema.DependencySignal.newBuilder()
                    .setKind(io.ax.schema.DependencySignalKind.NOTIFY).setUpstream("a").setDependent("b").setOutcome("MAYBE")
                    .setAtMs(0).build());
            ax.pipeRaw(ax.topics.deps(), "b".getBytes(), forged, ax.nowMs());
            ax.pipeRaw(ax.topics.deps(), "b".getBytes(), "garbage".getBytes(), ax.nowMs());
            List<JsonNode> events = ax.events();
            assertThat(events).extracting(e -> e.get("to").asText()).containsExactly("REJECTED", "REJECTED");
            assertThat(events.get(0).get("reason").asText()).startsWith("NOTIFY outcome must be one of");
        }
    }
}
