package io.ax.app.broker;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real multi-node Kafka cluster (KRaft) on the loopback interface, for {@code ./ax broker --brokers 3} and for
 * chaos tests that kill one broker. Every node is <b>both broker and controller</b> and the controllers form one
 * static quorum of all nodes: with 3 nodes, any one can die (kill -9) and the other two keep both a controller
 * majority and an in-sync majority of every partition. (Three brokers behind one separate controller would leave
 * that controller a single point of failure, and the nodes would not be alike to kill.)
 *
 * <p>Durability as in production: {@code default.replication.factor} and the internal topics' (consumer offsets,
 * transaction state, share-group state) replication factor are min(3, nodes), and {@code min.insync.replicas} and
 * the transaction log's min ISR are 2 from 3 nodes on, so an acks=all write (exactly-once among them) survives
 * the loss of one node.
 *
 * <p>The nodes can run together in this JVM ({@link #start}) or each in its own process ({@link #startNode}, as
 * {@code ax broker --brokers 3 --node-id 2}), so that one node can be killed on its own. Every node of a cluster is
 * given the same {@link Layout} (all ports are fixed in advance) and its own data directory; the cluster id is
 * derived from the layout, so nodes formatted apart agree on it. A directory formatted before is reused with its
 * data. No JVM shutdown hook is registered.
 */
public final class EmbeddedKafkaCluster implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(EmbeddedKafkaCluster.class);

    private static final String HOST = "127.0.0.1";
    private static final long READY_TIMEOUT_MS = 120_000;
    private static final int READY_ATTEMPT_TIMEOUT_MS = 5_000;
    /** How long a broker waits for its controlled shutdown to be approved when the cluster is closed (Kafka's: 5 min). */
    static final java.time.Duration BROKER_SHUTDOWN_TIMEOUT = java.time.Duration.ofSeconds(20);

    /**
     * The ports of every node: node {@code i} (1-based) listens for clients on {@code clientPorts[i-1]} and for the
     * controller quorum on {@code controllerPorts[i-1]}.
     */
    public record Layout(List<Integer> clientPorts, List<Integer> controllerPorts) {
        public Layout {
            clientPorts = List.copyOf(clientPorts);
            controllerPorts = List.copyOf(controllerPorts);
            if (clientPorts.isEmpty() || clientPorts.size() != controllerPorts.size()) {
                throw new IllegalArgumentException("one client and one controller port per node: " + clientPorts + " / "
                        + controllerPorts);
            }
            List<Integer> all = new ArrayList<>(clientPorts);
            all.addAll(controllerPorts);
            if (all.stream().anyMatch(p -> p < 1 || p > 65_535) || Set.copyOf(all).size() != all.size()) {
                throw new IllegalArgumentException("ports must be distinct, 1-65535: " + all);
            }
        }

        /** {@code nodes} nodes on consecutive ports: clients on {@code basePort ..}, controllers right after them. */
        public static Layout contiguous(int nodes, int basePort) {
            if (nodes < 1) {
                throw new IllegalArgumentException("nodes must be >= 1: " + nodes);
            }
            return new Layout(IntStream.range(0, nodes).mapToObj(i -> basePort + i).toList(),
                    IntStream.range(0, nodes).mapToObj(i -> basePort + nodes + i).toList());
        }

        /** {@link #contiguous} on a block of 2 x nodes ports that are free now (a random block, checked by binding). */
        public static Layout freeContiguous(int nodes) throws IOException {
            for (int attempt = 0; attempt < 100; attempt++) {
                int base = ThreadLocalRandom.current().nextInt(20_000, 60_000);
                if (allFree(base, 2 * nodes)) {
                    return contiguous(nodes, base);
                }
            }
            throw new IOException("no block of " + 2 * nodes + " free loopback ports found");
        }

        public int nodes() {
            return clientPorts.size();
        }

        /** {@code 127.0.0.1:p1,127.0.0.1:p2,...}. */
        public String bootstrapServers() {
            return clientPorts.stream().map(p -> HOST + ":" + p).collect(Collectors.joining(","));
        }

        /** The client address of node {@code nodeId}. */
        public String bootstrapServers(int nodeId) {
            return HOST + ":" + clientPorts.get(index(nodeId));
        }

        String quorumVoters() {
            return IntStream.rangeClosed(1, nodes()).mapToObj(id -> id + "@" + HOST + ":" + controllerPorts.get(id - 1))
                    .collect(Collectors.joining(","));
        }

        /**
         * Every node of one layout derives the same cluster id. Never one that starts with '-' (base64url may): the
         * storage tool's argument parser takes it for an option and refuses to format (1 layout in 64 failed so).
         */
        String clusterId() {
            String seed = "ax-cluster " + clientPorts + " " + controllerPorts;
            for (int salt = 0; ; salt++) {
                UUID uuid = UUID.nameUUIDFromBytes((salt == 0 ? seed : seed + " " + salt).getBytes(StandardCharsets.UTF_8));
                String id = new Uuid(uuid.getMostSignificantBits(), uuid.getLeastSignificantBits()).toString();
                if (!id.startsWith("-")) {
                    return id;
                }
            }
        }

        int index(int nodeId) {
            if (nodeId < 1 || nodeId > nodes()) {
                throw new IllegalArgumentException("nodeId must be 1.." + nodes() + ": " + nodeId);
            }
            return nodeId - 1;
        }

        private static boolean allFree(int base, int count) {
            List<ServerSocket> probes = new ArrayList<>();
            try {
                for (int port = base; port < base + count; port++) {
                    probes.add(new ServerSocket(port, 1, InetAddress.getByName(HOST)));
                }
                return true;
            } catch (IOException e) {
                return false;
            } finally {
                for (ServerSocket probe : probes) {
                    try {
                        probe.close();
                    } catch (IOException ignored) {
                        // a probe that does not close is a port we never used
                    }
                }
            }
        }
    }

    /** One running node of a cluster. */
    public static final class NodeHandle implements AutoCloseable {
        private final int nodeId;
        private final KafkaRaftServer server;
        private final Path dir;
        private final boolean ownsDir;
        private final AtomicBoolean closed = new AtomicBoolean();

        private NodeHandle(int nodeId, KafkaRaftServer server, Path dir, boolean ownsDir) {
            this.nodeId = nodeId;
            this.server = server;
            this.dir = dir;
            this.ownsDir = ownsDir;
        }

        public int nodeId() {
            return nodeId;
        }

        public Path dir() {
            return dir;
        }

        /**
         * Stops this node's broker alone (its controller keeps serving the quorum), waiting at most {@code timeout}
         * for the controlled shutdown, then for the broker's threads. A node's {@link KafkaRaftServer} keeps its
         * broker private: it is reached by reflection, and if that ever fails (another Kafka version) the node is
         * left for {@link #close()}, which stops broker and controller as Kafka does. Idempotent.
         */
        void stopBroker(java.time.Duration timeout) {
            if (closed.get()) {
                return;
            }
            kafka.server.BrokerServer broker = brokerOf(server);
            if (broker != null) {
                broker.shutdown(timeout);
                broker.awaitShutdown();
            }
        }

        private static kafka.server.BrokerServer brokerOf(KafkaRaftServer server) {
            try {
                java.lang.reflect.Method method = KafkaRaftServer.class.getDeclaredMethod("broker");
                method.setAccessible(true);
                Object option = method.invoke(server);
                if (option instanceof scala.Option<?> some && some.isDefined() && some.get() instanceof kafka.server.BrokerServer b) {
                    return b;
                }
            } catch (ReflectiveOperationException | RuntimeException e) {
                log.warn("Could not reach the broker of a Kafka node to stop it before its controller ({}); stopping the"
                        + " node whole", e.toString());
            }
            return null;
        }

        /** Stops the node and waits for it; deletes its directory if it was a temporary one. Idempotent. */
        @Override
        public void close() {
            if (closed.compareAndSet(false, true)) {
                stop(server, ownsDir ? dir : null);
            }
        }
    }

    private final Layout layout;
    private final List<NodeHandle> nodes;

    private EmbeddedKafkaCluster(Layout layout, List<NodeHandle> nodes) {
        this.layout = layout;
        this.nodes = nodes;
    }

    /**
     * Starts every node of {@code layout} in this JVM (together: a node's broker waits for a controller majority)
     * and returns once each broker sees all of them.
     *
     * @param dir               node {@code i} keeps its data in {@code dir/node-i}; {@code null}: temporary
     *                          directories, deleted on close
     * @param defaultPartitions {@code num.partitions} of topics created without a count
     */
    public static EmbeddedKafkaCluster start(Layout layout, Path dir, int defaultPartitions) {
        List<NodeHandle> started = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        List<RuntimeException> failures = new ArrayList<>();
        for (int id = 1; id <= layout.nodes(); id++) {
            int nodeId = id;
            Thread thread = new Thread(() -> {
                try {
                    NodeHandle node = startNode(layout, nodeId, dir == null ? null : dir.resolve("node-" + nodeId),
                            defaultPartitions);
                    synchronized (started) {
                        started.add(node);
                    }
                } catch (RuntimeException e) {
                    synchronized (failures) {
                        failures.add(e);
                    }
                }
            }, "ax-kafka-node-" + nodeId + "-start");
            thread.start();
            threads.add(thread);
        }
        try {
            for (Thread thread : threads) {
                thread.join();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failures.add(new IllegalStateException("interrupted while starting the cluster", e));
        }
        if (!failures.isEmpty()) {
            started.forEach(NodeHandle::close);
            RuntimeException first = failures.get(0);
            failures.stream().skip(1).forEach(first::addSuppressed);
            throw first;
        }
        started.sort((a, b) -> Integer.compare(a.nodeId(), b.nodeId()));
        return new EmbeddedKafkaCluster(layout, List.copyOf(started));
    }

    /**
     * Formats {@code dir} if needed and starts node {@code nodeId} of {@code layout}; returns once the node is an
     * unfenced broker of the cluster (which needs a controller majority: start the others too).
     *
     * @param dir the node's data directory; {@code null}: a temporary one, deleted on close
     * @throws IllegalStateException if it is not ready within 120 s (it is stopped then)
     */
    public static NodeHandle startNode(Layout layout, int nodeId, Path dir, int defaultPartitions) {
        layout.index(nodeId);
        if (defaultPartitions < 1) {
            throw new IllegalArgumentException("defaultPartitions must be >= 1: " + defaultPartitions);
        }
        long startMs = Time.SYSTEM.milliseconds();
        boolean ownsDir = dir == null;
        Path logDir = null;
        KafkaRaftServer server = null;
        try {
            logDir = ownsDir ? Files.createTempDirectory("ax-kafka-node-" + nodeId + "-") : Files.createDirectories(dir);
            Properties props = nodeProperties(layout, nodeId, logDir, defaultPartitions);
            format(props, layout.clusterId(), logDir);
            server = new KafkaRaftServer(KafkaConfig.fromProps(props, false), Time.SYSTEM);
            server.startup();
            awaitBrokers(layout.bootstrapServers(nodeId), Set.of(nodeId), startMs + READY_TIMEOUT_MS);
            log.info("Kafka node {} of {} ready at {} in {} ms (log dir {})", nodeId, layout.nodes(),
                    layout.bootstrapServers(nodeId), Time.SYSTEM.milliseconds() - startMs, logDir);
            return new NodeHandle(nodeId, server, logDir, ownsDir);
        } catch (Exception e) { // Scala code may throw checked exceptions undeclared
            try {
                stop(server, ownsDir ? logDir : null);
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e instanceof RuntimeException re ? re
                    : new IllegalStateException("Could not start Kafka node " + nodeId + ": " + e, e);
        }
    }

    /** Waits until a broker reachable through {@code bootstrapServers} lists every node of {@code layout} as live. */
    public static void awaitAllBrokers(Layout layout, long timeoutMs) {
        Set<Integer> all = IntStream.rangeClosed(1, layout.nodes()).boxed().collect(Collectors.toSet());
        awaitBrokers(layout.bootstrapServers(), all, Time.SYSTEM.milliseconds() + timeoutMs);
    }

    public String bootstrapServers() {
        return layout.bootstrapServers();
    }

    public Layout layout() {
        return layout;
    }

    /**
     * Stops every node, bounded and in order: first every node's broker (together, each waiting at most
     * {@link #BROKER_SHUTDOWN_TIMEOUT} for the controllers to approve its controlled shutdown), then every node's
     * controller and the rest (together). Stopped whole, node by node or all at once, a node's broker could wait for
     * the approval of a controller quorum that the nodes stopped before it no longer formed: five minutes (Kafka's
     * bound, "Timed out waiting for the controller to approve controlled shutdown", heartbeats failing with "No
     * controller appears to be active"); CI saw a close take 309 s so. Idempotent.
     */
    @Override
    public void close() {
        inParallel("broker-stop", node -> node.stopBroker(BROKER_SHUTDOWN_TIMEOUT));
        inParallel("stop", NodeHandle::close);
    }

    /** Runs {@code action} on every node, each in its own thread, and waits for all; the first failure is thrown. */
    private void inParallel(String what, java.util.function.Consumer<NodeHandle> action) {
        List<Thread> threads = new ArrayList<>();
        List<RuntimeException> failures = new ArrayList<>();
        for (NodeHandle node : nodes) {
            Thread thread = new Thread(() -> {
                try {
                    action.accept(node);
                } catch (RuntimeException e) {
                    synchronized (failures) {
                        failures.add(e);
                    }
                }
            }, "ax-kafka-node-" + node.nodeId() + "-" + what);
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (!failures.isEmpty()) {
            RuntimeException first = failures.get(0);
            failures.stream().skip(1).forEach(first::addSuppressed);
            throw first;
        }
    }

    // visible for testing
    static Properties nodeProperties(Layout layout, int nodeId, Path logDir, int defaultPartitions) {
        int replicas = Math.min(3, layout.nodes());
        int minIsr = replicas >= 3 ? 2 : 1;
        int index = layout.index(nodeId);
        Properties p = new Properties();
        p.put("process.roles", "broker,controller");
        p.put("node.id", String.valueOf(nodeId));
        p.put("controller.quorum.voters", layout.quorumVoters());
        p.put("listeners", "PLAINTEXT://" + HOST + ":" + layout.clientPorts().get(index)
                + ",CONTROLLER://" + HOST + ":" + layout.controllerPorts().get(index));
        p.put("advertised.listeners", "PLAINTEXT://" + HOST + ":" + layout.clientPorts().get(index));
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.put("controller.listener.names", "CONTROLLER");
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("log.dirs", logDir.toAbsolutePath().toString());
        p.put("num.partitions", String.valueOf(defaultPartitions));
        p.put("auto.create.topics.enable", "false");
        p.put("default.replication.factor", String.valueOf(replicas));
        p.put("min.insync.replicas", String.valueOf(minIsr));
        p.put("offsets.topic.replication.factor", String.valueOf(replicas));
        p.put("transaction.state.log.replication.factor", String.valueOf(replicas));
        p.put("transaction.state.log.min.isr", String.valueOf(minIsr));
        p.put("share.coordinator.state.topic.replication.factor", String.valueOf(replicas));
        p.put("share.coordinator.state.topic.min.isr", String.valueOf(minIsr));
        p.put("group.initial.rebalance.delay.ms", "0");
        p.put("group.streams.initial.rebalance.delay.ms", "0");
        // As for the single broker: abort the open transaction of a killed client within a second of its timeout.
        p.put("transaction.abort.timed.out.transaction.cleanup.interval.ms", "1000");
        return p;
    }

    /**
     * Formats one node's log dir. Serialized across the JVM: the nodes start in parallel, and concurrent
     * {@code StorageTool.execute} calls were seen failing with exit code 1 and no output (once in the first runs; most
     * likely the cluster id starting with '-' that {@link Layout#clusterId} now avoids: the tool prints that refusal to
     * stderr, not to the stream given here).
     */
    private static synchronized void format(Properties props, String clusterId, Path logDir) throws IOException {
        Path configFile = Files.createTempFile("ax-kafka-node-", ".properties");
        try {
            try (OutputStream out = Files.newOutputStream(configFile)) {
                props.store(out, "ax embedded cluster node");
            }
            ByteArrayOutputStream output = new ByteArrayOutputStream();
            int rc;
            try (PrintStream printStream = new PrintStream(output, true, StandardCharsets.UTF_8)) {
                rc = StorageTool.execute(new String[] {"format", "-t", clusterId, "-c", configFile.toString(),
                        "--ignore-formatted"}, printStream);
            }
            if (rc != 0) {
                throw new IllegalStateException("Formatting Kafka log dir " + logDir + " failed (" + rc + "): "
                        + output.toString(StandardCharsets.UTF_8).trim());
            }
        } finally {
            Files.deleteIfExists(configFile);
        }
    }

    /** Waits until DescribeCluster through {@code bootstrapServers} lists every id of {@code nodeIds} (live, unfenced). */
    private static void awaitBrokers(String bootstrapServers, Set<Integer> nodeIds, long deadlineMs) {
        Map<String, Object> config = Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500);
        Exception last = null;
        try (Admin admin = Admin.create(config)) {
            while (Time.SYSTEM.milliseconds() < deadlineMs) {
                try {
                    Set<Integer> live = admin.describeCluster(new DescribeClusterOptions().timeoutMs(READY_ATTEMPT_TIMEOUT_MS))
                            .nodes().get().stream().map(Node::id).collect(Collectors.toSet());
                    if (live.containsAll(nodeIds)) {
                        return;
                    }
                } catch (ExecutionException e) {
                    last = e;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("Interrupted while waiting for Kafka at " + bootstrapServers, e);
                }
                Time.SYSTEM.sleep(100);
            }
        }
        throw new IllegalStateException("Kafka brokers " + nodeIds + " not live at " + bootstrapServers + " within "
                + READY_TIMEOUT_MS / 1000 + " s", last == null ? null : last.getCause());
    }

    private static void stop(KafkaRaftServer server, Path dirToDelete) {
        EmbeddedKafkaBroker.cleanUp(server, dirToDelete);
    }
}
