package io.ax.app.bench;

import io.ax.app.broker.EmbeddedKafkaCluster;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The Kafka of a chaos run, every node a {@link ChildBroker} on its own data directory: one broker, or a cluster
 * of N nodes (each broker and controller, replication factor 3 and min.insync.replicas 2 from 3 nodes on).
 * {@link #bootstrap()} lists every node. Not thread-safe.
 */
final class ChaosBrokers implements AutoCloseable {
    private final List<ChildBroker> nodes;
    private final String bootstrap;

    private ChaosBrokers(List<ChildBroker> nodes, String bootstrap) {
        this.nodes = nodes;
        this.bootstrap = bootstrap;
    }

    /** Starts {@code count} nodes on free ports, data under {@code dir}, logs {@code broker-<i>.log} in {@code logDir}. */
    static ChaosBrokers start(int count, Path dir, Path logDir, int partitions, Clock clock) throws Exception {
        EmbeddedKafkaCluster.Layout layout = EmbeddedKafkaCluster.Layout.freeContiguous(count);
        int basePort = layout.clientPorts().get(0);
        if (count == 1) {
            ChildBroker single = ChildBroker.single(basePort, dir.resolve("node-1"), partitions, logDir.resolve("broker-1.log"), clock);
            return new ChaosBrokers(List.of(single), layout.bootstrapServers());
        }
        // A node is ready only once a majority of the controllers runs: start them together.
        ExecutorService starter = Executors.newFixedThreadPool(count);
        try {
            List<Future<ChildBroker>> starting = new ArrayList<>();
            for (int id = 1; id <= count; id++) {
                int nodeId = id;
                starting.add(starter.submit(() -> ChildBroker.node(count, nodeId, basePort, dir.resolve("node-" + nodeId),
                        partitions, logDir.resolve("broker-" + nodeId + ".log"), clock)));
            }
            List<ChildBroker> nodes = new ArrayList<>();
            Exception failure = null;
            for (Future<ChildBroker> future : starting) {
                try {
                    nodes.add(future.get());
                } catch (Exception e) {
                    failure = e;
                }
            }
            if (failure != null) {
                for (ChildBroker node : nodes) {
                    node.close();
                }
                throw failure;
            }
            EmbeddedKafkaCluster.awaitAllBrokers(layout, 120_000);
            return new ChaosBrokers(List.copyOf(nodes), layout.bootstrapServers());
        } finally {
            starter.shutdownNow();
        }
    }

    String bootstrap() {
        return bootstrap;
    }

    int count() {
        return nodes.size();
    }

    /** Node {@code nodeId} (1-based). */
    ChildBroker node(int nodeId) {
        return nodes.get(nodeId - 1);
    }

    /**
     * Stops every node: SIGTERM to all first, so that no node waits in its controlled shutdown for a controller
     * quorum the nodes stopped before it no longer form; then waits for each (SIGKILL after 30 s).
     */
    @Override
    public void close() throws InterruptedException {
        for (ChildBroker node : nodes) {
            node.terminate();
        }
        for (ChildBroker node : nodes) {
            node.close();
        }
    }

    /** Closes, ignoring failures (cleanup after a failed run). */
    void closeQuietly() {
        try {
            close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException ignored) {
            // cleanup only
        }
    }
}
