package io.ax.app.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ax.AxTopics;
import io.ax.app.config.AxConfig;
import io.ax.client.AxClient;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * {@code query}: the HTTP API's listing on a loaded scheduler. P pending tasks (default 1,000,000, due in a day, as
 * {@code capacity} loads them), then 20 tasks run and fail for good; then {@code GET /tasks?state=FAILED&limit=20}
 * is timed {@code --n} times (default 50): {@code failed_p50_ms failed_p99_ms failed_max_ms}; beside it the first
 * page of PENDING ({@code pending_p50_ms}), {@code GET /stats} ({@code stats_p50_ms}) and one task by id
 * ({@code task_p50_ms}). The listing walks the state index, so its cost does not depend on P.
 */
public final class QueryScenario implements Scenario {
    static final int DEFAULT_PENDING = 1_000_000;
    static final int DEFAULT_ROUNDS = 50;
    private static final int FAILED = 20;
    private static final String TOKEN = "bench";
    private static final TaskKeys PENDING = new TaskKeys("pending-");
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final HttpClient http = HttpClient.newHttpClient();
    private int port;

    @Override
    public String name() {
        return "query";
    }

    @Override
    public List<ResultLine> run(BenchContext context) throws Exception {
        int pending = context.options().pendingOr(DEFAULT_PENDING);
        int rounds = context.options().nOr(DEFAULT_ROUNDS);
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        AxTopics topics = context.topics("query");
        try (ChildScheduler scheduler = context.startScheduler("query", "a", context.newDir("query-state"),
                Map.of(AxConfig.HTTP_LISTEN_CONFIG, Integer.toString(port), AxConfig.HTTP_TOKEN_CONFIG, TOKEN), List.of())) {
            Ingest load = Ingest.run(context, "query", PENDING, pending, context.clock().millis() + Duration.ofDays(1).toMillis());
            context.note("%d pending loaded at %.0f/s".formatted(load.accepted(), load.acceptedPerS()));
            failTwenty(context, topics);
            context.note("%d FAILED among %d PENDING; timing %d listings".formatted(FAILED, pending, rounds));
            long[] failed = time(rounds, "/tasks?state=FAILED&limit=20", FAILED);
            long[] pendingPage = time(rounds, "/tasks?state=PENDING&limit=20", 20);
            long[] stats = time(rounds, "/stats", -1);
            long[] task = time(rounds, "/tasks/" + PENDING.key(pending / 2), -1);
            return List.of(ResultLine.of("query", pending)
                    .add("failed_p50_ms", percentile(failed, 50)).add("failed_p99_ms", percentile(failed, 99))
                    .add("failed_max_ms", failed[failed.length - 1])
                    .add("pending_p50_ms", percentile(pendingPage, 50)).add("stats_p50_ms", percentile(stats, 50))
                    .add("task_p50_ms", percentile(task, 50)).add("rounds", rounds).add("load_per_s", load.acceptedPerS()));
        }
    }

    /** 20 tasks due now, each reported FAILED (not retryable) once dispatched; waits until /stats counts 20 FAILED. */
    private void failTwenty(BenchContext context, AxTopics topics) throws Exception {
        try (AxClient client = context.client(topics)) {
            for (int i = 0; i < FAILED; i++) {
                client.schedule("failed-" + i).jobType("bench-fail").after(Duration.ZERO).maxRetries(0).submit().get();
            }
        }
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(context.kafka(), new StringSerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < FAILED; i++) {
                String taskId = "failed-" + i;
                JsonNode task = awaitState(taskId, "TRIGGERED");
                String report = "{\"executionId\":\"" + task.get("execution").get("executionId").asText()
                        + "\",\"attempt\":1,\"status\":\"FAILED\",\"retryable\":false,\"message\":\"bench\"}";
                producer.send(new ProducerRecord<>(topics.results(), taskId, report.getBytes(StandardCharsets.UTF_8))).get();
            }
        }
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (get("/stats").path("byState").path("FAILED").asInt() < FAILED) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("query: the 20 failures were not all FAILED within 2 minutes: " + get("/stats"));
            }
            Thread.sleep(50); // polling the scheduler under test: no Awaitility in the harness's main code
        }
    }

    private JsonNode awaitState(String taskId, String state) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (true) {
            JsonNode task = get("/tasks/" + taskId);
            if (state.equals(task.path("state").asText())) {
                return task;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("query: " + taskId + " not " + state + " within 2 minutes: " + task);
            }
            Thread.sleep(20);
        }
    }

    /** Sorted latencies (ms) of {@code rounds} GETs of {@code path}; each must answer 200 (with {@code expectTasks} tasks). */
    private long[] time(int rounds, String path, int expectTasks) throws Exception {
        long[] ms = new long[rounds];
        for (int r = 0; r < rounds; r++) {
            long start = System.nanoTime();
            JsonNode answer = get(path);
            ms[r] = (System.nanoTime() - start) / 1_000_000;
            if (expectTasks >= 0 && answer.path("tasks").size() != expectTasks) {
                throw new IllegalStateException("query: " + path + " gave " + answer.path("tasks").size() + " tasks, not " + expectTasks);
            }
        }
        Arrays.sort(ms);
        return ms;
    }

    private static long percentile(long[] sorted, int p) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p / 100.0 * sorted.length) - 1)];
    }

    private JsonNode get(String path) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Authorization", "Bearer " + TOKEN).build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException("query: GET " + path + " answered " + response.statusCode() + ": " + response.body());
        }
        return MAPPER.readTree(response.body());
    }
}
