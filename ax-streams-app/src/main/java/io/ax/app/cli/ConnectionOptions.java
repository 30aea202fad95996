package io.ax.app.cli;

import io.ax.KafkaConnection;
import io.ax.app.config.AxConfig;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The options every command that connects to Kafka shares: where the cluster is and how to log in to it, read by
 * {@link KafkaConnection} from the environment ({@code AX_KAFKA_*}), {@code --config FILE} and {@code -D key=value},
 * each winning over the one before, and {@code --bootstrap} over all.
 */
final class ConnectionOptions {
    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(names = "--bootstrap", description = "Kafka bootstrap servers, host:port[,host:port] (default: bootstrap.servers"
            + " from --config, -D or AX_KAFKA_BOOTSTRAP_SERVERS).")
    String bootstrap;

    @Option(names = "--config", description = "A .properties file: ax settings (ax.*, streams.*) and the Kafka connection"
            + " settings every client shares (bootstrap.servers, security.protocol, sasl.*, ssl.*). Environment variables"
            + " AX_KAFKA_<KEY> (e.g. AX_KAFKA_SASL_JAAS_CONFIG) give connection settings below the file.")
    Path configFile;

    @Option(names = {"-D", "--set"}, description = "One setting, key=value (wins over --config).")
    Map<String, String> overrides = new HashMap<>();

    /**
     * Every setting, merged; {@code bootstrap.servers} is always present.
     *
     * @throws ParameterException when no source names the bootstrap servers
     */
    Map<String, String> settings(Map<String, String> environment) {
        Map<String, String> settings = new HashMap<>(KafkaConnection.load(configFile, overrides, environment));
        if (bootstrap != null) {
            settings.put(AxConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        }
        String servers = settings.get(AxConfig.BOOTSTRAP_SERVERS_CONFIG);
        if (servers == null || servers.isBlank()) {
            throw new ParameterException(spec.commandLine(), "No Kafka bootstrap servers: give --bootstrap HOST:PORT, "
                    + "bootstrap.servers in --config or -D, or " + KafkaConnection.envName(AxConfig.BOOTSTRAP_SERVERS_CONFIG));
        }
        return settings;
    }
}
