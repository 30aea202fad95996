package io.ax.app.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ax.AxHeaders;
import io.ax.AxTopics;
import io.ax.app.cli.AxMain;
import io.ax.app.AxScheduler;
import io.ax.app.broker.EmbeddedKafkaBroker;
import io.ax.app.config.AxConfig;
import io.ax.app.internal.migrate.Migration;
import io.ax.app.internal.migrate.MigrationRefusedException;
import io.ax.app.internal.migrate.MigrationSettings;
import io.ax.app.internal.setup.OutputBounds;
import io.ax.client.AxClient;
import io.ax.codec.WireCodec;
import io.ax.schema.DispatchTask;
import io.ax.schema.ExecutionReport;
import io.ax.schema.ReportStatus;
import io.ax.schema.RetryRecord;
import io.ax.validation.ScheduleLimits;
import io.ax.worker.AxWorker;
import io.ax.worker.Result;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Growing a live deployment from 3 to 6 partitions with {@code ./ax migrate}, on a real broker: pending, running and
 * retry-waiting tasks of the old deployment, plus inputs it never read (a cancel, a STARTED report), are carried
 * over; the new deployment fires the pending ones at their due times with the same executionIds, completes the
 * running ones when their worker reports to the new results topic, fires the retry at its time, and nothing is
 * dispatched twice across the old and new dispatch topics.
 */
@Tag("integration")
class MigrateIT {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Clock CLOCK = Clock.systemUTC();
    private static final AxTopics OLD = new AxTopics("mig-old.");
    private static final AxTopics NEW = new AxTopics("mig-new.");
    private static final String OLD_APP = "it-mig-old";
    private static final String NEW_APP = "it-mig-new";
    /** How far ahead the pending tasks are due: enough for stopping, migrating and starting on a busy 2-core machine. */
    private static final Duration PENDING_AHEAD = Duration.ofSeconds(40);
    private static EmbeddedKafkaBroker broker;

    @BeforeAll
    static void startBroker() {
        broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults());
    }

    @AfterAll
    static void stopBroker() {
        broker.close();
    }

    private static AxConfig config(String app, AxTopics topics, int partitions, Path stateDir, boolean adopt) {
        return new AxConfig(Map.of(
                AxConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                AxConfig.APPLICATION_ID_CONFIG, app,
                AxConfig.TOPIC_PREFIX_CONFIG, topics.prefix(),
                AxConfig.TOPIC_PARTITIONS_CONFIG, partitions,
                AxConfig.STATE_DIR_CONFIG, stateDir.toString(),
                AxConfig.ADOPT_ENABLED_CONFIG, adopt));
    }

    private static MigrationSettings migration(int partitions) {
        return new MigrationSettings(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()), OLD, OLD_APP,
                NEW, NEW_APP, partitions, (short) -1, OutputBounds.maxRecordBytes(ScheduleLimits.DEFAULT_MAX_PAYLOAD_BYTES),
                Duration.ofMinutes(3));
    }

    private static Migration.Report migrate() {
        return new Migration(migration(6), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)).run();
    }

    private static KafkaProducer<String, byte[]> reportProducer() {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all"), new StringSerializer(), new ByteArraySerializer());
    }

    /** Plays the worker of a task by hand: a report for one attempt of one execution, to the results topic given. */
    private static void report(KafkaProducer<String, byte[]> producer, String topic, DispatchTask task, ReportStatus status) {
        ExecutionReport report = ExecutionReport.newBuilder().setExecutionId(task.getExecutionId()).setAttempt(task.getAttempt())
                .setStatus(status).setRetryable(true).setMessage(status == ReportStatus.FAILED ? "smtp down" : null)
                .setWorkerId("it").build();
        try {
            producer.send(new ProducerRecord<>(topic, task.getTaskId(), WireCodec.encode(report))).get();
        } catch (InterruptedException | java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("report not acknowledged", e);
        }
    }

    private static JsonNode json(byte[] value) {
        try {
            return MAPPER.readTree(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<JsonNode> events(TopicRecorder state, String taskId) {
        return state.seen().stream().filter(s -> taskId.equals(s.record().key())).map(s -> json(s.record().value())).toList();
    }

    private static boolean reached(TopicRecorder state, String taskId, String to) {
        return events(state, taskId).stream().anyMatch(e -> to.equals(e.path("to").asText()));
    }

    private static List<DispatchTask> runs(TopicRecorder dispatch) {
        return dispatch.seen().stream()
                .filter(s -> "RUN".equals(new String(s.record().headers().lastHeader(AxHeaders.KIND).value(), StandardCharsets.UTF_8)))
                .map(s -> WireCodec.decodeBinary(s.record().value(), DispatchTask.class)).toList();
    }

    private static DispatchTask awaitRun(TopicRecorder dispatch, String taskId) {
        return await().atMost(Duration.ofSeconds(60)).until(
                () -> runs(dispatch).stream().filter(t -> t.getTaskId().equals(taskId)).findFirst().orElse(null),
                t -> t != null);
    }

    @Test
    void shouldMoveEveryLiveTaskToSixPartitionsAndRunEachOnceOnTime(@TempDir Path oldDir, @TempDir Path newDir) throws Exception {
        List<String> pending = Stream.iterate(0, i -> i + 1).limit(10).map(i -> "pending-" + i).toList();
        Map<String, Long> dueAtMs = new HashMap<>();
        try (AxClient oldClient = AxClient.builder().bootstrapServers(broker.bootstrapServers()).topics(OLD).build();
             KafkaProducer<String, byte[]> worker = reportProducer()) {
            DispatchTask running;
            DispatchTask started;
            DispatchTask failing;
            RetryRecord retry;
            try (AxScheduler old = AxScheduler.start(config(OLD_APP, OLD, 3, oldDir, false)).awaitRunning(Duration.ofMinutes(2));
                 TopicRecorder oldDispatch = new TopicRecorder(broker.bootstrapServers(), OLD.dispatch(), CLOCK);
                 TopicRecorder oldState = new TopicRecorder(broker.bootstrapServers(), OLD.state(), CLOCK);
                 TopicRecorder oldRetry = new TopicRecorder(broker.bootstrapServers(), OLD.retry(), CLOCK)) {
                Instant firstDue = CLOCK.instant().plus(PENDING_AHEAD);
                List<CompletableFuture<?>> acks = new ArrayList<>();
                for (int i = 0; i < pending.size(); i++) {
                    Instant at = firstDue.plusMillis(200L * i);
                    dueAtMs.put(pending.get(i), at.toEpochMilli());
                    acks.add(oldClient.schedule(pending.get(i)).jobType("noop").at(at).submit());
                }
                acks.add(oldClient.schedule("to-cancel").jobType("noop").at(firstDue).submit());
                acks.add(oldClient.schedule("running").jobType("hold").after(Duration.ZERO).timeout(Duration.ofMinutes(5)).submit());
                acks.add(oldClient.schedule("started-late").jobType("hold").after(Duration.ZERO).timeout(Duration.ofMinutes(5)).submit());
                acks.add(oldClient.schedule("flaky").jobType("flaky").after(Duration.ZERO).maxRetries(2)
                        .backoffIntervals(Duration.ofSeconds(40)).submit());
                CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).join();

                running = awaitRun(oldDispatch, "running");
                started = awaitRun(oldDispatch, "started-late");
                failing = awaitRun(oldDispatch, "flaky");
                report(worker, OLD.results(), running, ReportStatus.STARTED);
                report(worker, OLD.results(), failing, ReportStatus.FAILED);
                await().atMost(Duration.ofSeconds(30)).until(() -> reached(oldState, "running", "RUNNING")
                        && reached(oldState, "flaky", "RETRY_WAITING") && pending.stream().allMatch(t -> reached(oldState, t, "PENDING")));
                retry = await().atMost(Duration.ofSeconds(30)).until(() -> oldRetry.seen().stream()
                        .map(s -> WireCodec.decodeBinary(s.record().value(), RetryRecord.class)).findFirst().orElse(null), r -> r != null);

                assertThatThrownBy(MigrateIT::migrate).as("refused while the old scheduler runs")
                        .isInstanceOf(MigrationRefusedException.class).hasMessageContaining("is still running");
            }
            // Inputs the old scheduler never read: they must reach the new deployment after their task's adopt.
            report(worker, OLD.results(), started, ReportStatus.STARTED);
            oldClient.cancel("to-cancel", "no longer needed").join();

            int refused = new CommandLine(new AxMain()).execute("migrate", "--bootstrap", broker.bootstrapServers(),
                    "--from-prefix", OLD.prefix(), "--to-prefix", NEW.prefix(), "--partitions", "2",
                    "--application-id", OLD_APP, "--to-application-id", NEW_APP);
            assertThat(refused).as("fewer partitions than the old topics: refused").isEqualTo(1);

            long migrationStartMs = CLOCK.millis();
            CompletableFuture<Migration.Report> migrated = CompletableFuture.supplyAsync(MigrateIT::migrate);
            try (AxScheduler scheduler = AxScheduler.start(config(NEW_APP, NEW, 6, newDir, true)).awaitRunning(Duration.ofMinutes(2))) {
                Migration.Report report = migrated.get();
                long migrationMs = CLOCK.millis() - migrationStartMs;
                assertThat(report.oldPartitions()).isEqualTo(3);
                assertThat(report.newPartitions()).isEqualTo(6);
                assertThat(report.adopted()).containsEntry("PENDING", 11L).containsEntry("RUNNING", 1L)
                        .containsEntry("TRIGGERED", 1L).containsEntry("RETRY_WAITING", 1L);
                assertThat(report.requestsCopied()).as("the cancel").isEqualTo(1);
                assertThat(report.reportsCopied()).as("the late STARTED").isEqualTo(1);
                assertThat(CLOCK.millis()).as("migrated before the first pending task is due").isLessThan(dueAtMs.get("pending-0"));

                try (AxWorker newWorker = AxWorker.builder().bootstrapServers(broker.bootstrapServers()).topics(NEW)
                        .groupId("mig-workers").concurrency(4)
                        .handler("noop", context -> Result.success()).handler("flaky", context -> Result.success()).build();
                     TopicRecorder newDispatch = new TopicRecorder(broker.bootstrapServers(), NEW.dispatch(), CLOCK);
                     TopicRecorder newState = new TopicRecorder(broker.bootstrapServers(), NEW.state(), CLOCK);
                     TopicRecorder oldDispatch = new TopicRecorder(broker.bootstrapServers(), OLD.dispatch(), CLOCK);
                     TopicRecorder oldState = new TopicRecorder(broker.bootstrapServers(), OLD.state(), CLOCK)) {
                    newWorker.start();
                    await().atMost(Duration.ofSeconds(30)).until(() -> reached(newState, "started-late", "RUNNING"));
                    // The running executions' worker finishes and reports to the new results topic.
                    report(worker, NEW.results(), running, ReportStatus.SUCCEEDED);
                    report(worker, NEW.results(), started, ReportStatus.SUCCEEDED);

                    List<String> all = new ArrayList<>(pending);
                    all.addAll(List.of("running", "started-late", "flaky"));
                    await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                            .until(() -> all.stream().allMatch(t -> reached(newState, t, "SUCCESS")));
                    assertThat(reached(newState, "to-cancel", "CANCELLED")).isTrue();

                    List<Long> lateness = new ArrayList<>();
                    for (String taskId : pending) {
                        String oldExecutionId = events(oldState, taskId).get(0).get("executionId").asText();
                        DispatchTask fired = runs(newDispatch).stream().filter(t -> t.getTaskId().equals(taskId)).findFirst().orElseThrow();
                        long seenAtMs = newDispatch.seen().stream().filter(s -> s.record().key().equals(taskId)).findFirst().orElseThrow().seenAtMs();
                        assertThat(fired.getExecutionId()).as(taskId + " keeps its executionId").isEqualTo(oldExecutionId);
                        assertThat(fired.getDueAtMs()).isEqualTo(dueAtMs.get(taskId));
                        assertThat(fired.getFiredAtMs()).as("not early").isGreaterThanOrEqualTo(dueAtMs.get(taskId));
                        lateness.add(seenAtMs - dueAtMs.get(taskId));
                    }
                    DispatchTask retried = runs(newDispatch).stream().filter(t -> t.getTaskId().equals("flaky")).findFirst().orElseThrow();
                    assertThat(retried.getExecutionId()).isEqualTo(failing.getExecutionId());
                    assertThat(retried.getAttempt()).isEqualTo(2);
                    assertThat(retried.getDueAtMs()).isEqualTo(retry.getNextAttemptAtMs());
                    assertThat(retried.getFiredAtMs()).isGreaterThanOrEqualTo(retry.getNextAttemptAtMs());
                    assertThat(events(newState, "running")).anySatisfy(e -> assertThat(e.get("reason").asText())
                            .startsWith("migrated from mig-old.requests partition"));

                    Map<String, Long> perAttempt = Stream.concat(runs(oldDispatch).stream(), runs(newDispatch).stream())
                            .collect(Collectors.groupingBy(t -> t.getExecutionId() + "#" + t.getAttempt(), Collectors.counting()));
                    assertThat(perAttempt).as("one RUN per executionId and attempt across both dispatch topics")
                            .allSatisfy((attempt, count) -> assertThat(count).as(attempt).isEqualTo(1));
                    assertThat(perAttempt).hasSize(pending.size() + 4);
                    assertThat(Stream.concat(runs(oldDispatch).stream(), runs(newDispatch).stream()))
                            .noneMatch(t -> t.getTaskId().equals("to-cancel"));

                    Migration.Report again = migrate();
                    assertThat(again.adopted()).as("a re-run adopts nothing twice").isEmpty();
                    assertThat(again.requestsCopied() + again.reportsCopied() + again.retriesCopied()).isZero();
                    lateness.sort(null);
                    System.out.printf("RESULT migrate 3->6 partitions: migration %d ms; pending tasks visible after due p50=%d max=%d ms%n",
                            migrationMs, lateness.get(lateness.size() / 2), lateness.get(lateness.size() - 1));
                }
            }
        }
    }
}
