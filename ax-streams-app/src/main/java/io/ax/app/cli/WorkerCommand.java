package io.ax.app.cli;

import io.ax.app.config.AxConfig;
import io.ax.app.config.HttpAddress;
import io.ax.app.demo.DemoHandlers;
import io.ax.app.internal.worker.WorkerHttp;
import io.ax.worker.AxWorker;
import io.ax.worker.JobHandler;
import io.ax.worker.idempotency.InMemoryIdempotencyGuard;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code ax worker}: a worker process with the demo's handlers (or handlers made by {@code --handler}), its metrics and
 * health on {@code --http}. For trying ax out, the docker compose file and the metrics tests; a real worker is your own
 * program on {@link AxWorker}.
 */
@Command(name = "worker", mixinStandardHelpOptions = true,
        description = "Run a worker with the demo's handlers (email, sync: succeed; payment: fails twice, then succeeds; "
                + "report: fails for good) against a Kafka cluster until stopped; metrics and health on --http.")
public final class WorkerCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ConnectionOptions connection;

    @Option(names = "--group", defaultValue = "ax-workers", description = "Consumer group of the workers (default: ${DEFAULT-VALUE}).")
    String group;

    @Option(names = "--worker-id", description = "This worker's id, carried on its reports (default: host and process id).")
    String workerId;

    @Option(names = "--handler", paramLabel = "TYPE=BEHAVIOUR", description = "Add or replace the handler of job type TYPE:"
            + " succeed, fail (retryable), fatal or sleep:MILLIS. Repeatable.")
    List<String> handlerSpecs = new ArrayList<>();

    @Option(names = "--only", description = "Serve only the job types given with --handler, not the demo's.")
    boolean only;

    @Option(names = "--concurrency", defaultValue = "4", description = "Handlers of one job type running at once (default: ${DEFAULT-VALUE}).")
    int concurrency;

    @Option(names = "--heartbeat", paramLabel = "DURATION", converter = DurationConverter.class, defaultValue = "10s",
            description = "How often the worker announces itself on the workers topic (id, host, job types, lanes, executions"
                    + " in flight), for ./ax workers; silent for 3 of these, the scheduler declares it dead (default: ${DEFAULT-VALUE}).")
    java.time.Duration heartbeat;

    @Option(names = "--owner-weight", paramLabel = "OWNER=WEIGHT", description = "Weight of OWNER (1-1000, default 1) when"
            + " owners share a job type's lane: each waits its turn, OWNER getting WEIGHT starts for one of a weight-1 owner."
            + " Repeatable.")
    List<String> ownerWeightSpecs = new ArrayList<>();

    @Option(names = "--http", paramLabel = "[HOST:]PORT", description = "Serve GET /metrics and GET /health here; a port "
            + "alone binds 127.0.0.1. Any other address needs --http-token.")
    String http;

    @Option(names = "--http-token", paramLabel = "TOKEN", description = "Bearer token every HTTP request must carry.")
    String httpToken;

    @Override
    public Integer call() throws Exception {
        Map<String, String> settings = connection.settings(System.getenv());
        Map<String, JobHandler> handlers = only ? new java.util.LinkedHashMap<>() : DemoHandlers.defaults();
        for (String handlerSpec : handlerSpecs) {
            int eq = handlerSpec.indexOf('=');
            if (eq <= 0) {
                throw new ParameterException(spec.commandLine(), "--handler wants TYPE=BEHAVIOUR: '" + handlerSpec + "'");
            }
            try {
                handlers.put(handlerSpec.substring(0, eq), DemoHandlers.parse(handlerSpec.substring(eq + 1)));
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--handler " + handlerSpec + ": " + e.getMessage());
            }
        }
        if (handlers.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "--only without any --handler: no job type to serve");
        }
        if (concurrency < 1) {
            throw new ParameterException(spec.commandLine(), "--concurrency must be >= 1: " + concurrency);
        }
        HttpAddress listen = null;
        if (http != null) {
            try {
                listen = HttpAddress.parse(http);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--http: " + e.getMessage());
            }
            if (!listen.isLoopback() && httpToken == null) {
                throw new ParameterException(spec.commandLine(), "--http " + http + " listens beyond loopback: give --http-token");
            }
        }
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        AxConfig config = new AxConfig(settings);
        AxWorker.Builder builder = AxWorker.builder().connectionProperties(settings).topics(config.topics())
                .groupId(group).concurrency(concurrency).meterRegistry(registry).heartbeat(heartbeat);
        // The scheduler's ax.schema.registry.* settings: dispatches written with ax.output.format=registry decode here.
        config.registrySettings().ifPresent(builder::schemaRegistry);
        if (workerId != null) {
            builder.workerId(workerId);
        }
        for (String ownerWeight : ownerWeightSpecs) {
            int eq = ownerWeight.lastIndexOf('=');
            try {
                if (eq <= 0) {
                    throw new IllegalArgumentException("wants OWNER=WEIGHT");
                }
                builder.ownerWeight(ownerWeight.substring(0, eq), Integer.parseInt(ownerWeight.substring(eq + 1)));
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--owner-weight " + ownerWeight + ": " + e.getMessage());
            }
        }
        // A redelivered execution (after a rebalance or a restart) whose handler succeeded here is not run again.
        InMemoryIdempotencyGuard guard = new InMemoryIdempotencyGuard(100_000);
        Map<String, JobHandler> guarded = new java.util.LinkedHashMap<>();
        handlers.forEach((jobType, handler) -> guarded.put(jobType, guard.guard(handler)));
        AxWorker worker = DemoHandlers.register(builder, guarded).build();
        worker.start();
        WorkerHttp server = listen == null ? null : WorkerHttp.start(listen, Optional.ofNullable(httpToken), worker, registry);
        System.out.println("ax worker " + worker.workerId() + " running job types " + handlers.keySet() + " against "
                + settings.get("bootstrap.servers") + (server == null ? "" : "; metrics on http://" + listen + "/metrics")
                + ". Ctrl-C stops it.");
        if (server != null) {
            Shutdown.awaitSignal(server, worker);
        } else {
            Shutdown.awaitSignal(worker);
        }
        return 0;
    }
}
