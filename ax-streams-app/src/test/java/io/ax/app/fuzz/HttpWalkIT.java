package io.ax.app.fuzz;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ax.app.AxScheduler;
import io.ax.app.broker.EmbeddedKafkaBroker;
import io.ax.app.config.AxConfig;
import io.ax.app.internal.topology.LogCapture;
import io.ax.client.AxClient;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hostile HTTP walk ({@link HostileHttpWalk}) against a RUNNING scheduler on the embedded KRaft broker, with tasks in
 * its stores (pending, dispatched, periodic) and a calendar: every endpoint, with those tasks' ids and made-up ones,
 * answered without a 5xx and within the bound; no hostile body changes a task; then the data endpoints saturated by
 * requests whose body never comes while {@code /health} and {@code /internal/health} keep answering. Guarantee 10 of
 * DESIGN.md; {@code QueryServerTest} walks the same requests against an instance not running yet.
 */
@Tag("integration")
@Tag("fuzz")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HttpWalkIT {
    private static final String TOKEN = "walk-token";
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final List<String> PENDING = List.of("walk-pending-0", "walk-pending-1", "walk-pending-2", "walk-pending-3");
    private static final List<String> FIRED = List.of("walk-fired-0", "walk-fired-1");
    private static final String PERIODIC = "walk-periodic";
    private static EmbeddedKafkaBroker broker;
    private static AxScheduler scheduler;
    private static int port;

    @BeforeAll
    static void startSchedulerWithTasks(@TempDir Path stateDir) throws Exception {
        broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults());
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        AxConfig config = new AxConfig(Map.of(
                AxConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                AxConfig.APPLICATION_ID_CONFIG, "http-walk",
                AxConfig.TOPIC_PREFIX_CONFIG, "walk.",
                AxConfig.TOPIC_PARTITIONS_CONFIG, 3,
                AxConfig.STATE_DIR_CONFIG, stateDir.toString(),
                AxConfig.HTTP_LISTEN_CONFIG, Integer.toString(port),
                AxConfig.HTTP_TOKEN_CONFIG, TOKEN));
        scheduler = AxScheduler.start(config).awaitRunning(Duration.ofMinutes(2));
        try (AxClient client = AxClient.builder().bootstrapServers(broker.bootstrapServers()).topics(config.topics()).build()) {
            List<CompletableFuture<?>> acks = new ArrayList<>();
            for (String id : PENDING) {
                acks.add(client.schedule(id).jobType("walk").owner("team").after(Duration.ofHours(1)).payload("{\"n\":1}").submit());
            }
            for (String id : FIRED) {
                acks.add(client.schedule(id).jobType("walk").after(Duration.ZERO).maxRetries(0).submit());
            }
            acks.add(client.schedule(PERIODIC).jobType("walk").every(Duration.ofHours(1)).submit());
            acks.add(client.calendar("walk-holidays").excludeDates(LocalDate.of(2030, 12, 25)).set());
            CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).join();
        }
        for (String id : allIds()) {
            await().atMost(Duration.ofSeconds(60)).until(() -> get("/tasks/" + id).statusCode() == 200);
        }
        for (String id : FIRED) {
            await().atMost(Duration.ofSeconds(60)).until(() -> !"PENDING".equals(state(id)));
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> get("/calendars/walk-holidays").statusCode() == 200);
    }

    @AfterAll
    static void stop() {
        if (scheduler != null) {
            scheduler.close();
        }
        broker.close();
    }

    private static List<String> allIds() {
        List<String> ids = new ArrayList<>(PENDING);
        ids.addAll(FIRED);
        ids.add(PERIODIC);
        return ids;
    }

    private static HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(10))
                .header("Authorization", "Bearer " + TOKEN).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String state(String taskId) throws IOException, InterruptedException {
        JsonNode task = MAPPER.readTree(get("/tasks/" + taskId).body());
        return task.path("state").asText();
    }

    private static String pausedAt(String taskId) throws IOException, InterruptedException {
        return MAPPER.readTree(get("/tasks/" + taskId).body()).has("pausedAt") ? " paused" : "";
    }

    @Test
    @Order(1)
    void shouldAnswerEveryEndpointOfARunningSchedulerWithHostileValuesWithoutA5xxOrAHang() throws Exception {
        LogCapture logs = LogCapture.root();
        HostileHttpWalk walk;
        // The dispatched tasks move on by themselves (their timeout); the pending and periodic ones stay as they are.
        List<String> waiting = new ArrayList<>(PENDING);
        waiting.add(PERIODIC);
        List<String> statesBefore = new ArrayList<>();
        for (String id : waiting) {
            statesBefore.add(id + "=" + state(id) + pausedAt(id));
        }
        try {
            List<String> executions = new ArrayList<>();
            for (String id : FIRED) {
                executions.add(MAPPER.readTree(get("/tasks/" + id).body()).path("execution").path("executionId").asText());
            }
            assertThat(executions).as("the dispatched tasks' executions").allMatch(e -> !e.isEmpty());
            walk = HostileHttpWalk.of(port, TOKEN).withTaskIds(allIds()).withExecutionIds(executions).walk();
        } finally {
            logs.stop();
        }
        System.out.println("Hostile HTTP walk, running scheduler: " + walk.asked() + " requests, slowest " + walk.slowest());
        assertThat(walk.broken()).as(walk.asked() + " hostile requests to a running scheduler").isEmpty();
        List<String> statesAfter = new ArrayList<>();
        for (String id : waiting) {
            statesAfter.add(id + "=" + state(id) + pausedAt(id));
        }
        assertThat(statesAfter).as("no hostile request changed a task").isEqualTo(statesBefore);
        for (String id : FIRED) {
            assertThat(state(id)).as("no hostile request cancelled a task").isNotEqualTo("CANCELLED");
        }
        assertThat(scheduler.state()).as("the scheduler still runs").hasToString("RUNNING");
        assertThat(get("/calendars/walk-holidays").statusCode()).isEqualTo(200);
        assertThat(logs.events()).as("no ERROR from client input").noneMatch(e -> e.getLevel() == Level.ERROR
                && e.getLoggerName().startsWith("io.ax.app.internal.query"));
        assertThat(logs.longest()).as("log lines stay short").isLessThan(4_000);
    }

    @Test
    @Order(2)
    void shouldKeepHealthAnsweringWhileTheDataEndpointsOfARunningSchedulerAreSaturated() throws Exception {
        List<Socket> held = new ArrayList<>();
        long worstHealthMs = 0;
        int busy = 0;
        try {
            // More requests than the data endpoints take at once (16 by default), each declaring a body that never comes:
            // every data thread waits on its body until the idle timeout (5 s) cuts it.
            for (int i = 0; i < 40; i++) {
                Socket socket = new Socket("127.0.0.1", port);
                held.add(socket);
                String id = allIds().get(i % allIds().size());
                socket.getOutputStream().write(("POST /tasks/" + id + "/cancel HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + TOKEN
                        + "\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                socket.getOutputStream().flush();
            }
            long untilNs = System.nanoTime() + Duration.ofSeconds(3).toNanos();
            int calls = 0;
            while (System.nanoTime() < untilNs || calls < 6) {
                String path = calls % 2 == 0 ? "/health" : "/internal/health";
                long startNs = System.nanoTime();
                HttpResponse<String> health = get(path);
                long tookMs = (System.nanoTime() - startNs) / 1_000_000;
                worstHealthMs = Math.max(worstHealthMs, tookMs);
                assertThat(health.statusCode()).as(path + " while saturated: " + health.body()).isEqualTo(200);
                assertThat(tookMs).as(path + " answers while the data endpoints are saturated").isLessThan(2_000);
                HttpResponse<String> data = get("/tasks?limit=5");
                assertThat(data.statusCode()).as("a data endpoint: 503 at once while saturated, or its answer").isIn(200, 503);
                if (data.statusCode() == 503) {
                    busy++;
                }
                calls++;
            }
            System.out.println("Health with 40 held data requests: worst of " + calls + " calls " + worstHealthMs + " ms; "
                    + busy + " data requests answered 503 (busy)");
            assertThat(busy).as("the data endpoints were saturated while health answered").isPositive();
        } finally {
            for (Socket socket : held) {
                socket.close();
            }
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> get("/tasks?limit=5").statusCode() == 200);
        for (String id : PENDING) {
            assertThat(state(id)).as("a request whose body never came cancels nothing").isEqualTo("PENDING");
        }
    }
}
