package io.ax.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code ax status} and {@code ax list} against a stand-in for a scheduler instance's query API (the API itself is
 * built and tested elsewhere): a local HTTP server that answers fixed JSON in the API's documented shape, and its
 * error answers.
 */
class QueryCommandsTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String TOKEN = "s3cret";
    static final String TASK = """
            {"taskId":"invoice 42","state":"RUNNING","jobType":"email","owner":"billing","priority":6,\
            "nextDueAt":null,"execution":{"executionId":"878ae41b-0001","attempt":2,"dueAt":"2026-12-01T02:00:00Z",\
            "workerId":"w-7"},"attempts":[{"attempt":1,"at":"2026-12-01T02:00:03Z","retryable":true,"message":"smtp down"}],\
            "partition":3,"instance":"ax-1:8080","history":[\
            {"from":null,"to":"PENDING","at":"2026-12-01T01:00:00Z","executionId":"878ae41b-0001","attempt":1,\
            "dueAt":"2026-12-01T02:00:00Z","workerId":null,"reason":null},\
            {"from":"RUNNING","to":"RETRY_WAITING","at":"2026-12-01T02:00:03Z","executionId":"878ae41b-0001","attempt":1,\
            "dueAt":"2026-12-01T02:00:00Z","workerId":"w-3","reason":"retry 1 of 3 at 2026-12-01T02:00:04Z: smtp down"}]}""";
    static final String PAGE = """
            {"tasks":[{"taskId":"a","state":"PENDING","jobType":"email","owner":"billing","priority":4,\
            "nextDueAt":"2026-12-01T02:00:00Z","execution":null,"attempts":0,"partition":0,"instance":"ax-1:8080"},\
            {"taskId":"b","state":"PENDING","jobType":"email","owner":"billing","priority":4,\
            "nextDueAt":"2026-12-01T03:00:00Z","execution":null,"attempts":0,"partition":1,"instance":"ax-1:8080"}],\
            "nextCursor":"b"}""";

    private final List<String> requests = new CopyOnWriteArrayList<>();
    private final List<String> authorizations = new CopyOnWriteArrayList<>();
    private HttpServer server;
    private String address;

    @BeforeEach
    void startApi() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", this::answer);
        server.start();
        address = "127.0.0.1:" + server.getAddress().getPort();
    }

    @AfterEach
    void stopApi() {
        server.stop(0);
    }

    private void answer(HttpExchange exchange) throws IOException {
        String uri = exchange.getRequestURI().getRawPath()
                + (exchange.getRequestURI().getRawQuery() != null ? "?" + exchange.getRequestURI().getRawQuery() : "");
        requests.add(uri);
        String auth = exchange.getRequestHeaders().getFirst("Authorization");
        authorizations.add(String.valueOf(auth));
        if (auth != null && !auth.equals("Bearer " + TOKEN)) {
            reply(exchange, 401, "{\"error\":\"bad token\"}");
        } else if (uri.equals("/tasks/invoice%2042")) {
            reply(exchange, 200, TASK);
        } else if (uri.startsWith("/tasks/warming-up")) {
            reply(exchange, 503, "{\"error\":\"partitions still restoring\"}");
        } else if (uri.startsWith("/tasks/")) {
            reply(exchange, 404, "{\"error\":\"no such task\"}");
        } else if (uri.startsWith("/tasks?") && uri.contains("state=NOPE")) {
            reply(exchange, 400, "{\"error\":\"unknown state NOPE\"}");
        } else if (uri.startsWith("/tasks")) {
            reply(exchange, 200, PAGE);
        } else {
            reply(exchange, 404, "{\"error\":\"no route\"}");
        }
    }

    private static void reply(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }

    @Test
    void shouldShowATaskReadably() {
        Cli.Run run = Cli.run("status", "invoice 42", "--http", address);

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(requests).containsExactly("/tasks/invoice%2042");
        assertThat(run.out()).contains("task       invoice 42", "state      RUNNING", "job type   email", "owner      billing",
                "priority   6", "next due   -", "execution  878ae41b-0001  attempt 2  due 2026-12-01T02:00:00Z  worker w-7",
                "attempt 1  2026-12-01T02:00:03Z  retryable=true  smtp down", "partition  3  (instance ax-1:8080)",
                "history    2 change(s), oldest first",
                "    2026-12-01T01:00:00Z  PENDING  878ae41b-0001 #1\n",
                "    2026-12-01T02:00:03Z  RUNNING -> RETRY_WAITING  878ae41b-0001 #1  worker w-3  retry 1 of 3 at"
                        + " 2026-12-01T02:00:04Z: smtp down");
    }

    @Test
    void shouldPrintTheTaskAsTheApiAnsweredItWithJson() throws IOException {
        Cli.Run run = Cli.run("status", "invoice 42", "--http", "http://" + address + "/", "--json");

        assertThat(run.exitCode()).isZero();
        assertThat(MAPPER.readTree(run.out())).isEqualTo(MAPPER.readTree(TASK));
    }

    @Test
    void shouldSendTheBearerTokenWhenGiven() {
        assertThat(Cli.run("status", "invoice 42", "--http", address, "--token", TOKEN).exitCode()).isZero();
        assertThat(authorizations).containsExactly("Bearer " + TOKEN);

        Cli.Run refused = Cli.run("status", "invoice 42", "--http", address, "--token", "wrong");
        assertThat(refused.exitCode()).isEqualTo(CliErrors.FAILED);
        assertThat(refused.err().strip()).isEqualTo("ax status: not authorized by the query API at http://" + address
                + " (401: bad token); give the token with --token or AX_HTTP_TOKEN");
    }

    @Test
    void shouldExitWithOneAndSayTheTaskIsNotKnownOn404() {
        Cli.Run run = Cli.run("status", "ghost", "--http", address);

        assertThat(run.exitCode()).isEqualTo(CliErrors.FAILED);
        assertThat(run.out()).isEmpty();
        assertThat(run.err().strip()).isEqualTo("ax status: no task ghost (404 from http://" + address + ": no such task)");
    }

    @Test
    void shouldSayTheSchedulerIsNotReadyOn503() {
        Cli.Run run = Cli.run("status", "warming-up", "--http", address);

        assertThat(run.exitCode()).isEqualTo(CliErrors.FAILED);
        assertThat(run.err()).contains("cannot answer yet (503: partitions still restoring)");
    }

    @Test
    void shouldSayConnectionRefusedWhenNothingListens() throws IOException {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        Cli.Run run = Cli.run("status", "t1", "--http", "127.0.0.1:" + port);

        assertThat(run.exitCode()).isEqualTo(CliErrors.FAILED);
        assertThat(run.err().strip()).isEqualTo("ax status: cannot reach the query API at http://127.0.0.1:" + port
                + ": connection refused (is a scheduler running there with its HTTP server on? see --http)");
    }

    @Test
    void shouldListAPageWithTheFiltersAndSayHowToGetTheNext() {
        Cli.Run run = Cli.run("list", "--state", "pending", "--job-type", "email", "--owner", "billing", "--limit", "2",
                "--http", address);

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(requests).containsExactly("/tasks?state=PENDING&jobType=email&owner=billing&limit=2");
        List<String> lines = run.out().lines().toList();
        assertThat(lines).hasSize(4);
        assertThat(lines.get(0)).startsWith("TASK").contains("STATE", "JOB TYPE", "OWNER", "NEXT DUE");
        assertThat(lines.get(1)).startsWith("a ").contains("PENDING", "email", "billing", "2026-12-01T02:00:00Z");
        assertThat(lines.get(3)).isEqualTo("2 task(s); next page: ax list --state pending --job-type email --owner billing"
                + " --limit 2 --cursor b");
    }

    @Test
    void shouldPassTheCursorAndPrintThePageAsJson() throws IOException {
        Cli.Run run = Cli.run("list", "--cursor", "b c", "--json", "--http", address);

        assertThat(run.exitCode()).isZero();
        assertThat(requests).containsExactly("/tasks?cursor=b+c");
        JsonNode page = MAPPER.readTree(run.out());
        assertThat(page).isEqualTo(MAPPER.readTree(PAGE));
    }

    @Test
    void shouldExitWithTwoWhenTheApiRefusesTheArguments() {
        Cli.Run run = Cli.run("list", "--state", "PENDING", "--owner", "x", "--http", address);
        assertThat(run.exitCode()).isZero();

        requests.clear();
        server.removeContext("/");
        server.createContext("/", exchange -> reply(exchange, 400, "{\"error\":\"unknown state NOPE\"}"));
        Cli.Run refused = Cli.run("list", "--http", address);
        assertThat(refused.exitCode()).isEqualTo(CliErrors.USAGE);
        assertThat(refused.err().strip()).isEqualTo("ax list: the query API refused the request (400): unknown state NOPE");
    }
}
