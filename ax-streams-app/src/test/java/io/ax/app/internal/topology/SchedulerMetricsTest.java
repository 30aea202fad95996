package io.ax.app.internal.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.ax.app.config.AxConfig;
import io.ax.app.internal.metrics.Scrape;
import io.ax.app.internal.topology.SchedulerHarness.Dispatched;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What {@code /metrics} says (topology-docs/METRICS.md) as the scheduler works: each counter moved by the decision it
 * counts, the gauges recomputed from the partition's stores, the series that name an execution naming the right one.
 */
class SchedulerMetricsTest {
    private static final Map<String, Object> FAST_REFRESH = Map.of(AxConfig.METRICS_REFRESH_MS_CONFIG, 100L);

    private static String report(Dispatched d, String status) {
        return "{\"executionId\":\"" + d.executionId() + "\",\"attempt\":" + d.task().getAttempt() + ",\"status\":\"" + status + "\"}";
    }

    private static Scrape scrape(SchedulerHarness ax) {
        return new Scrape(ax.metrics.scrape());
    }

    @Test
    void shouldCountFiresOutcomesRetriesTimeoutsAndDeadLettersByJobType() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir(), FAST_REFRESH)) {
            ax.request("mail-1", "{\"jobType\":\"email\",\"delayMs\":0,\"maxRetries\":1,\"backoffMs\":100,\"jitter\":false,\"owner\":\"billing\"}");
            ax.request("sms-1", "{\"jobType\":\"sms\",\"delayMs\":0,\"timeoutMs\":1000,\"maxRetries\":0}");
            ax.advanceMs(250);
            List<Dispatched> fired = ax.dispatches();
            assertThat(fired).hasSize(2);
            Dispatched mail = fired.stream().filter(d -> d.key().equals("mail-1")).findFirst().orElseThrow();

            Scrape afterFire = scrape(ax);
            assertThat(afterFire.value("ax_requests_accepted_total", "input", "schedule")).isEqualTo(2);
            assertThat(afterFire.value("ax_fired_total", "job_type", "email")).isEqualTo(1);
            assertThat(afterFire.value("ax_fired_total", "job_type", "sms")).isEqualTo(1);
            assertThat(afterFire.value("ax_fire_lateness_seconds_count", "job_type", "email")).isEqualTo(1);
            assertThat(afterFire.value("ax_fire_lateness_seconds_bucket", "job_type", "email", "le", "+Inf")).isEqualTo(1);
            assertThat(afterFire.value("ax_executions_in_flight", "job_type", "email")).isEqualTo(1);
            assertThat(afterFire.find("ax_dead_letters_total", "job_type", "email")).as("shown at 0 from the first fire on")
                    .singleElement().satisfies(zero -> assertThat(zero.value()).isZero());

            ax.report("mail-1", report(mail, "FAILED"));
            ax.advanceMs(100); // the retry fires
            Dispatched retry = ax.dispatches().get(0);
            ax.report("mail-1", report(retry, "FAILED")); // retries exhausted: dead-lettered
            ax.advanceMs(1_000); // sms-1 times out, no retries left
            Scrape after = scrape(ax);
            assertThat(after.value("ax_executions_failed_total", "job_type", "email")).isEqualTo(2);
            assertThat(after.value("ax_retries_total", "job_type", "email")).isEqualTo(1);
            assertThat(after.value("ax_dead_letters_total", "job_type", "email")).isEqualTo(1);
            assertThat(after.value("ax_executions_failed_total", "job_type", "sms")).as("a time-out is a failed attempt").isEqualTo(1);
            assertThat(after.value("ax_timeouts_total", "job_type", "sms")).isEqualTo(1);
            assertThat(after.value("ax_executions_succeeded_total")).isZero();
            assertThat(after.value("ax_executions_in_flight")).isZero();
            assertThat(after.find("ax_last_failure_timestamp_seconds", "job_type", "email")).singleElement().satisfies(s -> {
                assertThat(s.labels()).containsEntry("task_id", "mail-1").containsEntry("execution_id", mail.executionId())
                        .containsEntry("owner", "billing");
                assertThat(s.value()).isEqualTo(ax.nowMs() / 1000.0 - 1.0, org.assertj.core.api.Assertions.within(0.001));
            });
            long smsDeadAtMs = ax.nowMs();
            ax.advanceMs(100); // the next refresh publishes the latest dead letters
            Scrape later = scrape(ax);
            assertThat(later.find("ax_last_dead_letter_timestamp_seconds", "job_type", "email")).singleElement().satisfies(d -> {
                assertThat(d.labels()).containsEntry("task_id", "mail-1").containsEntry("execution_id", mail.executionId())
                        .containsEntry("owner", "billing");
                assertThat(d.value()).isEqualTo(smsDeadAtMs / 1000.0 - 1.0, org.assertj.core.api.Assertions.within(0.001));
            });
            assertThat(later.find("ax_last_dead_letter_timestamp_seconds", "job_type", "sms")).singleElement()
                    .satisfies(d -> assertThat(d.labels()).containsEntry("task_id", "sms-1").containsEntry("owner", ""));
            assertThat(later.find("ax_last_dead_letter_timestamp_seconds")).hasSize(2);
        }
    }

    @Test
    void shouldCountIgnoredPausesAndResumesByCode() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir(), FAST_REFRESH)) {
            ax.request("once", "{\"jobType\":\"j\",\"delayMs\":60000}");
            ax.request("once", "{\"pause\":true}");
            ax.request("nobody", "{\"resume\":true}");
            ax.request("p", "{\"jobType\":\"j\",\"everyMs\":1000}");
            ax.request("p", "{\"resume\":true}");
            ax.advanceMs(10);
            Scrape s = scrape(ax);
            assertThat(s.value("ax_inputs_ignored_total", "input", "pause", "reason", "not-periodic")).isEqualTo(1);
            assertThat(s.value("ax_inputs_ignored_total", "input", "resume", "reason", "unknown-task")).isEqualTo(1);
            assertThat(s.value("ax_inputs_ignored_total", "input", "resume", "reason", "refused")).isEqualTo(1);
        }
    }

    @Test
    void shouldCountSuccessesAndNameRejectionsAndIgnoredInputsByCode() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir(), FAST_REFRESH)) {
            ax.request("t1", "{\"jobType\":\"j\",\"delayMs\":0}");
            ax.request("t1", "{\"jobType\":\"j\",\"delayMs\":0}"); // duplicate
            ax.request("t2", "{\"jobType\":\"j\",\"delayMs\":-5}"); // a field breaks a rule
            ax.requestBytes("t3", new byte[] {1, 2, 3}); // not a request at all
            ax.request("nobody", "{\"cancel\":true}");
            ax.advanceMs(10);
            ax.report("t1", report(ax.dispatches().get(0), "SUCCEEDED"));
            Scrape s = scrape(ax);
            assertThat(s.value("ax_executions_succeeded_total", "job_type", "j")).isEqualTo(1);
            assertThat(s.value("ax_inputs_ignored_total", "input", "schedule", "reason", "duplicate")).isEqualTo(1);
            assertThat(s.value("ax_inputs_ignored_total", "input", "cancel", "reason", "unknown-task")).isEqualTo(1);
            assertThat(s.value("ax_requests_rejected_total", "input", "schedule", "reason", "invalid-field")).isEqualTo(1);
            assertThat(s.value("ax_requests_rejected_total", "input", "request", "reason", "invalid-record")).isEqualTo(1);
            assertThat(s.value("ax_requests_accepted_total", "input", "schedule")).as("the duplicate was not accepted").isEqualTo(1);
            assertThat(s.value("ax_requests_accepted_total", "input", "cancel")).isZero();
        }
    }

    @Test
    void shouldShowPendingTimersAndTheBacklogWithItsMostOverdueTask() {
        Map<String, Object> oneFirePerTick = Map.of(AxConfig.METRICS_REFRESH_MS_CONFIG, 100L, AxConfig.FIRE_BATCH_MAX_CONFIG, 1);
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir(), oneFirePerTick)) {
            ax.request("later", "{\"jobType\":\"j\",\"delayMs\":3600000}");
            for (int i = 0; i < 50; i++) {
                ax.request("now-" + i, "{\"jobType\":\"j\",\"delayMs\":1000,\"owner\":\"team-" + i + "\"}");
            }
            ax.advanceMs(200);
            Scrape before = scrape(ax);
            assertThat(before.value("ax_timers_pending", "partition", "0")).isEqualTo(51);
            assertThat(before.value("ax_tasks_overdue", "partition", "0")).isZero();
            assertThat(before.find("ax_oldest_overdue_seconds")).isEmpty();

            ax.advanceMs(1_000); // all 50 due; one fires per punctuation
            Scrape during = scrape(ax);
            double overdue = during.value("ax_tasks_overdue", "partition", "0");
            assertThat(overdue).isBetween(1.0, 49.0);
            assertThat(during.value("ax_timers_pending", "partition", "0")).isEqualTo(overdue + 1, org.assertj.core.api.Assertions.within(1.0));
            assertThat(during.find("ax_oldest_overdue_seconds", "partition", "0")).singleElement().satisfies(s -> {
                assertThat(s.labels().get("task_id")).startsWith("now-");
                assertThat(s.labels().get("owner")).startsWith("team-");
                assertThat(s.labels().get("execution_id")).isNotEmpty();
                assertThat(s.value()).isGreaterThan(0);
            });

            for (int i = 0; i < 60; i++) { // the driver runs one punctuation per advance
                ax.advanceMs(100);
            }
            Scrape after = scrape(ax);
            assertThat(after.value("ax_tasks_overdue", "partition", "0")).isZero();
            assertThat(after.value("ax_timers_pending", "partition", "0")).isEqualTo(1);
            assertThat(after.find("ax_oldest_overdue_seconds")).isEmpty();
            assertThat(after.value("ax_fired_total")).isEqualTo(50);
            assertThat(after.find("ax_last_late_fire_seconds", "job_type", "j")).as("the latest fire over 2 s late").singleElement()
                    .satisfies(late -> {
                        assertThat(late.labels().get("task_id")).startsWith("now-");
                        assertThat(late.labels().get("owner")).startsWith("team-");
                        assertThat(late.value()).isGreaterThan(2.0);
                    });
            assertThat(before.find("ax_last_late_fire_seconds")).isEmpty();
        }
    }

    @Test
    void shouldNameTheExecutionsRunningLongerThanTheThreshold() {
        Map<String, Object> settings = Map.of(AxConfig.METRICS_REFRESH_MS_CONFIG, 100L, AxConfig.METRICS_LONG_RUNNING_MS_CONFIG, 5_000L,
                AxConfig.METRICS_LONG_RUNNING_LISTED_CONFIG, 1);
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir(), settings)) {
            ax.request("slow", "{\"jobType\":\"report\",\"delayMs\":0,\"timeoutMs\":600000,\"owner\":\"ops\"}");
            ax.advanceMs(10); // fires at T0 + 10 ms
            ax.advanceMs(2_000);
            ax.request("slower", "{\"jobType\":\"report\",\"delayMs\":0,\"timeoutMs\":600000}");
            ax.advanceMs(10);
            List<Dispatched> fired = ax.dispatches();
            ax.report("slower", report(fired.get(1), "STARTED"));
            ax.advanceMs(2_000);
            assertThat(scrape(ax).value("ax_executions_running_long")).isZero();
            assertThat(scrape(ax).value("ax_executions_in_flight", "job_type", "report")).isEqualTo(2);

            ax.advanceMs(4_000); // slow has run 8 s, slower 6 s
            Scrape s = scrape(ax);
            assertThat(s.value("ax_executions_running_long", "job_type", "report")).isEqualTo(2);
            assertThat(s.find("ax_long_running_execution_seconds")).as("only the longest is listed").singleElement().satisfies(one -> {
                assertThat(one.labels()).containsEntry("task_id", "slow").containsEntry("owner", "ops")
                        .containsEntry("execution_id", fired.get(0).executionId()).containsEntry("job_type", "report");
                assertThat(one.value()).isBetween(7.9, 8.1);
            });
        }
    }

    @Test
    void shouldNotReadTheIndexStoreForTheExecutionsRunningLongWhileNoneCanBe() {
        Map<String, Object> settings = Map.of(AxConfig.METRICS_REFRESH_MS_CONFIG, 100L, AxConfig.METRICS_LONG_RUNNING_MS_CONFIG, 5_000L);
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir(), settings)) {
            ax.metrics.storeOperations(ax::kafkaMetrics); // as AxScheduler does with its Kafka Streams client's metrics
            ax.request("slow", "{\"jobType\":\"report\",\"delayMs\":0,\"timeoutMs\":600000}");
            ax.advanceMs(10); // fires
            ax.advanceMs(200);
            double seeks = indexSeeks(ax);
            for (int i = 0; i < 20; i++) {
                ax.request("quick-" + i, "{\"jobType\":\"report\",\"delayMs\":0,\"timeoutMs\":600000}");
                ax.advanceMs(200); // fired, in flight, and refreshed twice: none of them can have run 5 s yet
            }
            assertThat(indexSeeks(ax)).as("refreshes while nothing in flight can have run long").isEqualTo(seeks);
            assertThat(scrape(ax).value("ax_executions_in_flight", "job_type", "report")).isEqualTo(21);

            ax.advanceMs(900); // slow has run 5.1 s, quick-0 4.9 s at most
            Scrape s = scrape(ax);
            assertThat(s.value("ax_executions_running_long", "job_type", "report")).isEqualTo(1);
            assertThat(indexSeeks(ax)).isGreaterThan(seeks);
        }
    }

    private static double indexSeeks(SchedulerHarness ax) {
        return scrape(ax).value("ax_store_operations_total", "op", "seek", "store", io.ax.app.internal.store.AxStores.INDEX);
    }

    @Test
    void shouldObserveTheDispatchToStartWaitOfEachStartedReportByJobType() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir(), FAST_REFRESH)) {
            for (String task : List.of("a", "b", "c", "d")) {
                ax.request(task, "{\"jobType\":\"" + (task.equals("d") ? "sms" : "email") + "\",\"delayMs\":0,\"timeoutMs\":600000}");
            }
            ax.advanceMs(10);
            Map<String, Dispatched> fired = new java.util.HashMap<>();
            ax.dispatches().forEach(d -> fired.put(d.key(), d));
            long firedAtMs = fired.get("a").task().getFiredAtMs();
            assertThat(scrape(ax).find("ax_dispatch_wait_seconds_count")).as("nothing started yet").isEmpty();

            ax.advanceMs(3_000);
            ax.report("a", started(fired.get("a"), firedAtMs + 1_200)); // the worker started it 1.2 s after the fire
            ax.report("b", report(fired.get("b"), "STARTED")); // no start time: the report's arrival, 3 s
            ax.report("c", started(fired.get("c"), firedAtMs + 60_000)); // a worker clock ahead: cut to the arrival
            ax.report("d", started(fired.get("d"), firedAtMs - 60_000)); // behind: cut to the fire, 0
            ax.report("a", report(fired.get("a"), "HEARTBEAT"));
            ax.report("a", report(fired.get("a"), "STARTED")); // already RUNNING: ignored, not observed again
            ax.report("a", report(fired.get("a"), "SUCCEEDED"));

            Scrape s = scrape(ax);
            assertThat(s.value("ax_dispatch_wait_seconds_count", "job_type", "email")).isEqualTo(3);
            assertThat(s.value("ax_dispatch_wait_seconds_sum", "job_type", "email")).isEqualTo(1.2 + 3.0 + 3.0,
                    org.assertj.core.api.Assertions.within(0.001));
            assertThat(s.value("ax_dispatch_wait_seconds_bucket", "job_type", "email", "le", "1.0")).isZero();
            assertThat(s.value("ax_dispatch_wait_seconds_bucket", "job_type", "email", "le", "2.0")).isEqualTo(1);
            assertThat(s.value("ax_dispatch_wait_seconds_bucket", "job_type", "email", "le", "5.0")).isEqualTo(3);
            assertThat(s.value("ax_dispatch_wait_seconds_count", "job_type", "sms")).isEqualTo(1);
            assertThat(s.value("ax_dispatch_wait_seconds_sum", "job_type", "sms")).isZero();
        }
    }

    private static String started(Dispatched d, long reportedAtMs) {
        return "{\"executionId\":\"" + d.executionId() + "\",\"attempt\":" + d.task().getAttempt()
                + ",\"status\":\"STARTED\",\"reportedAt\":" + reportedAtMs + "}";
    }

    @Test
    void shouldCountJobTypesPastTheBoundAsOther() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir(), Map.of(AxConfig.METRICS_JOB_TYPES_MAX_CONFIG, 2))) {
            for (int i = 0; i < 5; i++) {
                ax.request("t" + i, "{\"jobType\":\"type-" + i + "\",\"delayMs\":0}");
            }
            ax.advanceMs(10);
            Scrape s = scrape(ax);
            assertThat(s.find("ax_fired_total")).extracting(sample -> sample.labels().get("job_type"))
                    .containsExactlyInAnyOrder("type-0", "type-1", "_other");
            assertThat(s.value("ax_fired_total", "job_type", "_other")).isEqualTo(3);
        }
    }
}
