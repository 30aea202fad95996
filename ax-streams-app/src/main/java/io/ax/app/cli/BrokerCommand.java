package io.ax.app.cli;

import io.ax.app.broker.BrokerWarmUp;
import io.ax.app.broker.EmbeddedKafkaBroker;
import io.ax.app.broker.EmbeddedKafkaCluster;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ax broker}: a real KRaft Kafka broker for local work, or with {@code --brokers N} a cluster of N nodes (each
 * broker and controller; clients on ports P..P+N-1, controllers on P+N..P+2N-1), all in this process or, with
 * {@code --node-id I}, only node I of it (start the other nodes as their own processes with the same
 * {@code --brokers} and {@code --port}), so that one node can be killed on its own.
 */
@Command(name = "broker", mixinStandardHelpOptions = true,
        description = {"Run a real Kafka broker (KRaft, embedded, loopback only) until stopped.",
                "--brokers 3: a 3-node cluster (each node broker and controller; replication factor 3, min.insync.replicas 2),",
                "clients on ports P..P+2, controllers on P+3..P+5; --node-id I runs only node I of it (one process per node)."})
public final class BrokerCommand implements Callable<Integer> {
    @Option(names = "--port", defaultValue = "9092", description = "Client port; of the first node with --brokers (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--dir", description = "Data directory, kept between runs (default: a temporary one, deleted on stop). "
            + "With --brokers, node I keeps its data in DIR/node-I.")
    Path dir;

    @Option(names = "--partitions", defaultValue = "6", description = "Default partitions of new topics (default: ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--brokers", defaultValue = "1", description = "Nodes of the cluster (default: ${DEFAULT-VALUE}: a single node).")
    int brokers;

    @Option(names = "--node-id", description = "With --brokers: run only this node (1..N) of the cluster in this process.")
    Integer nodeId;

    @Override
    public Integer call() throws Exception {
        if (brokers < 1) {
            throw new IllegalArgumentException("--brokers must be >= 1: " + brokers);
        }
        if (brokers == 1 && nodeId == null) {
            EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults()
                    .withPort(port).withLogDir(dir).withDefaultPartitions(partitions));
            // A new broker's transaction code is cold: a scheduler started on it fired its first tasks 0.2-0.5 s late.
            System.out.println("Kafka broker " + BrokerWarmUp.runAndTell(broker.bootstrapServers()));
            System.out.println("Kafka broker ready: bootstrap " + broker.bootstrapServers() + " (data in " + broker.logDir()
                    + "). Ctrl-C stops it.");
            Shutdown.awaitSignal(broker);
            return 0;
        }
        EmbeddedKafkaCluster.Layout layout = EmbeddedKafkaCluster.Layout.contiguous(brokers, port);
        if (nodeId != null) {
            EmbeddedKafkaCluster.NodeHandle node = EmbeddedKafkaCluster.startNode(layout, nodeId,
                    dir == null ? null : dir.resolve("node-" + nodeId), partitions);
            System.out.println("Kafka node " + nodeId + " of " + brokers + " ready: " + layout.bootstrapServers(nodeId)
                    + ", cluster bootstrap " + layout.bootstrapServers() + " (data in " + node.dir() + "). Ctrl-C stops it.");
            Shutdown.awaitSignal(node);
            return 0;
        }
        EmbeddedKafkaCluster cluster = EmbeddedKafkaCluster.start(layout, dir, partitions);
        System.out.println("Kafka cluster of " + brokers + " ready: bootstrap " + cluster.bootstrapServers()
                + " (controllers on " + layout.controllerPorts() + (dir == null ? "" : ", data in " + dir + "/node-*")
                + "). Ctrl-C stops it.");
        Shutdown.awaitSignal(cluster);
        return 0;
    }
}
