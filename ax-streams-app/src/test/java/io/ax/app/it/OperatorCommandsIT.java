package io.ax.app.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ax.AxTopics;
import io.ax.app.AxScheduler;
import io.ax.app.broker.EmbeddedKafkaBroker;
import io.ax.app.cli.Cli;
import io.ax.app.cli.CliErrors;
import io.ax.app.config.AxConfig;
import io.ax.worker.AxWorker;
import io.ax.worker.Result;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The operator commands end to end, run as {@code ./ax} runs them (the same command line, its exit codes and output),
 * against a real embedded broker, a real scheduler and a worker: schedule and tail a task through its life, trigger a
 * task due in an hour, cancel, read a dead letter and replay it, and the failures.
 */
@Tag("integration")
class OperatorCommandsIT {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Duration WAIT = Duration.ofSeconds(30);

    private static EmbeddedKafkaBroker broker;
    private static AxScheduler scheduler;
    private static AxWorker worker;
    private static TopicRecorder state;
    private static String bootstrap;
    private static Path stateDir;

    @BeforeAll
    static void startAx() throws Exception {
        broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults());
        bootstrap = broker.bootstrapServers();
        stateDir = Files.createTempDirectory("ax-operator-it");
        scheduler = AxScheduler.start(new AxConfig(Map.of(AxConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AxConfig.APPLICATION_ID_CONFIG, "it-operator", AxConfig.TOPIC_PARTITIONS_CONFIG, 2,
                AxConfig.STATE_DIR_CONFIG, stateDir.toString()))).awaitRunning(Duration.ofMinutes(2));
        worker = AxWorker.builder().bootstrapServers(bootstrap).groupId("operator-workers")
                .handler("ok", context -> Result.success())
                .handler("doomed", context -> Result.fatal("the printer is on fire"))
                .build();
        worker.start();
        state = new TopicRecorder(bootstrap, AxTopics.defaults().state(), Clock.systemUTC());
    }

    @AfterAll
    static void stopAx() throws Exception {
        state.close();
        worker.close(Duration.ofSeconds(5));
        scheduler.close();
        broker.close();
    }

    private static Cli.Run ax(String... args) {
        String[] withBootstrap = java.util.Arrays.copyOf(args, args.length + 2);
        withBootstrap[args.length] = "--bootstrap";
        withBootstrap[args.length + 1] = bootstrap;
        return Cli.run(withBootstrap);
    }

    private static Cli.Run ok(String... args) {
        Cli.Run run = ax(args);
        assertThat(run.exitCode()).as("ax %s: %s", String.join(" ", args), run.err()).isZero();
        return run;
    }

    private static List<JsonNode> events(String taskId) {
        return state.seen().stream().filter(s -> taskId.equals(s.record().key())).map(s -> json(new String(s.record().value(),
                java.nio.charset.StandardCharsets.UTF_8))).toList();
    }

    private static List<String> path(String taskId) {
        return events(taskId).stream().map(e -> e.get("to").asText()).toList();
    }

    private static JsonNode json(String text) {
        try {
            return MAPPER.readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void shouldScheduleATaskAndTailItThroughItsLife() throws Exception {
        Cli.Background tail = Cli.start("tail", "--task", "op-1", "--bootstrap", bootstrap);
        await().atMost(WAIT).until(() -> tail.err().contains("following ax.state from now on"));

        Cli.Run scheduled = ok("schedule", "op-1", "--job-type", "ok", "--in", "1s", "--payload", "{\"n\":1}",
                "--owner", "ops", "--priority", "7", "--timeout", "1m", "--max-retries", "2");
        assertThat(scheduled.out()).startsWith("schedule of op-1 acknowledged: ax.requests-")
                .contains("the outcome appears on ax.state (ax tail --task op-1)");

        await().atMost(WAIT).until(() -> tail.out().contains("→ SUCCESS"));
        assertThat(tail.stop()).isZero();
        List<String> lines = tail.out().lines().toList();
        assertThat(lines.get(0)).contains("op-1", "→ PENDING", "(ok)");
        assertThat(lines).anySatisfy(line -> assertThat(line).contains("PENDING → TRIGGERED", "attempt 1"));
        assertThat(lines).allSatisfy(line -> assertThat(line).contains("op-1"));

        Cli.Run replayed = ok("tail", "--task", "op-1", "--from-beginning", "--json", "--limit", "2");
        List<JsonNode> raw = replayed.out().lines().map(OperatorCommandsIT::json).toList();
        assertThat(raw).extracting(e -> e.get("to").asText()).containsExactly("PENDING", "TRIGGERED");
        assertThat(raw).allSatisfy(e -> assertThat(e.get("taskId").asText()).isEqualTo("op-1"));

        Cli.Run byJobType = ok("tail", "--job-type", "ok", "--from-beginning", "--json", "--limit", "1");
        assertThat(json(byJobType.out()).get("jobType").asText()).isEqualTo("ok");
    }

    @Test
    void shouldTriggerATaskDueInAnHourNow() {
        JsonNode ack = json(ok("schedule", "op-2", "--job-type", "ok", "--in", "1h", "--json").out());
        assertThat(ack.get("request").asText()).isEqualTo("schedule");
        assertThat(ack.get("topic").asText()).isEqualTo("ax.requests");
        assertThat(ack.get("offset").asLong()).isNotNegative();
        await().atMost(WAIT).until(() -> path("op-2").contains("PENDING"));
        Instant dueAt = Instant.parse(events("op-2").get(0).get("dueAt").asText());

        Cli.Run triggered = ok("trigger", "op-2", "--reason", "month end");
        assertThat(triggered.out()).startsWith("trigger of op-2 acknowledged: ax.requests-");

        await().atMost(WAIT).until(() -> path("op-2").contains("SUCCESS"));
        JsonNode fired = events("op-2").stream().filter(e -> e.get("to").asText().equals("TRIGGERED")).findFirst().orElseThrow();
        assertThat(fired.get("reason").asText()).startsWith("run now by request: month end (was due ");
        assertThat(Instant.parse(fired.get("dueAt").asText())).as("due now, not in an hour").isBefore(dueAt.minus(Duration.ofMinutes(59)));

        ok("trigger", "op-2");
        await().atMost(WAIT).until(() -> path("op-2").contains("IGNORED"));
        assertThat(events("op-2")).last().satisfies(e -> assertThat(e.get("reason").asText())
                .isEqualTo("trigger: task already ended (SUCCESS)"));
    }

    @Test
    void shouldPauseResumeAndUpdateAPeriodicTask() {
        ok("schedule", "op-9", "--job-type", "ok", "--every", "1h", "--overlap", "QUEUE_ONE");
        await().atMost(WAIT).until(() -> path("op-9").contains("PENDING"));

        Cli.Run paused = ok("pause", "op-9", "--reason", "maintenance");
        assertThat(paused.out()).startsWith("pause of op-9 acknowledged: ax.requests-");
        await().atMost(WAIT).until(() -> events("op-9").stream().anyMatch(e -> e.path("reason").asText().startsWith("paused by request: maintenance")));
        ok("pause", "op-9");
        await().atMost(WAIT).until(() -> path("op-9").contains("IGNORED"));
        assertThat(events("op-9")).last().satisfies(e -> assertThat(e.get("reason").asText()).startsWith("pause: already paused since"));

        ok("resume", "op-9");
        await().atMost(WAIT).until(() -> events("op-9").stream().anyMatch(e -> e.path("reason").asText().startsWith("resumed by request")));

        ok("schedule", "op-9", "--job-type", "ok", "--every", "2h", "--if-exists", "UPDATE");
        await().atMost(WAIT).until(() -> events("op-9").stream().anyMatch(e -> e.path("reason").asText().contains("(ifExists=UPDATE)")));
        ok("cancel", "op-9");
        await().atMost(WAIT).until(() -> path("op-9").contains("CANCELLED"));
    }

    @Test
    void shouldScheduleOnACronInAZoneAndCancelIt() {
        ok("schedule", "op-7", "--job-type", "ok", "--cron", "0 2 * * *", "--zone", "Asia/Shanghai", "--if-exists", "replace");
        await().atMost(WAIT).until(() -> path("op-7").contains("PENDING"));
        Instant dueAt = Instant.parse(events("op-7").get(0).get("dueAt").asText());
        assertThat(dueAt.atZone(java.time.ZoneId.of("Asia/Shanghai")).getHour()).isEqualTo(2);

        ok("cancel", "op-7");
        await().atMost(WAIT).until(() -> path("op-7").contains("CANCELLED"));
    }

    @Test
    void shouldCancelAPendingTask() {
        ok("schedule", "op-3", "--job-type", "ok", "--at", Instant.now().plus(Duration.ofHours(2)).toString());
        JsonNode ack = json(ok("cancel", "op-3", "--reason", "not needed", "--json").out());
        assertThat(ack.get("request").asText()).isEqualTo("cancel");

        await().atMost(WAIT).until(() -> path("op-3").contains("CANCELLED"));
        assertThat(events("op-3")).last().satisfies(e -> {
            assertThat(e.get("from").asText()).isEqualTo("PENDING");
            assertThat(e.get("reason").asText()).isEqualTo("cancelled: not needed");
        });
    }

    @Test
    void shouldShowATaskThatFailedForGoodAndReplayIt() throws Exception {
        ok("schedule", "op-4", "--job-type", "doomed", "--in", "0s", "--owner", "billing", "--max-retries", "0");
        await().atMost(WAIT).until(() -> path("op-4").contains("FAILED"));
        // The dead letter is written in the same transaction as the FAILED event: visible to read_committed together.
        Cli.Run letters = ok("dead-letters", "--task", "op-4");
        List<String> lines = letters.out().lines().toList();
        assertThat(lines.get(0)).startsWith("op-4  job type doomed  owner billing  execution ")
                .contains("after 1 attempt(s) [ax.dead-letter-");
        assertThat(lines.get(1)).startsWith("    why: ").contains("the printer is on fire");
        assertThat(lines.get(2)).startsWith("    attempt 1  ").endsWith("not retryable  the printer is on fire");
        assertThat(letters.err()).contains("1 of 1 dead letter(s)");

        JsonNode letter = json(ok("dead-letters", "--task", "op-4", "--json").out());
        assertThat(letter.get("taskId").asText()).isEqualTo("op-4");
        assertThat(letter.get("jobType").asText()).isEqualTo("doomed");
        assertThat(letter.get("owner").asText()).isEqualTo("billing");
        assertThat(letter.get("errors")).singleElement().satisfies(e -> {
            assertThat(e.get("attempt").asInt()).isEqualTo(1);
            assertThat(e.get("retryable").asBoolean()).isFalse();
            assertThat(e.get("message").asText()).isEqualTo("the printer is on fire");
        });

        assertThat(ok("dead-letters", "--task", "nobody").err()).contains("no dead letters for nobody");

        Cli.Run replayed = ok("replay", "op-4", "--reason", "printer replaced");
        assertThat(replayed.out()).startsWith("replay of op-4 acknowledged: ax.requests-");
        await().atMost(WAIT).until(() -> path("op-4").lastIndexOf("PENDING") > path("op-4").indexOf("FAILED"));
    }

    @Test
    void shouldExitWithOneSayingWhyWhenTheTopicsAreNotThere() {
        Cli.Run run = ax("dead-letters", "--topic-prefix", "nothing-here.");

        assertThat(run.exitCode()).isEqualTo(CliErrors.FAILED);
        assertThat(run.err().strip()).isEqualTo("ax dead-letters: topic nothing-here.dead-letter does not exist (has a"
                + " scheduler with this topic prefix been started? see --topic-prefix)");
    }

    @Test
    void shouldExitWithTwoOnBadArgumentsAndSendNothing() {
        Cli.Run run = ax("schedule", "op-5", "--job-type", "ok", "--in", "5m", "--every", "30s");

        assertThat(run.exitCode()).isEqualTo(CliErrors.USAGE);
        assertThat(run.err()).contains("mutually exclusive");
        Cli.Run invalid = ax("schedule", "op-5", "--job-type", "no spaces allowed", "--in", "5m");
        assertThat(invalid.exitCode()).isEqualTo(CliErrors.USAGE);
        assertThat(invalid.err()).contains("jobType");
        ok("cancel", "op-5");
        await().atMost(WAIT).until(() -> path("op-5").contains("IGNORED"));
        assertThat(path("op-5")).as("nothing of the bad schedules reached the scheduler").containsExactly("IGNORED");
    }

    @Test
    void shouldExitWithOneWhenKafkaCannotBeReached() throws Exception {
        int port;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
            port = free.getLocalPort();
        }
        long startMs = System.currentTimeMillis();
        Cli.Run run = Cli.run("cancel", "op-6", "--bootstrap", "127.0.0.1:" + port);

        assertThat(run.exitCode()).isEqualTo(CliErrors.FAILED);
        assertThat(run.err().strip()).startsWith("ax cancel: Kafka: ").contains("ax.requests");
        assertThat(run.err().strip().lines()).hasSize(1);
        assertThat(System.currentTimeMillis() - startMs).as("fails within the command's Kafka timeout")
                .isLessThan(TimeUnit.SECONDS.toMillis(30));
    }
}
