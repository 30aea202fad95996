package io.ax.app.internal.query;

import io.ax.AxTopics;
import io.ax.InvalidRequestException;
import io.ax.app.config.HttpAddress;
import io.ax.app.internal.metrics.SchedulerMetrics;
import io.ax.validation.ScheduleLimits;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.ax.validation.Quote;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.HostInfo;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP API of one scheduler instance (Javalin on Jetty), answering from Kafka Streams' interactive queries: each
 * {@link EndpointGroup} registers its routes ({@link TaskEndpoints}, {@link StatusEndpoints}, {@link RequestEndpoints});
 * {@link ConsoleEndpoints} serves the web console's static files (without a token: they hold no data);
 * {@link MetricsEndpoints} the metrics for Prometheus, behind the same access check as the API.
 *
 * <p>Access: with a token set, every request must carry {@code Authorization: Bearer <token>}; without one (loopback
 * only, see {@code ax.http.listen}) reads are open and every POST is refused. Errors are {@code {"error":"…"}}: 400 bad
 * parameter or field (the validator's message), 401 token, 404 unknown task, 503 with {@code Retry-After} while the
 * instance is not RUNNING, a partition is not queryable or a peer does not answer.
 *
 * <p>Bounded like the topics ({@link HttpLimits}, {@link HttpGuard}): a body declared larger than allowed is answered 413
 * before it is read, a connection silent for the idle timeout is closed (a request whose body does not come is answered
 * 408 and logged once), connections and threads are bounded, and the data endpoints take at most
 * {@link HttpLimits#maxDataRequests()} threads at once (503 beyond), so {@code /health} and {@code /internal/health}
 * answer while they are saturated. JSON bodies are read with the topics' rules ({@code StrictJson}) and every query
 * parameter within its range: client input gets a 4xx, never a 5xx.
 */
public final class QueryServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(QueryServer.class);

    private final Javalin app;
    private final HttpGuard guard;

    private QueryServer(Javalin app, HttpGuard guard) {
        this.app = app;
        this.guard = guard;
    }

    /**
     * Starts the API on {@code listen}; {@code advertised} is this instance's {@code application.server}.
     *
     * @param partitions the input topics' partition count
     * @param producer   sends the POSTed requests; the caller owns and closes it
     */
    public static QueryServer start(KafkaStreams streams, HttpAddress listen, HttpAddress advertised, int partitions,
                                    Optional<String> token, Producer<String, byte[]> producer, AxTopics topics,
                                    ScheduleLimits limits, SchedulerMetrics metrics) {
        return start(streams, listen, advertised, partitions, token, producer, topics, limits, metrics, HttpLimits.DEFAULTS);
    }

    /** The same, with the HTTP API's own bounds ({@code ax.http.*}). */
    public static QueryServer start(KafkaStreams streams, HttpAddress listen, HttpAddress advertised, int partitions,
                                    Optional<String> token, Producer<String, byte[]> producer, AxTopics topics,
                                    ScheduleLimits limits, SchedulerMetrics metrics, HttpLimits http) {
        HttpGuard guard = new HttpGuard(http);
        metrics.httpGuard(guard::abandoned, guard::busy);
        Cluster cluster = new Cluster(streams, new HostInfo(advertised.host(), advertised.port()), partitions, token);
        LocalQueries local = new LocalQueries(new LocalStores(streams, topics.requests()), cluster.self(), metrics::indexCounts);
        List<EndpointGroup> groups = List.of(new TaskEndpoints(local, cluster),
                new StatusEndpoints(streams, local, cluster, topics), new RequestEndpoints(producer, topics, limits, guard),
                new ConsoleEndpoints(), new MetricsEndpoints(metrics), new CalendarEndpoints(streams, metrics),
                new LimitsEndpoints(streams, metrics), new WorkersEndpoints(streams, cluster, metrics));
        Javalin app = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.startup.showOldJavalinVersionWarning = false;
            QueuedThreadPool threads = new QueuedThreadPool(http.maxThreads(), 2);
            threads.setName("ax-http");
            config.jetty.threadPool = threads;
            config.jetty.host = listen.host();
            config.jetty.port = listen.port();
            config.http.maxRequestSize = http.maxBodyBytes();
            config.jetty.modifyHttpConfiguration(httpConfig -> {
                httpConfig.setIdleTimeout(http.idleTimeoutMs());
                httpConfig.setSendServerVersion(false);
            });
            // One connector, as Javalin would make it, with a short idle timeout: a request whose body does not come is cut.
            config.jetty.addConnector((server, httpConfig) -> {
                ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(httpConfig));
                connector.setHost(listen.host());
                connector.setPort(listen.port());
                connector.setIdleTimeout(http.idleTimeoutMs());
                return connector;
            });
            config.jetty.modifyServer(server -> {
                server.addBean(new NetworkConnectionLimit(http.maxConnections(), server));
                server.setErrorHandler(new ClientErrorHandler());
            });
            config.routes.before(guard::admit);
            config.routes.before(ctx -> authorize(ctx, token));
            config.routes.after(guard::release);
            groups.forEach(group -> group.register(config.routes));
            config.routes.exception(HttpError.class, (e, ctx) -> Responses.error(ctx, e.status(), e.getMessage()));
            config.routes.exception(InvalidRequestException.class, (e, ctx) -> Responses.error(ctx, 400, e.getMessage()));
            // Javalin's own answers (a body over maxRequestSize, a bad content type ...): client errors, in the API's form.
            config.routes.exception(HttpResponseException.class, (e, ctx) -> Responses.error(ctx, e.getStatus(),
                    e.getStatus() == 404 ? noEndpoint(ctx) : Quote.truncate(e.getMessage(), 300)));
            config.routes.exception(InvalidStateStoreException.class, (e, ctx) -> Responses.error(ctx, 503,
                    "a store cannot be read now (" + e.getMessage() + "); ask again shortly"));
            // Javalin's own 404 for a path no route takes, in the API's error form (an endpoint's 404 is JSON already).
            config.routes.error(404, ctx -> {
                String type = ctx.res().getContentType();
                if (type == null || !type.startsWith("application/json")) {
                    Responses.error(ctx, 404, noEndpoint(ctx));
                }
            });
            config.routes.exception(Exception.class, (e, ctx) -> {
                log.error("HTTP {} {} failed", ctx.method(), Quote.of(ctx.path()), e);
                Responses.error(ctx, 500, Quote.truncate(e.toString(), 300));
            });
        });
        app.start();
        log.info("HTTP API on http://{} (advertised as {}), {}", listen, advertised,
                token.isPresent() ? "bearer token required" : "no token: reads only");
        return new QueryServer(app, guard);
    }

    private static String noEndpoint(Context ctx) {
        return "no endpoint " + ctx.method() + " " + Quote.truncate(ctx.path(), 200);
    }

    public int port() {
        return app.port();
    }

    private static void authorize(Context ctx, Optional<String> token) {
        boolean read = ctx.method().name().equals("GET") || ctx.method().name().equals("HEAD");
        if (read && ConsoleEndpoints.isConsolePath(ctx.path())) {
            return; // the console's static files hold no data; what the page then asks for is checked as any request
        }
        if (token.isEmpty()) {
            if (!read) {
                throw HttpError.unauthorized(ctx.method() + " needs a token: start the scheduler with ax.http.token "
                        + "(--http-token) and send it as 'Authorization: Bearer <token>'");
            }
            return;
        }
        String given = ctx.header("Authorization");
        byte[] expected = ("Bearer " + token.get()).getBytes(StandardCharsets.UTF_8);
        if (given == null || !MessageDigest.isEqual(expected, given.getBytes(StandardCharsets.UTF_8))) {
            throw HttpError.unauthorized(given == null ? "missing 'Authorization: Bearer <token>'" : "wrong token");
        }
    }

    @Override
    public void close() {
        app.stop();
        guard.close();
    }
}
