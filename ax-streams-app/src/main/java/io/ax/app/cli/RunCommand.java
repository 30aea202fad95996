package io.ax.app.cli;

import io.ax.app.AxScheduler;
import io.ax.app.config.AxConfig;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code ax run}: the scheduler against any Kafka cluster. */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = "Run the scheduler against a Kafka cluster until stopped. Settings: topology-docs/CONFIG.md; secured"
                + " clusters: the README.")
public final class RunCommand implements Callable<Integer> {
    @Mixin
    ConnectionOptions connection;

    @Option(names = "--instance", description = "This instance's name (default: default): its own state directory "
            + "${java.io.tmpdir}/ax-state/<application.id>/<name>. Give each instance on one host its own.")
    String instance;

    @Option(names = "--http", paramLabel = "[HOST:]PORT", description = "Serve the HTTP API here (ax.http.listen); a port "
            + "alone binds 127.0.0.1. Any other address needs --http-token.")
    String http;

    @Option(names = "--http-token", paramLabel = "TOKEN", description = "Bearer token of the HTTP API (ax.http.token): "
            + "required by every request when set, and by every POST. Visible to ps: prefer -D or --config for a real one.")
    String httpToken;

    @Override
    public Integer call() throws Exception {
        Map<String, Object> props = new HashMap<>(connection.settings(System.getenv()));
        if (instance != null) {
            props.put(AxConfig.INSTANCE_NAME_CONFIG, instance);
        }
        if (http != null) {
            props.put(AxConfig.HTTP_LISTEN_CONFIG, http);
        }
        if (httpToken != null) {
            props.put(AxConfig.HTTP_TOKEN_CONFIG, httpToken);
        }
        AxConfig config = new AxConfig(props);
        AxScheduler scheduler = AxScheduler.start(config).awaitRunning(Duration.ofMinutes(5));
        System.out.println("ax scheduler running against " + config.getString(AxConfig.BOOTSTRAP_SERVERS_CONFIG) + ", topics "
                + config.topics().prefix() + "*, state in " + config.stateDir() + ". Ctrl-C stops it.");
        config.httpListen().ifPresent(listen -> System.out.println("HTTP API on http://" + listen + "/tasks"));
        Shutdown.hookClose(scheduler);
        if (scheduler.awaitStop()) {
            System.err.println("ax scheduler stopped in ERROR (see the log above); exiting");
            return 1;
        }
        return 0;
    }
}
