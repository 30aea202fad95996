package io.ax.app.internal.topology;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.ax.app.internal.topology.SchedulerHarness.Dispatched;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Flow control (topology-docs/FLOW-CONTROL.md): limits, the gates, held events, grants and releases. */
class FlowControlTest {

    private static void limit(SchedulerHarness ax, String key, String json) {
        ax.pipeRaw(ax.topics.limits(), key.getBytes(StandardCharsets.UTF_8), json == null ? null : json.getBytes(StandardCharsets.UTF_8),
                ax.nowMs());
    }

    private static String report(Dispatched d, String status, String extra) {
        return "{\"executionId\":\"" + d.executionId() + "\",\"attempt\":" + d.task().getAttempt() + ",\"status\":\"" + status + "\""
                + extra + "}";
    }

    private static void schedule(SchedulerHarness ax, String taskId, String jobType, String owner) {
        ax.request(taskId, "{\"jobType\":\"" + jobType + "\",\"delayMs\":100" + (owner == null ? "" : ",\"owner\":\"" + owner + "\"")
                + ",\"backoffMs\":1000,\"jitter\":false}");
    }

    private static List<JsonNode> held(List<JsonNode> events) {
        return events.stream().filter(e -> e.hasNonNull("from") && e.get("from").asText().equals(e.get("to").asText())).toList();
    }

    @Test
    void shouldHoldDispatchesBeyondMaxInFlightAndGrantOneWhenASlotIsReleased() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            limit(ax, "type:charge-card", "{\"maxInFlight\":2}");
            for (int i = 0; i < 4; i++) {
                schedule(ax, "c" + i, "charge-card", null);
            }
            ax.discardEvents();
            ax.advanceMs(100);
            List<Dispatched> first = ax.dispatches();
            assertThat(first).hasSize(2);
            List<JsonNode> events = ax.events();
            assertThat(held(events)).extracting(e -> e.get("reason").asText())
                    .contains("held: type:charge-card has 2 of 2 executions in flight (cluster-wide maxInFlight)")
                    .anyMatch(r -> r.startsWith("held: waiting for a slot at type:charge-card (flow control)"));
            assertThat(events).filteredOn(e -> e.get("to").asText().equals("TRIGGERED")).hasSize(2)
                    .allSatisfy(e -> assertThat(e.get("reason").asText()).startsWith("granted by type:charge-card after waiting 0 ms"));
            assertThat(ax.metrics.scrape()).contains("ax_flow_in_flight{gate=\"type:charge-card\"} 2.0",
                    "ax_flow_waiting{gate=\"type:charge-card\"} 2.0", "ax_flow_held_total{gate=\"type:charge-card\"} 2.0");

            Dispatched done = first.get(0);
            ax.advanceMs(250);
            ax.report(done.key(), report(done, "SUCCEEDED", ""));
            List<Dispatched> third = ax.dispatches();
            assertThat(third).hasSize(1);
            assertThat(ax.events()).filteredOn(e -> e.get("to").asText().equals("TRIGGERED")).singleElement()
                    .satisfies(e -> assertThat(e.get("reason").asText()).isEqualTo("granted by type:charge-card after waiting 250 ms (flow control)"));
            assertThat(third.get(0).task().getDueAtMs()).isLessThanOrEqualTo(ax.nowMs());
            ax.advanceMs(1000);
            assertThat(ax.dispatches()).as("still 2 in flight: nothing more").isEmpty();
        }
    }

    @Test
    void shouldLeaveUngatedJobTypesUnaffected() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            limit(ax, "type:charge-card", "{\"maxInFlight\":1}");
            schedule(ax, "c1", "charge-card", null);
            schedule(ax, "c2", "charge-card", null);
            schedule(ax, "e1", "email", null);
            ax.discardEvents();
            ax.advanceMs(100);
            assertThat(ax.dispatches()).extracting(Dispatched::key).containsExactlyInAnyOrder("c1", "e1");
            assertThat(ax.events()).filteredOn(e -> e.get("taskId").asText().equals("e1")).extracting(e -> e.get("to").asText())
                    .containsExactly("TRIGGERED");
            assertThat(ax.drainRaw(ax.topics.flow())).as("no flow message about email")
                    .noneMatch(r -> new String(r.value(), StandardCharsets.UTF_8).contains("\"e1\""));
        }
    }

    @Test
    void shouldReleaseTheSlotOrTheQueuePlaceOfACancelledTask() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            limit(ax, "type:charge-card", "{\"maxInFlight\":1}");
            schedule(ax, "c1", "charge-card", null);
            schedule(ax, "c2", "charge-card", null);
            schedule(ax, "c3", "charge-card", null);
            ax.advanceMs(100);
            assertThat(ax.dispatches()).extracting(Dispatched::key).containsExactly("c1");
            ax.discardEvents();
            ax.request("c2", "{\"cancel\":true}");
            assertThat(ax.events()).filteredOn(e -> e.get("taskId").asText().equals("c2")).extracting(e -> e.get("from").asText() + "->"
                    + e.get("to").asText()).containsExactly("PENDING->CANCELLED");
            assertThat(ax.storedTask("c2").getFinishedAtMs()).isNotNull();
            ax.request("c1", "{\"cancel\":true}");
            assertThat(ax.dispatches()).extracting(d -> d.key() + ":" + d.task().getKind())
                    .as("c1 gets its cancel signal, and its slot goes to c3, not to the cancelled c2").containsExactly("c1:CANCEL", "c3:RUN");
        }
    }

    @Test
    void shouldReleaseTheSlotWhileARetryWaitsAndAcquireAgainForTheRetry() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            limit(ax, "type:charge-card", "{\"maxInFlight\":1}");
            schedule(ax, "c1", "charge-card", null);
            schedule(ax, "c2", "charge-card", null);
            ax.advanceMs(100);
            Dispatched c1 = ax.dispatches().get(0);
            assertThat(c1.key()).isEqualTo("c1");
            ax.report("c1", report(c1, "FAILED", ",\"retryable\":true,\"message\":\"declined\""));
            Dispatched c2 = ax.dispatches().get(0);
            assertThat(c2.key()).as("c1's slot is free while it waits for its retry").isEqualTo("c2");
            ax.discardEvents();
            ax.advanceMs(1000);
            assertThat(ax.dispatches()).as("the retry waits for c2's slot").isEmpty();
            assertThat(held(ax.events())).extracting(e -> e.get("to").asText() + " " + e.get("attempt").asInt() + " " + e.get("reason").asText())
                    .contains("RETRY_WAITING 2 held: type:charge-card has 1 of 1 executions in flight (cluster-wide maxInFlight)");
            ax.report("c2", report(c2, "SUCCEEDED", ""));
            Dispatched retry = ax.dispatches().get(0);
            assertThat(retry.key()).isEqualTo("c1");
            assertThat(retry.task().getAttempt()).isEqualTo(2);
            assertThat(ax.events()).filteredOn(e -> e.get("to").asText().equals("TRIGGERED")).singleElement()
                    .satisfies(e -> assertThat(e.get("from").asText()).isEqualTo("RETRY_WAITING"));
        }
    }

    @Test
    void shouldReleaseTheSlotOfAnExecutionThatTimesOut() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            limit(ax, "type:charge-card", "{\"maxInFlight\":1}");
            ax.request("c1", "{\"jobType\":\"charge-card\",\"delayMs\":100,\"timeoutMs\":1000,\"maxRetries\":0}");
            schedule(ax, "c2", "charge-card", null);
            ax.advanceMs(100);
            assertThat(ax.dispatches()).extracting(Dispatched::key).containsExactly("c1");
            ax.advanceMs(1000);
            assertThat(ax.dispatches()).extracting(d -> d.key() + ":" + d.task().getKind())
                    .as("c1 timed out (and gets a cancel signal); its slot goes to c2").containsExactly("c1:CANCEL", "c2:RUN");
        }
    }

    @Test
    void shouldGrantHigherPriorityFirstWithinOneOwner() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            limit(ax, "type:charge-card", "{\"maxInFlight\":1}");
            schedule(ax, "first", "charge-card", null);
            ax.request("low", "{\"jobType\":\"charge-card\",\"delayMs\":100,\"priority\":1}");
            ax.request("high", "{\"jobType\":\"charge-card\",\"delayMs\":100,\"priority\":9}");
            ax.advanceMs(100);
            Dispatched running = ax.dispatches().get(0);
            List<String> order = new ArrayList<>(List.of(running.key()));
            for (int i = 0; i < 2; i++) {
                ax.report(running.key(), report(running, "SUCCEEDED", ""));
                running = ax.dispatches().get(0);
                order.add(running.key());
            }
            assertThat(order).containsSubsequence("high", "low");
        }
    }

    @Test
    void shouldAgePrioritiesAsTheWheelDoes() {
        for (long highDelayMs : new long[] {5_000, 10_000}) {
            try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
                limit(ax, "type:charge-card", "{\"maxInFlight\":1}");
                schedule(ax, "first", "charge-card", null);
                ax.request("low", "{\"jobType\":\"charge-card\",\"delayMs\":100,\"priority\":0}");
                ax.request("high", "{\"jobType\":\"charge-card\",\"delayMs\":" + (100 + highDelayMs) + ",\"priority\":9}");
                ax.advanceMs(100 + highDelayMs);
                Dispatched running = ax.dispatches().get(0);
                ax.report(running.key(), report(running, "SUCCEEDED", ""));
                String next = ax.dispatches().get(0).key();
                assertThat(next).as("priority 9 is worth 9 s (ax.priority.aging.ms 1 s) over a task due %d ms before it", highDelayMs)
                        .isEqualTo(highDelayMs < 9_000 ? "high" : "low");
            }
        }
    }

    /**
     * Random schedules, cancels, reports (started, succeeded, failed retryably), silent workers (time-outs) and clock
     * steps on a gated type: never more than the limit in flight, and once everything has ended the gate holds no
     * slot and nobody waits (no slot leaks, whatever ended the executions).
     */
    @Test
    void shouldNeverExceedTheLimitNorLeakASlotUnderRandomInputs() {
        java.util.Random random = new java.util.Random(42);
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            limit(ax, "type:t", "{\"maxInFlight\":3,\"maxNotStarted\":2}");
            java.util.Map<String, String> lastState = new java.util.HashMap<>();
            java.util.Map<String, Dispatched> running = new java.util.HashMap<>();
            int created = 0;
            for (int step = 0; step < 400; step++) {
                int op = random.nextInt(10);
                if (op < 3) {
                    String taskId = "t" + created++;
                    ax.request(taskId, "{\"jobType\":\"t\",\"delayMs\":" + random.nextInt(300) + ",\"timeoutMs\":2000,"
                            + "\"maxRetries\":1,\"backoffMs\":200,\"jitter\":false" + (random.nextBoolean() ? ",\"owner\":\"o" + random.nextInt(3)
                            + "\"" : "") + "}");
                } else if (op == 3 && created > 0) {
                    String taskId = "t" + random.nextInt(created);
                    ax.request(taskId, "{\"cancel\":true}");
                } else if (op < 7 && !running.isEmpty()) {
                    Dispatched d = new ArrayList<>(running.values()).get(random.nextInt(running.size()));
                    String status = switch (random.nextInt(3)) {
                        case 0 -> "STARTED";
                        case 1 -> "SUCCEEDED";
                        default -> "FAILED";
                    };
                    ax.report(d.key(), report(d, status, status.equals("FAILED") ? ",\"retryable\":true" : ""));
                } else {
                    ax.advanceMs(random.nextInt(400));
                }
                track(ax, lastState, running);
                long inFlight = lastState.values().stream().filter(st -> st.equals("TRIGGERED") || st.equals("RUNNING")).count();
                assertThat(inFlight).as("executions in flight after step %d", step).isLessThanOrEqualTo(3);
            }
            for (int i = 0; i < 200 && lastState.entrySet().stream().anyMatch(st -> !st.getKey().equals("_held")
                    && !Set.of("SUCCESS", "FAILED", "CANCELLED").contains(st.getValue())); i++) {
                for (Dispatched d : new ArrayList<>(running.values())) {
                    ax.report(d.key(), report(d, "SUCCEEDED", ""));
                }
                ax.advanceMs(300);
                track(ax, lastState, running);
            }
            assertThat(lastState.remove("_held")).as("the limit held some").hasSizeGreaterThan(10);
            java.util.Map<String, Long> ends = lastState.values().stream()
                    .collect(java.util.stream.Collectors.groupingBy(st -> st, java.util.TreeMap::new, java.util.stream.Collectors.counting()));
            assertThat(ends.keySet()).as("the inputs reach every end: " + ends).contains("SUCCESS", "FAILED", "CANCELLED");
            assertThat(lastState.values()).as("every task ended").allMatch(st -> Set.of("SUCCESS", "FAILED", "CANCELLED").contains(st));
            assertThat(ax.metrics.scrape()).contains("ax_flow_in_flight{gate=\"type:t\"} 0.0", "ax_flow_waiting{gate=\"type:t\"} 0.0");
        }
    }

    /** Follows the state events (last state per task) and the RUN dispatches (the attempt a worker would report on). */
    private static void track(SchedulerHarness ax, java.util.Map<String, String> lastState, java.util.Map<String, Dispatched> running) {
        for (JsonNode e : ax.events()) {
            String to = e.get("to").asText();
            if (e.path("reason").asText().startsWith("held: type:t has 3 of 3")) {
                lastState.merge("_held", "x", (a, b) -> a + b);
                continue;
            }
            if (!Set.of("REJECTED", "IGNORED", "SKIPPED").contains(to)) {
                lastState.put(e.get("taskId").asText(), to);
            }
        }
        for (Dispatched d : ax.dispatches()) {
            if (d.task().getKind() == io.ax.schema.DispatchKind.RUN) {
                running.put(d.key(), d);
            }
        }
        running.keySet().removeIf(taskId -> !Set.of("TRIGGERED", "RUNNING").contains(lastState.get(taskId)));
    }

    @Test
    void shouldSkipAPeriodicOccurrenceDueWhileThePreviousOneIsHeld() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            limit(ax, "type:sync", "{\"maxInFlight\":1}");
            schedule(ax, "blocker", "sync", null);
            ax.request("p1", "{\"jobType\":\"sync\",\"everyMs\":1000}");
            ax.advanceMs(100);
            assertThat(ax.dispatches()).extracting(Dispatched::key).containsExactly("blocker");
            ax.discardEvents();
            ax.advanceMs(1000);
            assertThat(ax.events()).filteredOn(e -> e.get("taskId").asText().equals("p1"))
                    .extracting(e -> e.get("to").asText()).contains("PENDING").doesNotContain("TRIGGERED");
            ax.discardEvents();
            ax.advanceMs(1000);
            assertThat(ax.events()).filteredOn(e -> e.get("taskId").asText().equals("p1") && e.get("to").asText().equals("SKIPPED"))
                    .singleElement().satisfies(e -> assertThat(e.get("reason").asText()).startsWith("overlap: previous execution"));
            assertThat(ax.dispatches()).isEmpty();
        }
    }

    @Test
    void shouldDispatchAnOccurrenceHeldBeforeAPauseWhenGrantedAndFireNoMoreUntilResumed() {
        // A held execution has fired at its due time and waits for a slot only: pause stops the occurrences after it and
        // does not recall it, as it does not recall one a worker runs (PauseTask; FLOW-CONTROL.md says so).
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            limit(ax, "type:sync", "{\"maxInFlight\":1}");
            schedule(ax, "blocker", "sync", null);
            ax.request("p1", "{\"jobType\":\"sync\",\"everyMs\":1000}");
            ax.advanceMs(100);
            Dispatched blocker = ax.dispatches().get(0);
            ax.advanceMs(900);
            assertThat(ax.dispatches()).as("p1's first occurrence is held behind the blocker").isEmpty();
            ax.discardEvents();
            ax.request("p1", "{\"pause\":true}");
            assertThat(ax.events()).filteredOn(e -> e.get("taskId").asText().equals("p1")).singleElement()
                    .satisfies(e -> assertThat(e.get("reason").asText()).startsWith("paused by request")
                            .contains("held by flow control, is dispatched when granted"));
            ax.report(blocker.key(), report(blocker, "SUCCEEDED", ""));
            List<Dispatched> granted = ax.dispatches();
            assertThat(granted).extracting(Dispatched::key).containsExactly("p1");
            ax.report(granted.get(0).key(), report(granted.get(0), "SUCCEEDED", ""));
            ax.advanceMs(5_000);
            assertThat(ax.dispatches()).as("paused: no occurrence after the one held").isEmpty();
            ax.request("p1", "{\"resume\":true}");
            ax.advanceMs(1_000);
            assertThat(ax.dispatches()).extracting(Dispatched::key).containsExactly("p1");
        }
    }

    @Test
    void shouldStampAGrantWithTheTimeItsExecutionWasHeldSoThatItIsReadBeforeLaterReports() {
        // The task's stream task reads its inputs earliest record time first: a grant stamped "now" would queue behind
        // every report written while the execution waited (FlowGate.grantTimestampMs).
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            limit(ax, "type:charge-card", "{\"maxInFlight\":1}");
            schedule(ax, "c0", "charge-card", null);
            schedule(ax, "c1", "charge-card", null);
            ax.advanceMs(100);
            long heldAtMs = ax.nowMs();
            Dispatched first = ax.dispatches().get(0);
            ax.drainRaw(ax.topics.flowGrants());
            ax.advanceMs(3_000);
            ax.report(first.key(), report(first, "SUCCEEDED", ""));
            assertThat(ax.dispatches()).hasSize(1);
            assertThat(ax.drainRaw(ax.topics.flowGrants())).singleElement()
                    .satisfies(grant -> assertThat(grant.timestamp()).isEqualTo(heldAtMs).isLessThan(ax.nowMs()));
        }
    }

    @Test
    void shouldPutTheGatesHeldReasonInTheTasksHistoryAsOnTheStateTopic() {
        // The gate's reason (with its count) reaches the task's partition as a notice, which writes the held event: so
        // GET /tasks/{id} shows why the task waited, not only the partition's "waiting for a slot".
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            limit(ax, "type:charge-card", "{\"maxInFlight\":1}");
            schedule(ax, "c0", "charge-card", null);
            schedule(ax, "c1", "charge-card", null);
            ax.discardEvents();
            ax.advanceMs(100);
            String gateReason = "held: type:charge-card has 1 of 1 executions in flight (cluster-wide maxInFlight)";
            assertThat(held(ax.events())).filteredOn(e -> e.get("reason").asText().equals(gateReason)).singleElement()
                    .satisfies(e -> {
                        assertThat(e.get("taskId").asText()).isEqualTo("c1");
                        assertThat(e.get("jobType").asText()).isEqualTo("charge-card");
                        assertThat(e.get("to").asText()).isEqualTo("PENDING");
                    });
            assertThat(ax.history("c1")).extracting(io.ax.app.internal.store.HistoryEntry::reason).contains(gateReason);
            Dispatched c0 = ax.dispatches().get(0);
            ax.report(c0.key(), report(c0, "SUCCEEDED", ""));
            assertThat(ax.history("c1")).extracting(io.ax.app.internal.store.HistoryEntry::reason)
                    .anyMatch(r -> r != null && r.startsWith("granted by type:charge-card after waiting"));
        }
    }

    @Test
    void shouldDispatchAtMostMaxPerSecond() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            limit(ax, "type:email", "{\"maxPerSecond\":20}");
            for (int i = 0; i < 60; i++) {
                schedule(ax, "e" + i, "email", null);
            }
            ax.discardEvents();
            ax.advanceMs(100);
            int firstTick = ax.dispatches().size();
            assertThat(firstTick).as("the bucket holds maxPerSecond / 10").isEqualTo(2);
            assertThat(held(ax.events())).extracting(e -> e.get("reason").asText())
                    .contains("held: type:email dispatches at most 20.0 per second (maxPerSecond)");
            int total = firstTick;
            for (int ms = 0; ms < 2000; ms += 10) {
                ax.advanceMs(10);
                total += ax.dispatches().size();
            }
            assertThat(total).as("2 s at 20/s, plus the bucket").isBetween(40, 42);
        }
    }

    /** Issue 28: an owner's dispatches per second, cluster-wide (one gate per owner), with its burst; other owners pass. */
    @Test
    void shouldDispatchAnOwnersTasksAtMostItsMaxPerSecondAfterItsBurst() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            limit(ax, "owner:acme", "{\"maxPerSecond\":10,\"burst\":5}");
            for (int i = 0; i < 40; i++) {
                schedule(ax, "a" + i, "email", "acme");
            }
            for (int i = 0; i < 10; i++) {
                schedule(ax, "o" + i, "email", "other");
            }
            ax.discardEvents();
            ax.advanceMs(100);
            List<Dispatched> firstTick = ax.dispatches();
            assertThat(firstTick.stream().filter(d -> d.key().startsWith("a"))).as("acme: its burst").hasSize(5);
            assertThat(firstTick.stream().filter(d -> d.key().startsWith("o"))).as("another owner: no limit").hasSize(10);
            assertThat(held(ax.events())).extracting(e -> e.get("reason").asText())
                    .contains("held: owner:acme dispatches at most 10.0 per second (owner maxPerSecond)");
            int acme = 5;
            for (int ms = 0; ms < 2000; ms += 10) {
                ax.advanceMs(10);
                acme += ax.dispatches().size();
            }
            assertThat(acme).as("the burst, then 2 s at 10/s").isBetween(24, 26);
        }
    }

    @Test
    void shouldHoldGrantsWhileMaxNotStartedDispatchesWaitForAWorker() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            limit(ax, "type:report", "{\"maxNotStarted\":2}");
            for (int i = 0; i < 4; i++) {
                schedule(ax, "r" + i, "report", null);
            }
            ax.discardEvents();
            ax.advanceMs(100);
            List<Dispatched> first = ax.dispatches();
            assertThat(first).hasSize(2);
            assertThat(held(ax.events())).extracting(e -> e.get("reason").asText())
                    .contains("held: type:report has 2 of 2 dispatches not yet started by a worker (maxNotStarted: its workers are behind)");
            ax.advanceMs(1000);
            assertThat(ax.dispatches()).isEmpty();
            ax.report(first.get(0).key(), report(first.get(0), "STARTED", ""));
            assertThat(ax.dispatches()).as("a worker caught up: one more goes").hasSize(1);
            ax.report(first.get(1).key(), report(first.get(1), "STARTED", ""));
            assertThat(ax.dispatches()).hasSize(1);
        }
    }

    @Test
    void shouldGrantAnOwnerThatStartsWaitingLateBeforeTheBacklogOfAnother() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            limit(ax, "type:charge-card", "{\"maxInFlight\":1}");
            for (int i = 0; i < 30; i++) {
                schedule(ax, "big-" + i, "charge-card", "big");
            }
            ax.advanceMs(100);
            Dispatched running = ax.dispatches().get(0);
            for (int i = 0; i < 5; i++) { // the big owner alone: its own go in turn
                ax.report(running.key(), report(running, "SUCCEEDED", ""));
                running = ax.dispatches().get(0);
            }
            schedule(ax, "small-0", "charge-card", "small"); // due 100 ms after, behind 24 of big still waiting
            ax.advanceMs(100);
            ax.report(running.key(), report(running, "SUCCEEDED", ""));
            assertThat(ax.dispatches()).as("the late owner's one goes next").extracting(Dispatched::key).containsExactly("small-0");
        }
    }

    @Test
    void shouldShareABusyGateBetweenOwnersByWeight() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            limit(ax, "type:charge-card", "{\"maxInFlight\":1}");
            limit(ax, "owner:big", "{\"weight\":3}");
            schedule(ax, "first", "charge-card", "small");
            for (int i = 0; i < 20; i++) {
                schedule(ax, "big-" + i, "charge-card", "big");
            }
            for (int i = 0; i < 20; i++) {
                schedule(ax, "small-" + i, "charge-card", "small");
            }
            ax.advanceMs(100);
            List<String> order = new ArrayList<>();
            Dispatched running = ax.dispatches().get(0);
            for (int i = 0; i < 16; i++) {
                ax.report(running.key(), report(running, "SUCCEEDED", ""));
                running = ax.dispatches().get(0);
                order.add(running.key().startsWith("big") ? "B" : "S");
            }
            assertThat(order.stream().filter("B"::equals).count()).as("owner big has weight 3, small 1: " + order).isEqualTo(12);
            assertThat(order.subList(0, 4)).as("small's ten do not wait behind big's backlog").contains("S");
        }
    }

    @Test
    void shouldHoldAnOwnerAtItsMaxInFlightWithTheDefaultForEveryOwner() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            limit(ax, "owner:*", "{\"maxInFlight\":1}");
            limit(ax, "type:charge-card", "{\"maxInFlight\":10}");
            schedule(ax, "a1", "charge-card", "a");
            schedule(ax, "a2", "charge-card", "a");
            schedule(ax, "b1", "charge-card", "b");
            ax.discardEvents();
            ax.advanceMs(100);
            assertThat(ax.dispatches()).extracting(Dispatched::key).containsExactlyInAnyOrder("a1", "b1");
            assertThat(held(ax.events())).extracting(e -> e.get("taskId").asText() + " " + e.get("reason").asText())
                    .contains("a2 held: owner:a has 1 of 1 executions in flight (owner maxInFlight)");
            assertThat(ax.events()).isEmpty();
        }
    }

    @Test
    void shouldReleaseTheSlotsOfAGrantForATaskThatNoLongerWaits() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            limit(ax, "type:charge-card", "{\"maxInFlight\":1}");
            schedule(ax, "c1", "charge-card", null);
            ax.advanceMs(100);
            Dispatched c1 = ax.dispatches().get(0);
            ax.report("c1", report(c1, "SUCCEEDED", ""));
            ax.drainRaw(ax.topics.flow());
            ax.discardEvents();
            ax.pipeRaw(ax.topics.flowGrants(), "c1".getBytes(StandardCharsets.UTF_8), ("{\"executionId\":\"" + c1.executionId()
                    + "\",\"attempt\":1,\"gates\":[\"type:charge-card\"],\"heldSinceMs\":0}").getBytes(StandardCharsets.UTF_8), ax.nowMs());
            assertThat(ax.events()).singleElement().satisfies(e -> {
                assertThat(e.get("to").asText()).isEqualTo("IGNORED");
                assertThat(e.get("reason").asText()).startsWith("grant ignored: the execution no longer waits for it (SUCCESS)");
            });
            assertThat(ax.drainRaw(ax.topics.flow())).singleElement()
                    .satisfies(r -> assertThat(new String(r.value(), StandardCharsets.UTF_8)).contains("\"kind\":\"RELEASE\""));
            assertThat(ax.dispatches()).isEmpty();
        }
    }

    @Test
    void shouldKeepThePreviousLimitWhenALimitsRecordIsBad() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            limit(ax, "type:charge-card", "{\"maxInFlight\":1}");
            limit(ax, "type:charge-card", "{\"maxInFlight\":-3}");
            limit(ax, "type:charge-card", "{\"weight\":2}");
            limit(ax, "bogus", "{\"maxInFlight\":1}");
            limit(ax, "type:charge-card", "not json");
            assertThat(ax.metrics.limitErrors().count()).isEqualTo(4);
            assertThat(ax.metrics.limitErrors().last()).extracting(r -> r.reason())
                    .contains("maxInFlight must be between 1 and 1000000: -3", "a type key takes [maxInFlight, maxPerSecond, burst, maxNotStarted], not weight");
            schedule(ax, "c1", "charge-card", null);
            schedule(ax, "c2", "charge-card", null);
            ax.advanceMs(100);
            assertThat(ax.dispatches()).as("maxInFlight 1 still holds").hasSize(1);
            limit(ax, "type:charge-card", null);
            ax.advanceMs(20);
            assertThat(ax.dispatches()).as("tombstone: no limit, the waiting one goes").hasSize(1);
        }
    }
}
