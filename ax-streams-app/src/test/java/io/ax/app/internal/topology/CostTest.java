package io.ax.app.internal.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.ax.app.config.AxConfig;
import io.ax.app.internal.topology.CostMeter.Cost;
import io.ax.app.internal.topology.CostMeter.Run;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Guarantee 9, "every capability pays for itself": what one task costs, counted, for the common shapes. Each test drives
 * one task through the scheduler topology (the wall clock advanced by the driver, a worker's reports piped in) and counts
 * every record on every topic, the stores' changelogs included, plus the records the test pipes in (the request, the
 * reports); and what the stores asked of RocksDB. The table goes to stdout; the total number of records is held to the
 * shape's budget. Counts, not times: nothing here can flake.
 *
 * <p>The budgets, their floors and today's figures per topic are in BENCHMARKS.md, "Cost per task". A change that adds a
 * record to every task changes the budget here, in the same commit, with its reason there.
 */
class CostTest {
    /**
     * Records per task, all topics together, for a one-shot task without owner, default settings, STARTED + SUCCEEDED:
     * issue 25's target was 16. Floor 8 (1 request and 2 reports in, 4 ax.state events, 1 dispatch) + the task writes
     * durability needs (4); the timer index is derived from the tasks and writes no changelog (it wrote 4: 16 → 12).
     * BENCHMARKS.md "Cost per task".
     */
    static final int ONE_SHOT_BUDGET = 12;
    /**
     * The same with an owner and a job-type limit: shape (a)'s 12 + 16 for the flow gate (ACQUIRE, STARTED and RELEASE on
     * ax.flow, the grant, the gate store's writes, the held state saved and announced). What the index work left of the
     * 71 measured before it (39 task-index changelog records), less the 4 timer-index changelog records (32 → 28).
     * BENCHMARKS.md "Cost per task".
     */
    static final int OWNER_AND_LIMIT_BUDGET = 28;
    /**
     * One occurrence of a periodic task, from one fire to the next, after the first (no request in): the 41 measured
     * before the index work less its 28 task-index changelog records, less its 3 timer-index changelog records (13 → 10).
     * BENCHMARKS.md "Cost per task".
     */
    static final int PERIODIC_OCCURRENCE_BUDGET = 10;

    /**
     * RocksDB operations (gets + puts + deletes + seeks, beneath the record cache) per shape, as measured once the task
     * index became unlogged and derived, its counters kept in memory and written once per record or punctuation, and the
     * in-flight gauges served from it (before: 76, 112, 51), then its writes made once per punctuation instead of once
     * per record (before: 59, 87, 32; a counter or entry changed by several records of one tick is written once). Shape
     * (a)'s window includes the once-per-assignment seeks of the index rebuild and of the legacy-key sweep (12).
     * Each window also holds one run of the purged tasks' tombstone expiry (one seek, once a minute per partition: a
     * cost of the partition, not of the task), which never ran before the fourteenth session (its once-a-minute test
     * overflowed): 52, 77, 28 → 53, 78, 29. The index's per-task entry (a copy of the fields a listing filters on, put at
     * every transition) went in the fifteenth session: 53, 78, 29 → 49, 73, 26; then a timer set within the wheel's
     * horizon (5 s by default) stays in the wheel alone, no index key put nor deleted: the one-shot tasks' due timer
     * (1 s ahead), 49, 73 → 47, 71 (the periodic task's next occurrence is a minute ahead). In the sixteenth session a
     * timer within ten minutes beyond the wheel's horizon went to memory alone too (the far level,
     * {@code ax.wheel.far.horizon.ms}): the execution's timeout (5 min ahead) is put nowhere, and the periodic task's next
     * occurrence (1 min ahead) neither: 47, 71, 26 → 46, 70, 22 (and the timeout no longer fires stale after the task's
     * life: no delete, no task read then); measured 43, 67, 22 by the twenty-seventh session, when the task store began
     * to keep the tasks it puts in flight decoded for their next read (the worker's STARTED and SUCCEEDED): two task reads
     * fewer a one-shot task, 43, 67, 22 → 41, 65, 20. BENCHMARKS.md "Cost per task".
     */
    /**
     * Bytes per task, all topics together (key + value + headers, as {@link CostMeter} counts them), for shapes (a), (b)
     * and (c): a count too, fixed by the harness's ids and clock. The largest part is the task record, saved at each
     * change with its history inside: since the twenty-ninth session an entry does not repeat the execution id or the
     * previous state the entry before it already gives (2,442, 5,982, 2,733 before; the task changelog's 1,288 → 1,026
     * for (a)). BENCHMARKS.md "Cost per task".
     */
    static final int ONE_SHOT_BYTES_BUDGET = 2_200;
    static final int OWNER_AND_LIMIT_BYTES_BUDGET = 5_600;
    static final int PERIODIC_OCCURRENCE_BYTES_BUDGET = 2_550;
    /**
     * One occurrence of a periodic task whose history is full (ax.history.max.events, 50 by default): each of its three
     * task saves rewrites the whole history (~3.2 KB), so this is what a long-lived periodic task costs an occurrence,
     * four times shape (c)'s (12,269 before the entries stopped repeating what the entry before says).
     */
    static final int FULL_HISTORY_OCCURRENCE_BYTES_BUDGET = 10_700;

    static final int ONE_SHOT_OPS_BUDGET = 41;
    static final int OWNER_AND_LIMIT_OPS_BUDGET = 65;
    static final int PERIODIC_OCCURRENCE_OPS_BUDGET = 20;

    /**
     * Default settings, except the gauge refresh: it reads the partition's stores every {@code ax.metrics.refresh.ms}
     * whatever the tasks do (a cost of the partition, not of a task), so it is moved out of the measured window.
     */
    private static final Map<String, Object> SETTINGS = Map.of(AxConfig.METRICS_REFRESH_MS_CONFIG, 3_600_000L);
    private static final long DELAY_MS = 1_000;
    private static final long TICK_MS = 10;

    @Test
    void shouldKeepAOneShotTaskWithoutOwnerWithinItsBudget() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir(), SETTINGS)) {
            CostMeter meter = new CostMeter(ax).start();
            Cost cost = runOnce(ax, meter, "t1", "{\"jobType\":\"email\",\"delayMs\":" + DELAY_MS + "}");
            System.out.print(cost.table("a one-shot task, no owner, default settings, STARTED + SUCCEEDED"));
            assertFloor(cost, ax);
            System.out.print(afterLife(ax).table("the same task after its life: five minutes (its timeout, given up at its finish,"
                    + " no longer fires stale), then its retention ends (not in the budget)"));
            assertThat(cost.storeOperations()).as("RocksDB operations of one one-shot task: %s", cost.storeOps())
                    .isLessThanOrEqualTo(ONE_SHOT_OPS_BUDGET);
            assertThat(cost.totalRecords()).as("records of one one-shot task, all topics: %s", cost.records())
                    .isLessThanOrEqualTo(ONE_SHOT_BUDGET);
            assertThat(cost.totalBytes()).as("bytes of one one-shot task, all topics: %s", cost.bytes())
                    .isLessThanOrEqualTo(ONE_SHOT_BYTES_BUDGET);
        }
    }

    @Test
    void shouldKeepAOneShotTaskWithAnOwnerAndAJobTypeLimitWithinItsBudget() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir(), SETTINGS)) {
            ax.pipeRaw(ax.topics.limits(), "type:charge-card".getBytes(StandardCharsets.UTF_8),
                    "{\"maxInFlight\":10}".getBytes(StandardCharsets.UTF_8), ax.nowMs());
            CostMeter meter = new CostMeter(ax).start(); // the limit is set once for the job type, not per task
            Cost cost = runOnce(ax, meter, "t1", "{\"jobType\":\"charge-card\",\"owner\":\"acme\",\"delayMs\":" + DELAY_MS + "}");
            System.out.print(cost.table("a one-shot task, owner acme, job type limited (maxInFlight 10), STARTED + SUCCEEDED"));
            assertFloor(cost, ax);
            assertThat(cost.storeOperations()).as("RocksDB operations of one owned, limited one-shot task: %s", cost.storeOps())
                    .isLessThanOrEqualTo(OWNER_AND_LIMIT_OPS_BUDGET);
            assertThat(cost.totalRecords()).as("records of one owned, limited one-shot task, all topics: %s", cost.records())
                    .isLessThanOrEqualTo(OWNER_AND_LIMIT_BUDGET);
            assertThat(cost.totalBytes()).as("bytes of one owned, limited one-shot task, all topics: %s", cost.bytes())
                    .isLessThanOrEqualTo(OWNER_AND_LIMIT_BYTES_BUDGET);
        }
    }

    @Test
    void shouldKeepAnOccurrenceOfAPeriodicTaskWithinItsBudget() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir(), SETTINGS)) {
            Cost cost = periodicOccurrence(ax, 0);
            System.out.print(cost.table("one occurrence of a periodic task (everyMs), STARTED + SUCCEEDED, fire to fire"));
            assertThat(cost.records(ax.topics.results())).isEqualTo(2);
            assertThat(cost.records(ax.topics.dispatch())).isEqualTo(1);
            assertThat(cost.storeOperations()).as("RocksDB operations of one occurrence: %s", cost.storeOps())
                    .isLessThanOrEqualTo(PERIODIC_OCCURRENCE_OPS_BUDGET);
            assertThat(cost.totalRecords()).as("records of one occurrence, all topics: %s", cost.records())
                    .isLessThanOrEqualTo(PERIODIC_OCCURRENCE_BUDGET);
            assertThat(cost.totalBytes()).as("bytes of one occurrence, all topics: %s", cost.bytes())
                    .isLessThanOrEqualTo(PERIODIC_OCCURRENCE_BYTES_BUDGET);
        }
    }

    @Test
    void shouldKeepAnOccurrenceOfAPeriodicTaskWithAFullHistoryWithinItsBudget() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir(), SETTINGS)) {
            Cost cost = periodicOccurrence(ax, 15); // 4 changes an occurrence: 60 > the 50 the history keeps
            assertThat(ax.history("p1")).as("a full history").hasSize(50);
            System.out.print(cost.table("one occurrence of a periodic task (everyMs) whose history is full (50 changes), fire to fire"));
            assertThat(cost.totalRecords()).as("records of one occurrence, all topics: %s", cost.records())
                    .isLessThanOrEqualTo(PERIODIC_OCCURRENCE_BUDGET);
            assertThat(cost.totalBytes()).as("bytes of one occurrence with a full history, all topics: %s", cost.bytes())
                    .isLessThanOrEqualTo(FULL_HISTORY_OCCURRENCE_BYTES_BUDGET);
        }
    }

    /**
     * A periodic task (every minute) through its first occurrence and {@code before} more, each STARTED + SUCCEEDED;
     * then what the next one costs, counted in steady state from its fire to the fire after it (no request in the window).
     */
    private static Cost periodicOccurrence(SchedulerHarness ax, int before) {
        long everyMs = 60_000;
        CostMeter setup = new CostMeter(ax).start();
        setup.request("p1", "{\"jobType\":\"sync\",\"everyMs\":" + everyMs + "}");
        long dueMs = ax.nowMs() + everyMs;
        advancePast(ax, dueMs);
        List<Run> runs = setup.runs();
        assertThat(runs).as("the first occurrence fired").hasSize(1);
        for (int occurrence = 0; occurrence < before; occurrence++) {
            setup.report(runs.get(0), "STARTED");
            setup.report(runs.get(0), "SUCCEEDED");
            dueMs += everyMs;
            advancePast(ax, dueMs);
            runs = setup.runs();
            assertThat(runs).as("occurrence %d fired", occurrence + 2).hasSize(1);
        }

        CostMeter meter = new CostMeter(ax).start();
        Run measured = runs.get(0);
        meter.report(measured, "STARTED");
        meter.report(measured, "SUCCEEDED");
        advancePast(ax, dueMs + everyMs);
        assertThat(meter.runs()).as("the next occurrence fired").singleElement()
                .satisfies(run -> assertThat(run.executionId()).isNotEqualTo(measured.executionId()));
        return meter.measure();
    }

    @Test
    void shouldServeTheStoresOperationsOnMetrics() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir(), SETTINGS)) {
            ax.metrics.storeOperations(ax::kafkaMetrics); // as AxScheduler does with its Kafka Streams client's metrics
            CostMeter meter = new CostMeter(ax).start();
            Cost cost = runOnce(ax, meter, "t1", "{\"jobType\":\"email\",\"delayMs\":" + DELAY_MS + "}");
            String scrape = ax.metrics.scrape();
            long taskPuts = cost.storeOps().get("ax-tasks/put");
            assertThat(scrape).contains("ax_store_operations_total{op=\"put\",store=\"ax-tasks\"} " + (double) taskPuts);
        }
    }

    /**
     * What a finished task still costs: the task is purged when its retention (7 days by default) ends. (Its execution's
     * timeout, 5 minutes ahead, is held in memory since the sixteenth session and leaves it at the finish; in the timer
     * index it stayed to fire stale and be deleted then.) Printed, not held to the budget: the issue's
     * figure and the budgets count a task's life up to its final state.
     */
    private static Cost afterLife(SchedulerHarness ax) {
        CostMeter meter = new CostMeter(ax).start();
        advancePast(ax, ax.nowMs() + Duration.ofMinutes(5).toMillis());
        advancePast(ax, ax.nowMs() + Duration.ofDays(7).toMillis());
        return meter.measure();
    }

    /** Moves the clock to {@code dueMs}, then one tick on (a timer fires at the first punctuation at or after its due time). */
    private static void advancePast(SchedulerHarness ax, long dueMs) {
        ax.advanceMs(dueMs - ax.nowMs());
        ax.advanceMs(TICK_MS);
    }

    /** Schedules {@code json} as {@code taskId}, lets it fire, reports STARTED then SUCCEEDED; what it all cost. */
    private static Cost runOnce(SchedulerHarness ax, CostMeter meter, String taskId, String json) {
        meter.request(taskId, json);
        ax.advanceMs(DELAY_MS);
        List<Run> runs = meter.runs();
        assertThat(runs).as("the task fired once").singleElement().satisfies(run -> assertThat(run.taskId()).isEqualTo(taskId));
        meter.report(runs.get(0), "STARTED");
        meter.report(runs.get(0), "SUCCEEDED");
        ax.advanceMs(TICK_MS); // the index's writes wait for the punctuation: they belong to this task's cost
        assertThat(ax.storedTask(taskId).getFinishedAtMs()).as("the task finished").isNotNull();
        return meter.measure();
    }

    /** What the contract makes unavoidable, so that a budget can never be met by losing it. */
    private static void assertFloor(Cost cost, SchedulerHarness ax) {
        assertThat(cost.records(ax.topics.requests())).isEqualTo(1);
        assertThat(cost.records(ax.topics.results())).isEqualTo(2);
        assertThat(cost.records(ax.topics.dispatch())).isEqualTo(1);
        assertThat(cost.records(ax.topics.state())).as("PENDING, TRIGGERED, RUNNING, SUCCESS").isGreaterThanOrEqualTo(4);
    }
}
