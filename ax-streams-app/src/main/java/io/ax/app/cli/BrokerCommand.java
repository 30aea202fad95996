package io.ax.app.cli;

import io.ax.app.broker.EmbeddedKafkaBroker;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ax broker}: a real single-node KRaft Kafka broker for local work. */
@Command(name = "broker", mixinStandardHelpOptions = true,
        description = "Run a real single-node Kafka broker (KRaft, embedded, loopback only) until stopped.")
public final class BrokerCommand implements Callable<Integer> {
    @Option(names = "--port", defaultValue = "9092", description = "Client port (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--dir", description = "Data directory, kept between runs (default: a temporary one, deleted on stop).")
    Path dir;

    @Option(names = "--partitions", defaultValue = "6", description = "Default partitions of new topics (default: ${DEFAULT-VALUE}).")
    int partitions;

    @Override
    public Integer call() throws Exception {
        EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults()
                .withPort(port).withLogDir(dir).withDefaultPartitions(partitions));
        System.out.println("Kafka broker ready: bootstrap " + broker.bootstrapServers() + " (data in " + broker.logDir()
                + "). Ctrl-C stops it.");
        Shutdown.awaitSignal(broker);
        return 0;
    }
}
