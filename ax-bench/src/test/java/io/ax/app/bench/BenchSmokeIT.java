package io.ax.app.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.ax.app.broker.EmbeddedKafkaBroker;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.ResourceLockTarget;

/**
 * Every {@code ax bench} scenario but {@code chaos} ({@code ChaosIT}) at smoke size, through the command line itself,
 * so the command cannot rot: each must end by itself, print its RESULT line(s) with the documented keys, see nothing
 * early, lost or duplicated, and show the behaviour it measures (priority 9 before priority 0, the fan-in's join after
 * its upstream tasks, a failover's gap ended by a takeover). One shared broker (the {@code --bootstrap} path) except
 * for {@code raw}, which starts its own (the default path). The figures at this size measure start-up more than
 * anything: latencies are printed, and bounded only where a bound means "broken" (tens of seconds, half a core),
 * never as a performance target.
 * Two scenarios run at a time (junit-platform.properties): each is mostly JVM start-up and waiting for due times. Each
 * holds {@value #THE_BOX} shared; the steady run at a rate this box holds holds it alone (it measures what one scheduler
 * keeps up with, not what is left beside another scenario).
 */
@Tag("integration")
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(value = BenchSmokeIT.THE_BOX, mode = ResourceAccessMode.READ, target = ResourceLockTarget.CHILDREN)
class BenchSmokeIT {
    /** The box's CPU: every scenario shares it, {@link #steadyAtARateThisBoxHolds()} takes it alone. */
    static final String THE_BOX = "the box's CPU";
    /**
     * The CI steady run (issue 25 item 6): see {@link #steadyAtARateThisBoxHolds()}. 500/s, alone on the box: the issue's
     * example, 2,000/s, ran here from the seventeenth to the thirtieth session and 1,000/s from then to the
     * thirty-fourth, both beside the scenario this class runs concurrently; the thirty-fifth session measured 1,000/s
     * there at p99 18.7, 24 and 37.5 s (a cold scheduler's JIT and the neighbour take the box: ~240 dispatches a second
     * while 1,000 came in), and CI's run went red when the wait for stragglers ended first. Alone on a quiet box a cold
     * scheduler at 1,000/s still ended with p99 0.7–6.4 s, at 500/s with ~0.3 s. Asserted: none early, lost or
     * duplicated (the run waits for stragglers while dispatches come or the scheduler commits its inputs); the lateness
     * is printed.
     */
    private static final int STEADY_RATE = 500;
    private static final int STEADY_DURATION_S = 30;
    /** {@code ax.fire.batch.max} in {@link #priority()}: small enough that the backlog takes many punctuations. */
    private static final int PRIORITY_BATCH = 25;

    private static EmbeddedKafkaBroker broker;

    @BeforeAll
    static void startBroker() {
        broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults());
    }

    @AfterAll
    static void stopBroker() {
        broker.close();
    }

    /** The scenario fails unless all n records were acknowledged and read back; the line says how many and their size. */
    @Test
    @Timeout(120)
    void rawOnItsOwnEmbeddedBroker() throws Exception {
        Map<String, String> raw = single(bench("raw", "--n", "2000"), "raw");
        assertThat(raw).containsEntry("n", "2000").containsKeys("produce_per_s", "consume_per_s");
        assertThat(number(raw, "record_bytes")).as("a request the client built, as large as one").isBetween(20.0, 1024.0);
    }

    @Test
    @Timeout(180)
    void ingestPrintsRawThenIngest() throws Exception {
        List<Map<String, String>> lines = bench("ingest", "--n", "2000", "--warmup", "1", "--bootstrap", broker.bootstrapServers());
        assertThat(lines).extracting(l -> l.get("scenario")).containsExactly("raw", "ingest");
        assertThat(lines.get(1)).containsKeys("accepted_per_s", "ratio_vs_raw").containsEntry("lost", "0");
        assertThat(Double.parseDouble(lines.get(1).get("cpu_us_per_task"))).as("the scheduler used CPU taking the requests in").isPositive();
        assertThat(Double.parseDouble(lines.get(1).get("jit_pct"))).as("the share of the scheduler's CPU its JIT used").isBetween(0.0, 100.0);
        // the broker runs in this JVM: its request meters are read (another scenario may share it, so not a count)
        assertThat(Double.parseDouble(lines.get(1).get("broker_req_per_task"))).as("requests the broker served a request taken in").isPositive();
        assertThat(lines.get(1).get("broker_req")).as("by API").contains("Produce:").doesNotContain("FetchConsumer");
    }

    @Test
    @Timeout(180)
    void burst() throws Exception {
        Map<String, String> burst = single(bench("burst", "--n", "2000", "--warmup", "1", "--bootstrap", broker.bootstrapServers()), "burst");
        assertThat(burst).containsKeys("fires_per_s", "p50_ms", "p99_ms", "max_ms", "warmup_fires_per_s", "cpu_us_per_task_ingest",
                "cpu_us_per_task_fire", "bench_cpu_us_per_task_fire", "jit_pct_fire", "bench_jit_pct_fire");
        assertGuarantees(burst);
    }

    /**
     * Priority 9 before priority 0. With ax's default of 5,000 timers per partition and punctuation the 2,000 tasks would
     * fire in one pass and one commit, every priority visible at once; at most {@value #PRIORITY_BATCH} per pass the
     * backlog drains over some 14 passes and several commits, highest priority first (priority 9 in the first passes,
     * priority 0 in the last), so priority 9's median lateness is below priority 0's: an order of passes, not a timing.
     */
    @Test
    @Timeout(240) // its calibrated lead alone took 52 s on a loaded box
    void priority() throws Exception {
        Map<String, String> priority = single(bench("priority", "--n", "2000", "-D", "ax.fire.batch.max=" + PRIORITY_BATCH,
                "--bootstrap", broker.bootstrapServers()), "priority");
        assertThat(priority).containsKeys("fires_per_s", "p9_p50_ms", "p9_p99_ms", "p0_p50_ms", "p0_p99_ms").containsEntry("n", "2000");
        assertGuarantees(priority);
        assertThat(number(priority, "p9_p50_ms")).as("priority 9 dispatched before priority 0: %s", priority)
                .isLessThan(number(priority, "p0_p50_ms"));
    }

    @Test
    @Timeout(240)
    void fairness() throws Exception {
        Map<String, String> fairness = single(bench("fairness", "--n", "2000", "--bootstrap", broker.bootstrapServers()), "fairness");
        assertThat(fairness).containsKeys("small_owner_p99_ms", "big_owner_p99_ms").containsEntry("n", "2100")
                .containsEntry("limit", "50");
        assertThat(Integer.parseInt(fairness.get("limited_max_in_flight"))).as("the cluster-wide limit held").isBetween(1, 50);
        assertGuarantees(fairness);
    }

    @Test
    @Timeout(180)
    void steady() throws Exception {
        Map<String, String> steady = single(bench("steady", "--rate", "200", "--duration", "4", "--warmup", "1",
                "--bootstrap", broker.bootstrapServers()), "steady");
        assertThat(steady).containsKeys("dispatch_p99_ms", "p50_ms", "p99_ms", "max_ms", "seconds_over_150ms").containsEntry("n", "800");
        assertGuarantees(steady);
    }

    /**
     * Issue 25 item 6: a steady load this 2-core box holds, long enough to see a regression as lost or late dispatches
     * (none early, lost or doubled is asserted; latency is printed, not asserted: it depends on the box). It holds the
     * box alone: no other scenario of this class runs beside it.
     */
    @Test
    @Timeout(240)
    @ResourceLock(value = THE_BOX, mode = ResourceAccessMode.READ_WRITE)
    void steadyAtARateThisBoxHolds() throws Exception {
        Map<String, String> steady = single(bench("steady", "--rate", Integer.toString(STEADY_RATE), "--duration",
                Integer.toString(STEADY_DURATION_S), "--warmup", "5", "--bootstrap", broker.bootstrapServers()), "steady");
        assertThat(steady).containsEntry("n", Integer.toString(STEADY_RATE * STEADY_DURATION_S)).containsKeys("p99_ms");
        System.out.printf("steady %d/s for %d s in CI: dispatch p99 %s ms, handler p50 %s / p99 %s / max %s ms%n", STEADY_RATE,
                STEADY_DURATION_S, steady.get("dispatch_p99_ms"), steady.get("p50_ms"), steady.get("p99_ms"), steady.get("max_ms"));
        assertGuarantees(steady);
    }

    @Test
    @Timeout(240)
    void cost() throws Exception {
        List<Map<String, String>> lines = bench("cost", "--n", "200", "--warmup", "0", "--bootstrap", broker.bootstrapServers());
        assertThat(lines).extracting(l -> l.get("shape")).containsExactly("oneshot", "owner_limit", "periodic");
        for (Map<String, String> line : lines) {
            assertThat(line).containsEntry("scenario", "cost").containsEntry("n", "200")
                    .containsKeys("records", "bytes", "rocksdb_gets", "rocksdb_puts", "rocksdb_deletes", "rocksdb_seeks", "cpu_ms");
            assertThat(Double.parseDouble(line.get("rec_state"))).as("every task's events on the state topic").isGreaterThanOrEqualTo(3);
            assertThat(Double.parseDouble(line.get("rec_results"))).as("STARTED and SUCCEEDED of every task").isEqualTo(2.0);
            assertThat(Double.parseDouble(line.get("rec_dispatch"))).as("one dispatch per task").isEqualTo(1.0);
            assertThat(Double.parseDouble(line.get("rocksdb_puts"))).as("the stores counted their writes").isPositive();
        }
        assertThat(Double.parseDouble(lines.get(0).get("rec_requests"))).isEqualTo(1.0);
    }

    @Test
    @Timeout(240)
    void capacity() throws Exception {
        Map<String, String> capacity = single(bench("capacity", "--pending", "5000", "--rate", "200", "--duration", "3", "--warmup", "0",
                "--bootstrap", broker.bootstrapServers()), "capacity");
        assertThat(capacity).containsKeys("heap_mb", "disk_bytes_per_timer", "p99_ms", "empty_p99_ms")
                .containsEntry("n", "5000");
        assertGuarantees(capacity);
    }

    @Test
    @Timeout(240)
    void recovery() throws Exception {
        // A dead member holds its group slot until its session times out (45 s by default): shorten it here so
        // the smoke stays short; the full run measures the default.
        Map<String, String> recovery = single(bench("recovery", "--pending", "5000",
                "-D", "streams.session.timeout.ms=6000", "--bootstrap", broker.bootstrapServers()), "recovery");
        assertThat(recovery).containsKeys("resume_s", "restore_s");
        assertThat(Double.parseDouble(recovery.get("resume_s"))).isPositive();
        assertThat(Double.parseDouble(recovery.get("restore_s"))).isPositive();
        assertGuarantees(recovery);
    }

    @Test
    @Timeout(300)
    void failover() throws Exception {
        Map<String, String> failover = single(bench("failover", "--pending", "2000", "--rate", "100", "--duration", "6",
                "--warmup", "1", "--bootstrap", broker.bootstrapServers()), "failover");
        assertThat(failover).containsKeys("gap_ms", "dispatch_p99_ms", "p99_ms").containsEntry("standbys", "1")
                .containsEntry("n", "600");
        assertThat(failover).containsEntry("instances", "2").containsEntry("kills", "1");
        // Above 1 s: the killed instance's tasks wait for the takeover. Below 60 s, ten session timeouts: a "this is
        // broken" bound (no takeover), not a latency target; the gap is printed, BENCHMARKS.md has the figures.
        assertThat(Long.parseLong(failover.get("gap_ms"))).as("tasks of the killed instance wait for the takeover")
                .isGreaterThan(1_000).isLessThan(60_000);
        assertGuarantees(failover);
    }

    /**
     * The scenario fails unless every GET answered 200 and each listing held its 20 tasks (20 FAILED among the pending,
     * 20 of the PENDING page), so a RESULT line means every query answered. Below 30 s: a bound for "broken" (a listing
     * that hangs), not a latency target.
     */
    @Test
    @Timeout(240)
    void query() throws Exception {
        Map<String, String> query = single(bench("query", "--pending", "2000", "--n", "5", "--bootstrap", broker.bootstrapServers()),
                "query");
        assertThat(query).containsEntry("n", "2000").containsEntry("rounds", "5")
                .containsKeys("failed_p50_ms", "failed_p99_ms", "pending_p50_ms", "stats_p50_ms", "task_p50_ms");
        assertThat(number(query, "failed_max_ms")).as("the slowest FAILED listing").isBetween(0.0, 30_000.0);
    }

    /**
     * An idle scheduler's CPU, as % of one core. Below 50: a bound for "broken" (a thread spinning takes a whole core),
     * not a target; BENCHMARKS.md has the figures (about 5).
     */
    @Test
    @Timeout(120)
    void idle() throws Exception {
        Map<String, String> idle = single(bench("idle", "--duration", "3", "--bootstrap", broker.bootstrapServers()), "idle");
        assertThat(idle).containsEntry("duration_s", "3").doesNotContainKey("broker_cpu_pct");
        assertThat(number(idle, "cpu_pct")).as("an idle scheduler's CPU, %% of one core").isBetween(0.0, 50.0);
    }

    /**
     * One task after 200, through two barrier tasks (a request names at most 100): the join is dispatched once every
     * upstream task succeeded (its dispatch is seen after the last upstream success, which is at least two hops
     * earlier: the barrier's dispatch, run and report), and all 200 ran.
     */
    @Test
    @Timeout(240)
    void fanin() throws Exception {
        Map<String, String> fanin = single(bench("fanin", "--n", "200", "--bootstrap", broker.bootstrapServers()), "fanin");
        assertThat(fanin).containsEntry("n", "200").containsEntry("barriers", "2").containsEntry("upstream_succeeded", "200");
        // Positive and within the scenario's 10 min deadline (a success never seen would leave the epoch's millis here).
        assertThat(number(fanin, "last_success_to_dispatch_ms")).as("the join after the last upstream success")
                .isBetween(1.0, 600_000.0);
        assertThat(number(fanin, "last_barrier_to_dispatch_ms")).as("the join after the last barrier's success, which came after"
                + " the last upstream success").isPositive().isLessThan(number(fanin, "last_success_to_dispatch_ms"));
    }

    /**
     * A new scheduler's first tasks, due 1 s after it runs, three start-ups in a row on one broker (a new scheduler JVM
     * and new topics each): each task fired once, none early (lateness printed, not asserted).
     */
    @Test
    @Timeout(240)
    void startup() throws Exception {
        List<Map<String, String>> rounds = bench("startup", "--n", "30", "--bootstrap", broker.bootstrapServers());
        assertThat(rounds).hasSize(3);
        for (int round = 1; round <= 3; round++) {
            Map<String, String> startup = rounds.get(round - 1);
            assertThat(startup).containsEntry("scenario", "startup").containsEntry("round", Integer.toString(round));
            assertGuarantees(startup);
            assertThat(startup).containsEntry("n", "30").containsKeys("running_s", "first_late_ms", "first_fired_ms",
                    "fired_p50_ms", "p50_ms", "p99_ms", "max_ms");
            assertThat(Long.parseLong(startup.get("first_late_ms"))).isNotNegative();
        }
    }

    private static void assertGuarantees(Map<String, String> result) {
        assertThat(result).containsEntry("early", "0").containsEntry("lost", "0").containsEntry("dup", "0");
    }

    private static double number(Map<String, String> result, String key) {
        assertThat(result).containsKey(key);
        return Double.parseDouble(result.get(key));
    }

    private static Map<String, String> single(List<Map<String, String>> lines, String scenario) {
        assertThat(lines).hasSize(1);
        assertThat(lines.get(0)).containsEntry("scenario", scenario);
        return lines.get(0);
    }

    private static List<Map<String, String>> bench(String... args) {
        return BenchRun.results(args);
    }
}
