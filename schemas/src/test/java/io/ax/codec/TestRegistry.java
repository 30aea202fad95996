package io.ax.codec;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.avro.Schema;

/**
 * A stand-in for a registry's {@code GET /schemas/ids/{id}} on the JDK's HTTP server, for the failure modes a real
 * registry will not show on demand (hanging, 5xx). The integration tests use a real registry (Apicurio).
 */
final class TestRegistry implements AutoCloseable {
    enum Mode { SERVE, HANG, FAIL, HUGE }

    private final HttpServer server;
    private final Map<Integer, Schema> schemas = new ConcurrentHashMap<>();
    private final Map<Integer, String> answers = new ConcurrentHashMap<>();
    private final Map<String, String> versions = new ConcurrentHashMap<>();
    private final AtomicInteger calls = new AtomicInteger();
    private final CountDownLatch released = new CountDownLatch(1);
    private volatile Mode mode = Mode.SERVE;
    private final AtomicInteger registrationFailures = new AtomicInteger();
    private volatile int registrationFailureStatus = 503;

    TestRegistry() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/schemas/ids/", this::handle);
        server.createContext("/subjects/", exchange -> {
            calls.incrementAndGet();
            try (exchange) {
                if ("POST".equals(exchange.getRequestMethod())) { // POST /subjects/{subject}/versions: a registration
                    exchange.getRequestBody().readAllBytes();
                    boolean fail = registrationFailures.getAndDecrement() > 0;
                    respond(exchange, fail ? registrationFailureStatus : 200,
                            fail ? "{\"error_code\":" + registrationFailureStatus + "01,\"message\":\"refused\"}" : "{\"id\":42}");
                    return;
                }
                String answer = versions.get(exchange.getRequestURI().getPath().substring("/subjects/".length()));
                respond(exchange, answer == null ? 404 : 200, answer == null ? "{\"error_code\":40401}" : answer);
            }
        });
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    void put(int id, Schema schema) {
        schemas.put(id, schema);
    }

    /** Serves {@code answer} (the JSON of a GET /schemas/ids/{id} answer, references and all) for {@code id}. */
    void putAnswer(int id, String answer) {
        answers.put(id, answer);
    }

    /** Serves {@code answer} for GET /subjects/{subject}/versions/{version}. */
    void putVersion(String subject, int version, String answer) {
        versions.put(subject + "/versions/" + version, answer);
    }

    /** The next {@code times} registrations are answered {@code status}; later ones get id 42. */
    void failRegistrations(int times, int status) {
        registrationFailureStatus = status;
        registrationFailures.set(times);
    }

    void mode(Mode mode) {
        this.mode = mode;
    }

    int calls() {
        return calls.get();
    }

    private void handle(HttpExchange exchange) throws IOException {
        calls.incrementAndGet();
        try (exchange) {
            if (mode == Mode.HANG) {
                released.await();
                return;
            }
            if (mode == Mode.HUGE) {
                respond(exchange, 200, "{\"schema\":\"" + "x".repeat(SchemaRegistryClient.MAX_RESPONSE_BYTES) + "\"}");
                return;
            }
            if (mode == Mode.FAIL) {
                respond(exchange, 503, "{\"error_code\":50301,\"message\":\"down for maintenance\"}");
                return;
            }
            String path = exchange.getRequestURI().getPath();
            int id = Integer.parseInt(path.substring(path.lastIndexOf('/') + 1));
            Schema schema = schemas.get(id);
            if (answers.containsKey(id)) {
                respond(exchange, 200, answers.get(id));
            } else if (schema == null) {
                respond(exchange, 404, "{\"error_code\":40403,\"message\":\"Schema not found\"}");
            } else {
                String body = new com.fasterxml.jackson.databind.ObjectMapper().createObjectNode()
                        .put("schema", schema.toString()).toString();
                respond(exchange, 200, body);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void respond(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        released.countDown();
        server.stop(0);
    }
}
