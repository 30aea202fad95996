package io.ax.app.internal.worker;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.ax.app.config.HttpAddress;
import io.ax.app.internal.metrics.SchedulerMetrics;
import io.ax.worker.AxWorker;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The HTTP side of a worker process ({@code ./ax worker --http}): {@code GET /metrics} (Prometheus' text format,
 * topology-docs/METRICS.md) and {@code GET /health} (200 while the worker runs, 503 once it stopped, with why). With a
 * token, every request must carry {@code Authorization: Bearer <token>}.
 */
public final class WorkerHttp implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Javalin app;

    private WorkerHttp(Javalin app) {
        this.app = app;
    }

    public static WorkerHttp start(HttpAddress listen, Optional<String> token, AxWorker worker, PrometheusMeterRegistry registry) {
        Javalin app = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.startup.showOldJavalinVersionWarning = false;
            QueuedThreadPool threads = new QueuedThreadPool(8, 1);
            threads.setName("ax-worker-http");
            config.jetty.threadPool = threads;
            config.jetty.host = listen.host();
            config.jetty.port = listen.port();
            config.routes.before(ctx -> authorize(ctx, token));
            config.routes.get("/metrics", ctx -> ctx.contentType(SchedulerMetrics.contentType()).result(registry.scrape()));
            config.routes.get("/health", ctx -> health(ctx, worker));
        });
        app.start();
        return new WorkerHttp(app);
    }

    public int port() {
        return app.port();
    }

    private static void health(Context ctx, AxWorker worker) throws Exception {
        Map<String, Object> body = new LinkedHashMap<>();
        boolean running = worker.isRunning();
        body.put("status", running ? "UP" : "DOWN");
        body.put("workerId", worker.workerId());
        worker.failure().ifPresent(failure -> body.put("failure", failure.toString()));
        ctx.status(running ? 200 : 503).contentType("application/json").result(JSON.writeValueAsString(body));
    }

    private static void authorize(Context ctx, Optional<String> token) throws Exception {
        if (token.isEmpty()) {
            return;
        }
        String given = ctx.header("Authorization");
        byte[] expected = ("Bearer " + token.get()).getBytes(StandardCharsets.UTF_8);
        if (given == null || !MessageDigest.isEqual(expected, given.getBytes(StandardCharsets.UTF_8))) {
            ctx.status(401).contentType("application/json").result(JSON.writeValueAsString(
                    Map.of("error", given == null ? "missing 'Authorization: Bearer <token>'" : "wrong token")));
            ctx.skipRemainingHandlers();
        }
    }

    @Override
    public void close() {
        app.stop();
    }
}
