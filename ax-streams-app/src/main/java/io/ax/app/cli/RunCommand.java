package io.ax.app.cli;

import io.ax.app.AxScheduler;
import io.ax.app.config.AxConfig;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ax run}: the scheduler against any Kafka cluster. */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = "Run the scheduler against a Kafka cluster until stopped. Settings: topology-docs/CONFIG.md.")
public final class RunCommand implements Callable<Integer> {
    @Option(names = "--bootstrap", required = true, description = "Kafka bootstrap servers, host:port[,host:port].")
    String bootstrap;

    @Option(names = "--instance", description = "This instance's name (default: default): its own state directory "
            + "${java.io.tmpdir}/ax-state/<application.id>/<name>. Give each instance on one host its own.")
    String instance;

    @Option(names = "--config", description = "A .properties file of ax settings (ax.*, streams.*).")
    Path configFile;

    @Option(names = {"-D", "--set"}, description = "One setting, key=value (wins over --config).")
    Map<String, String> overrides = new HashMap<>();

    @Override
    public Integer call() throws Exception {
        Map<String, Object> props = new HashMap<>();
        if (configFile != null) {
            props.putAll(load(configFile));
        }
        props.putAll(overrides);
        props.put(AxConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        if (instance != null) {
            props.put(AxConfig.INSTANCE_NAME_CONFIG, instance);
        }
        AxConfig config = new AxConfig(props);
        AxScheduler scheduler = AxScheduler.start(config).awaitRunning(Duration.ofMinutes(5));
        System.out.println("ax scheduler running against " + bootstrap + ", topics " + config.topics().prefix() + "*, state in "
                + config.stateDir() + ". Ctrl-C stops it.");
        Shutdown.hookClose(scheduler);
        if (scheduler.awaitStop()) {
            System.err.println("ax scheduler stopped in ERROR (see the log above); exiting");
            return 1;
        }
        return 0;
    }

    private static Map<String, Object> load(Path file) throws IOException {
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file)) {
            properties.load(reader);
        }
        Map<String, Object> map = new HashMap<>();
        properties.forEach((k, v) -> map.put(k.toString(), v));
        return map;
    }
}
