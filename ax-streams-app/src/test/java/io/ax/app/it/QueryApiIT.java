package io.ax.app.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ax.AxTopics;
import io.ax.app.AxScheduler;
import io.ax.app.broker.EmbeddedKafkaBroker;
import io.ax.app.config.AxConfig;
import io.ax.client.AxClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP API of two scheduler instances (one JVM, two state dirs, two ports) on a real embedded broker: any task is
 * found through either instance, whichever owns it, with its history, and an older execution of it by id; listings page
 * across both; health covers both (and lists an instance that does not answer); errors have the statuses a user expects;
 * a POSTed schedule becomes a task.
 */
@Tag("integration")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class QueryApiIT {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String TOKEN = "s3cret";
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static EmbeddedKafkaBroker broker;


    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static AxConfig config(String instance, Path stateDir, int port) {
        Map<String, Object> props = new HashMap<>();
        props.put(AxConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        props.put(AxConfig.APPLICATION_ID_CONFIG, "it-query");
        props.put(AxConfig.TOPIC_PREFIX_CONFIG, "q.");
        props.put(AxConfig.TOPIC_PARTITIONS_CONFIG, 6);
        props.put(AxConfig.INSTANCE_NAME_CONFIG, instance);
        props.put(AxConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(AxConfig.HTTP_LISTEN_CONFIG, Integer.toString(port));
        props.put(AxConfig.HTTP_TOKEN_CONFIG, TOKEN);
        return new AxConfig(props);
    }

    record Answer(int status, JsonNode body, HttpResponse<String> raw) {
    }

    private static Answer call(HttpRequest.Builder request) {
        try {
            HttpResponse<String> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
            return new Answer(response.statusCode(), response.body().isEmpty() ? null : MAPPER.readTree(response.body()), response);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static Answer get(int port, String path) {
        return call(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).header("Authorization", "Bearer " + TOKEN));
    }

    private static Answer post(int port, String path, String json) {
        return call(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).header("Authorization", "Bearer " + TOKEN)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    private static String q(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    /** Every page of a listing, following nextCursor; asserts each page holds at most {@code limit}. */
    private static List<String> listAll(int port, String filter, int limit) {
        List<String> ids = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            Answer page = get(port, "/tasks?" + filter + "&limit=" + limit + (cursor == null ? "" : "&cursor=" + q(cursor)));
            assertThat(page.status()).as("page %s: %s", pages, page.body()).isEqualTo(200);
            assertThat(page.body().get("tasks").size()).isLessThanOrEqualTo(limit);
            page.body().get("tasks").forEach(task -> ids.add(task.get("taskId").asText()));
            cursor = page.body().get("nextCursor").isNull() ? null : page.body().get("nextCursor").asText();
            pages++;
        } while (cursor != null && pages < 100);
        return ids;
    }

    private static int portA;
    private static int portB;
    private static AxTopics topics;
    private static AxScheduler a;
    private static AxScheduler b;

    /** Two instances of one scheduler, and 40 pending tasks (jobType email/report, owners team-0..2) spread over both. */
    @BeforeAll
    static void startInstancesAndSchedule(@TempDir Path dirA, @TempDir Path dirB) throws Exception {
        broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults());
        portA = freePort();
        portB = freePort();
        AxConfig configA = config("a", dirA, portA);
        topics = configA.topics();
        a = AxScheduler.start(configA);
        b = AxScheduler.start(config("b", dirB, portB));
        a.awaitRunning(Duration.ofMinutes(2));
        b.awaitRunning(Duration.ofMinutes(2));
        await().atMost(Duration.ofMinutes(1)).until(() -> ownsPartitions(portA) && ownsPartitions(portB));
        try (AxClient client = AxClient.builder().bootstrapServers(broker.bootstrapServers()).topics(topics).build()) {
            List<CompletableFuture<?>> acks = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                acks.add(client.schedule("task-" + i).jobType(i % 2 == 0 ? "email" : "report").owner("team-" + (i % 3))
                        .after(Duration.ofHours(1)).payload("{\"n\":" + i + "}").priority(i % 10).submit());
            }
            CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).join();
        }
        for (int i = 0; i < 40; i++) {
            String path = "/tasks/task-" + i;
            await().atMost(Duration.ofSeconds(30)).until(() -> get(portA, path).status() == 200);
        }
    }

    @AfterAll
    static void stopInstances() {
        if (b != null) {
            b.close();
        }
        if (a != null) {
            a.close();
        }
        broker.close();
    }

    @Test
    void shouldAnswerForEveryTaskThroughEitherInstanceWhicheverOwnsIt() {
        Set<String> owners = new HashSet<>();
        for (int i = 0; i < 40; i++) {
            JsonNode viaA = get(portA, "/tasks/task-" + i).body();
            JsonNode viaB = get(portB, "/tasks/task-" + i).body();
            assertThat(viaA.get("taskId").asText()).isEqualTo("task-" + i);
            assertThat(viaA.get("state").asText()).isEqualTo("PENDING");
            assertThat(viaA.get("jobType").asText()).isEqualTo(i % 2 == 0 ? "email" : "report");
            assertThat(viaA.get("owner").asText()).isEqualTo("team-" + (i % 3));
            assertThat(viaA.get("priority").asInt()).isEqualTo(i % 10);
            assertThat(viaA.get("payload").get("n").asInt()).isEqualTo(i);
            assertThat(viaA.get("nextDueAt").asText()).endsWith("Z");
            assertThat(viaA.get("execution").isNull()).isTrue();
            assertThat(viaA.get("attempts").isArray()).isTrue();
            assertThat(viaA.get("partition").asInt()).isBetween(0, 5);
            assertThat(viaB).as("the same answer through the other instance").isEqualTo(viaA);
            owners.add(viaA.get("instance").asText());
        }
        assertThat(owners).as("each instance owns some of the tasks")
                .containsExactlyInAnyOrder("127.0.0.1:" + portA, "127.0.0.1:" + portB);
    }

    @Test
    void shouldPageThroughListingsAcrossBothInstancesInTaskIdOrder() {
        assertThat(listAll(portA, "jobType=email", 7)).containsExactlyElementsOf(idsWhere(i -> i % 2 == 0));
        assertThat(listAll(portB, "jobType=report&owner=team-1", 3)).containsExactlyElementsOf(idsWhere(i -> i % 2 == 1 && i % 3 == 1));
        assertThat(listAll(portB, "owner=team-2", 1)).containsExactlyElementsOf(idsWhere(i -> i % 3 == 2));
        assertThat(listAll(portA, "state=PENDING&jobType=report", 1000)).containsExactlyElementsOf(idsWhere(i -> i % 2 == 1));
        JsonNode stats = get(portB, "/stats").body();
        assertThat(stats.get("byJobType").get("email").asLong()).isEqualTo(20);
        assertThat(stats.get("byJobType").get("report").asLong()).isEqualTo(20);
    }

    @Test
    void shouldAnswerErrorsWithTheStatusAUserExpects() {
        Answer unknown = get(portB, "/tasks/no-such-task");
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.body().get("error").asText()).contains("no-such-task");
        assertThat(get(portA, "/executions/00000000-0000-0000-0000-000000000000").status()).isEqualTo(404);
        assertThat(get(portA, "/tasks?limit=0").status()).isEqualTo(400);
        assertThat(get(portA, "/tasks?state=DONE").body().get("error").asText()).startsWith("state must be one of");
        assertThat(get(portA, "/tasks?dueBefore=tomorrow").status()).isEqualTo(400);
        Answer noToken = call(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + portA + "/tasks/task-1")));
        assertThat(noToken.status()).isEqualTo(401);
        assertThat(noToken.body().get("error").asText()).contains("Authorization");
        Answer wrongToken = call(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + portA + "/stats"))
                .header("Authorization", "Bearer nope"));
        assertThat(wrongToken.status()).isEqualTo(401);
        Answer invalid = post(portA, "/tasks", "{\"taskId\":\"bad\",\"jobType\":\"email\",\"delayMs\":-1}");
        assertThat(invalid.status()).isEqualTo(400);
        assertThat(invalid.body().get("error").asText()).startsWith("delayMs must be between 0 and");
        assertThat(post(portA, "/tasks", "{\"jobType\":\"email\",\"delayMs\":1}").body().get("error").asText()).contains("taskId");
        assertThat(post(portA, "/tasks", "{\"taskId\":\"t\",\"jobType\":\"email\",\"delayMs\":1,\"colour\":1}").status()).isEqualTo(400);
        assertThat(post(portA, "/tasks/task-1/cancel", "{\"because\":\"x\"}").status()).isEqualTo(400);
    }

    @Test
    void shouldScheduleAndCancelThroughPost() {
        Answer posted = post(portA, "/tasks", "{\"taskId\":\"posted-1\",\"jobType\":\"posted\",\"delayMs\":3600000,"
                + "\"owner\":\"web\",\"payload\":{\"to\":\"ada@example.com\",\"amount\":1.10}}");
        assertThat(posted.status()).as("%s", posted.body()).isEqualTo(202);
        assertThat(posted.body().get("topic").asText()).isEqualTo(topics.requests());
        assertThat(posted.body().get("partition").asInt()).isBetween(0, 5);
        assertThat(posted.body().get("offset").asLong()).isNotNegative();
        await().atMost(Duration.ofSeconds(30)).until(() -> get(portB, "/tasks/posted-1").status() == 200);
        JsonNode task = get(portB, "/tasks/posted-1").body();
        assertThat(task.get("state").asText()).isEqualTo("PENDING");
        assertThat(task.get("owner").asText()).isEqualTo("web");
        assertThat(task.get("payload").get("to").asText()).isEqualTo("ada@example.com");
        assertThat(task.get("payload").get("amount").decimalValue()).isEqualByComparingTo("1.10");

        assertThat(post(portB, "/tasks/posted-1/cancel", "{\"reason\":\"test\"}").status()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> get(portA, "/tasks/posted-1").body().get("state").asText().equals("CANCELLED"));
    }

    @Test
    void shouldRunATaskDueInAnHourNowOnPostTrigger() throws Exception {
        assertThat(post(portA, "/tasks", "{\"taskId\":\"later-1\",\"jobType\":\"report\",\"delayMs\":3600000}").status())
                .isEqualTo(202);
        await().atMost(Duration.ofSeconds(30)).until(() -> "PENDING".equals(get(portB, "/tasks/later-1").body().path("state").asText()));
        assertThat(post(portB, "/tasks/later-1/trigger", "{\"reason\":\"now\"}").status()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> "TRIGGERED".equals(get(portA, "/tasks/later-1").body().path("state").asText()));
        assertThat(post(portA, "/tasks/later-1/trigger", "{\"when\":\"now\"}").status()).isEqualTo(400);
    }

    @Test
    void shouldPauseAndResumeAPeriodicTaskOnPost() throws Exception {
        assertThat(post(portA, "/tasks", "{\"taskId\":\"hourly-1\",\"jobType\":\"report\",\"everyMs\":3600000}").status())
                .isEqualTo(202);
        await().atMost(Duration.ofSeconds(30)).until(() -> "PENDING".equals(get(portB, "/tasks/hourly-1").body().path("state").asText()));
        assertThat(post(portB, "/tasks/hourly-1/pause", "{\"reason\":\"maintenance\"}").status()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(30)).until(() -> get(portA, "/tasks/hourly-1").body().hasNonNull("pausedAt"));
        assertThat(post(portA, "/tasks/hourly-1/resume", "").status()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(30)).until(() -> !get(portB, "/tasks/hourly-1").body().has("pausedAt"));
        assertThat(post(portA, "/tasks/hourly-1/pause", "{\"when\":\"now\"}").status()).isEqualTo(400);
    }

    @Test
    void shouldFindAnExecutionByIdAndListItsTaskAmongDeadLettersOnceItFailed() throws Exception {
        assertThat(post(portA, "/tasks", "{\"taskId\":\"dl-1\",\"jobType\":\"doomed\",\"delayMs\":0,\"maxRetries\":0}").status())
                .isEqualTo(202);
        await().atMost(Duration.ofSeconds(30)).until(() -> "TRIGGERED".equals(get(portA, "/tasks/dl-1").body().path("state").asText()));
        JsonNode fired = get(portA, "/tasks/dl-1").body();
        String executionId = fired.get("execution").get("executionId").asText();
        assertThat(fired.get("execution").get("attempt").asInt()).isEqualTo(1);
        assertThat(fired.get("execution").get("dueAt").asText()).endsWith("Z");
        assertThat(fired.get("execution").has("workerId")).isTrue();
        int other = fired.get("instance").asText().endsWith(":" + portA) ? portB : portA;
        Answer execution = get(other, "/executions/" + executionId);
        assertThat(execution.status()).isEqualTo(200);
        assertThat(execution.body().get("taskId").asText()).isEqualTo("dl-1");

        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of("bootstrap.servers", broker.bootstrapServers()),
                new StringSerializer(), new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(topics.results(), "dl-1", ("{\"executionId\":\"" + executionId
                    + "\",\"attempt\":1,\"status\":\"FAILED\",\"retryable\":false,\"message\":\"mailbox full\"}")
                    .getBytes(StandardCharsets.UTF_8))).get();
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> get(other, "/dead-letters").body().get("tasks").size() == 1);
        JsonNode dead = get(other, "/dead-letters").body().get("tasks").get(0);
        assertThat(dead.get("taskId").asText()).isEqualTo("dl-1");
        assertThat(dead.get("state").asText()).isEqualTo("FAILED");
        assertThat(dead.get("attempts").get(0).get("message").asText()).isEqualTo("mailbox full");
        assertThat(get(portA, "/stats").body().get("byState").get("FAILED").asLong()).isEqualTo(1);
    }

    /**
     * A task owned by either instance, asked through both: its history tells each change with its worker and error, and
     * its failed execution, no longer the latest once replayed, is still found by its id.
     */
    @Test
    void shouldShowATasksHistoryAndFindAnOlderExecutionThroughEitherInstance() throws Exception {
        assertThat(post(portA, "/tasks", "{\"taskId\":\"hist-1\",\"jobType\":\"doomed\",\"delayMs\":0,\"maxRetries\":0}")
                .status()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(30)).until(() -> "TRIGGERED".equals(get(portB, "/tasks/hist-1").body().path("state").asText()));
        String failed = get(portB, "/tasks/hist-1").body().get("execution").get("executionId").asText();
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of("bootstrap.servers", broker.bootstrapServers()),
                new StringSerializer(), new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(topics.results(), "hist-1", ("{\"executionId\":\"" + failed
                    + "\",\"attempt\":1,\"status\":\"FAILED\",\"retryable\":false,\"message\":\"disk full\",\"workerId\":\"w-9\"}")
                    .getBytes(StandardCharsets.UTF_8))).get();
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> "FAILED".equals(get(portA, "/tasks/hist-1").body().path("state").asText()));
        assertThat(post(portB, "/tasks/hist-1/replay", "{\"reason\":\"disk freed\"}").status()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            JsonNode execution = get(portA, "/tasks/hist-1").body().path("execution");
            return !failed.equals(execution.path("executionId").asText()) && "TRIGGERED".equals(execution.path("state").asText());
        });

        JsonNode viaA = get(portA, "/tasks/hist-1").body();
        assertThat(get(portB, "/tasks/hist-1").body()).as("the same answer through the other instance").isEqualTo(viaA);
        String replayed = viaA.get("execution").get("executionId").asText();
        List<String> changes = new ArrayList<>();
        viaA.get("history").forEach(change -> changes.add(change.path("from").asText("-") + ">" + change.get("to").asText()
                + " " + change.get("executionId").asText() + " " + change.path("workerId").asText("-")));
        assertThat(changes).containsExactly("->PENDING " + failed + " -", "PENDING>TRIGGERED " + failed + " -",
                "TRIGGERED>FAILED " + failed + " w-9", "->PENDING " + replayed + " -", "PENDING>TRIGGERED " + replayed + " -");
        assertThat(viaA.get("history").get(2).get("reason").asText()).isEqualTo("non-retryable failure: disk full (worker w-9)");
        assertThat(viaA.get("history").get(3).get("reason").asText()).isEqualTo("replay of failed execution " + failed + ": disk freed");
        assertThat(viaA.get("history").get(2).get("at").asText()).endsWith("Z");

        for (int port : new int[] {portA, portB}) {
            Answer older = get(port, "/executions/" + failed);
            assertThat(older.status()).as("%s", older.body()).isEqualTo(200);
            assertThat(older.body().get("taskId").asText()).isEqualTo("hist-1");
            assertThat(older.body().get("latest").asBoolean()).isFalse();
            JsonNode execution = older.body().get("execution");
            assertThat(execution.get("executionId").asText()).isEqualTo(failed);
            assertThat(execution.get("state").asText()).isEqualTo("FAILED");
            assertThat(execution.get("attempt").asInt()).isEqualTo(1);
            assertThat(execution.get("workerId").asText()).isEqualTo("w-9");
            assertThat(execution.get("fromHistory").asBoolean()).isTrue();
            assertThat(execution.get("complete").asBoolean()).isTrue();
            assertThat(older.body().get("attempts")).singleElement()
                    .satisfies(attempt -> assertThat(attempt.get("message").asText()).contains("disk full"));
            Answer latest = get(port, "/executions/" + replayed);
            assertThat(latest.body().get("latest").asBoolean()).isTrue();
            assertThat(latest.body().get("execution").get("executionId").asText()).isEqualTo(replayed);
        }
    }

    @Test
    void shouldListTheWorkersFromEitherInstanceWhicheverHoldsTheRegistryOrReadTheReports() throws Exception {
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of("bootstrap.servers", broker.bootstrapServers()),
                new StringSerializer(), new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(topics.workers(), "node-q",
                    "{\"workerId\":\"node-q\",\"heartbeatMs\":3600000,\"jobTypes\":[\"email\"]}".getBytes(StandardCharsets.UTF_8))).get();
            for (int i = 0; i < 6; i++) { // reports on several partitions, so both instances read some: IGNORED, yet they name a worker
                producer.send(new ProducerRecord<>(topics.results(), "task-" + i, ("{\"executionId\":\"x-" + i
                        + "\",\"attempt\":1,\"status\":\"HEARTBEAT\",\"workerId\":\"node-r\"}").getBytes(StandardCharsets.UTF_8))).get();
            }
        }
        for (int port : new int[] {portA, portB}) {
            // other tests' reports name workers too: look for these two
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                JsonNode workers = get(port, "/workers").body().path("workers");
                List<String> listed = new ArrayList<>();
                workers.forEach(w -> listed.add(w.path("workerId").asText() + " " + w.path("state").asText() + " "
                        + w.path("inFlightCount").asInt()));
                return listed.contains("node-q ALIVE 0") && listed.contains("node-r REPORTING 6");
            });
            assertThat(get(port, "/workers/node-q").body().get("jobTypes").get(0).asText()).isEqualTo("email");
            assertThat(get(port, "/workers/nobody").status()).isEqualTo(404);
        }
    }

    @Test
    void shouldReportEveryInstancesHealthFromEither() {
        for (int port : new int[] {portA, portB}) {
            JsonNode cluster = get(port, "/health").body().get("cluster");
            List<String> instances = new ArrayList<>();
            Set<Integer> active = new TreeSet<>();
            for (JsonNode instance : cluster.get("instances")) {
                instances.add(instance.get("instance").asText());
                assertThat(instance.get("reachable").asBoolean()).isTrue();
                assertThat(instance.get("state").asText()).isEqualTo("RUNNING");
                instance.get("partitions").get("active").forEach(p -> assertThat(active.add(p.asInt())).as("owned once").isTrue());
                assertThat(instance.get("inputLag").size()).isPositive();
            }
            assertThat(instances).as("the instance asked first").startsWith("127.0.0.1:" + port)
                    .containsExactlyInAnyOrder("127.0.0.1:" + portA, "127.0.0.1:" + portB);
            assertThat(active).containsExactly(0, 1, 2, 3, 4, 5);
            assertThat(cluster.get("partitionCount").asInt()).isEqualTo(6);
            assertThat(cluster.get("partitions")).hasSize(6).allSatisfy(partition ->
                    assertThat(partition.get("active").asText()).isIn("127.0.0.1:" + portA, "127.0.0.1:" + portB));
        }
    }

    /**
     * Last (it adds an instance, and so a rebalance): an instance whose HTTP address answers nobody is listed as
     * unreachable, and the health of the others is still answered.
     */
    @Test
    @Order(Integer.MAX_VALUE)
    void shouldListAnUnreachableInstanceWithoutFailingTheHealthOfTheOthers(@TempDir Path dirC) throws Exception {
        Map<String, Object> props = new HashMap<>(config("c", dirC, freePort()).originals());
        String nobody = "127.0.0.1:" + freePort();
        props.put(AxConfig.HTTP_ADVERTISED_CONFIG, nobody);
        try (AxScheduler c = AxScheduler.start(new AxConfig(props))) {
            c.awaitRunning(Duration.ofMinutes(2));
            await().atMost(Duration.ofMinutes(1)).until(() -> {
                Answer health = get(portA, "/health");
                return health.status() == 200 && health.body().get("cluster").get("instances").size() == 3;
            });
            JsonNode instances = get(portA, "/health").body().get("cluster").get("instances");
            Map<String, JsonNode> byAddress = new HashMap<>();
            instances.forEach(instance -> byAddress.put(instance.get("instance").asText(), instance));
            assertThat(byAddress.get(nobody).get("reachable").asBoolean()).isFalse();
            assertThat(byAddress.get(nobody).get("error").asText()).isNotEmpty();
            assertThat(byAddress.get("127.0.0.1:" + portA).get("reachable").asBoolean()).isTrue();
            assertThat(byAddress.get("127.0.0.1:" + portB).get("reachable").asBoolean()).isTrue();
            assertThat(byAddress.get("127.0.0.1:" + portB).get("state").asText()).isIn("RUNNING", "REBALANCING");
        }
    }

    @Test
    void shouldReportEachInstancesOwnHealth() {
        JsonNode healthA = get(portA, "/health").body();
        JsonNode healthB = get(portB, "/health").body();
        assertThat(healthA.get("state").asText()).isEqualTo("RUNNING");
        assertThat(healthA.get("instance").asText()).isEqualTo("127.0.0.1:" + portA);
        Set<Integer> active = new TreeSet<>();
        healthA.get("partitions").get("active").forEach(p -> active.add(p.asInt()));
        healthB.get("partitions").get("active").forEach(p -> assertThat(active.add(p.asInt())).as("owned once").isTrue());
        assertThat(active).containsExactly(0, 1, 2, 3, 4, 5);
        assertThat(healthA.get("inputLag").size()).isPositive();
    }

    private static Set<String> idsWhere(java.util.function.IntPredicate predicate) {
        Set<String> ids = new TreeSet<>();
        for (int i = 0; i < 40; i++) {
            if (predicate.test(i)) {
                ids.add("task-" + i);
            }
        }
        return ids;
    }

    private static boolean ownsPartitions(int port) {
        Answer health = get(port, "/health");
        return health.status() == 200 && health.body().get("partitions").get("active").size() > 0;
    }
}
