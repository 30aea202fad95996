package io.ax.app.broker;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real, single-node Apache Kafka broker running inside this JVM, for the demo, local development and
 * integration tests. In production, {@code bootstrap.servers} points at a real cluster instead.
 *
 * <p>It is the broker from the official Kafka artifacts ({@code kafka_2.13}, {@code kafka-server}) in KRaft
 * mode: one node that is both broker and controller ({@code process.roles=broker,controller}), listening on
 * the loopback interface only. Internal topics use replication factor 1 so that transactions and
 * exactly-once processing work on a single node. Automatic topic creation is off: create topics explicitly.
 *
 * <p>No JVM shutdown hook is registered; callers that need one add it themselves.
 */
public final class EmbeddedKafkaBroker implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedKafkaBroker.class);

    private static final String HOST = "127.0.0.1";
    private static final int NODE_ID = 1;
    private static final long READY_TIMEOUT_MS = 60_000;
    private static final int READY_ATTEMPT_TIMEOUT_MS = 5_000;
    private static final String SASL_SSL_PREFIX = "listener.name.sasl_ssl.";

    /**
     * How to start the broker.
     *
     * @param port              client (PLAINTEXT) port; 0 picks a free one
     * @param controllerPort    KRaft controller port; 0 picks a free one
     * @param logDir            data directory; {@code null} means a fresh temporary directory deleted on close.
     *                          A directory formatted by an earlier run is reused with its cluster id and data.
     * @param defaultPartitions {@code num.partitions} for topics created without an explicit count
     * @param properties        extra broker properties, applied last (they override the defaults here)
     */
    public record Options(int port, int controllerPort, Path logDir, int defaultPartitions,
                          Map<String, String> properties) {

        public Options {
            checkPort(port);
            checkPort(controllerPort);
            if (defaultPartitions < 1) {
                throw new IllegalArgumentException("defaultPartitions must be >= 1, was " + defaultPartitions);
            }
            properties = Map.copyOf(properties);
        }

        public static Options defaults() {
            return new Options(0, 0, null, 3, Map.of());
        }

        public Options withPort(int port) {
            return new Options(port, controllerPort, logDir, defaultPartitions, properties);
        }

        public Options withControllerPort(int controllerPort) {
            return new Options(port, controllerPort, logDir, defaultPartitions, properties);
        }

        public Options withLogDir(Path logDir) {
            return new Options(port, controllerPort, logDir, defaultPartitions, properties);
        }

        public Options withDefaultPartitions(int defaultPartitions) {
            return new Options(port, controllerPort, logDir, defaultPartitions, properties);
        }

        public Options withProperty(String key, String value) {
            Map<String, String> copy = new HashMap<>(properties);
            copy.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
            return new Options(port, controllerPort, logDir, defaultPartitions, copy);
        }

        /**
         * Adds a second client listener, {@code SASL_SSL} on a free loopback port ({@link #saslSslBootstrapServers()}),
         * taking SCRAM-SHA-256 and SCRAM-SHA-512 over TLS, for testing secured clients. The PLAINTEXT listener stays,
         * and the controller and inter-broker traffic keep to PLAINTEXT on loopback. There are no users at first:
         * create them with {@code Admin.alterUserScramCredentials} over the PLAINTEXT listener. No authorizer: an
         * authenticated user may do anything.
         *
         * @param keystore         a PKCS12 keystore with the broker's key and a certificate valid for 127.0.0.1
         * @param keystorePassword its password (also the key's)
         */
        public Options withSaslSslListener(Path keystore, String keystorePassword) {
            String scramLogin = "org.apache.kafka.common.security.scram.ScramLoginModule required;";
            return withProperty(SASL_SSL_PREFIX + "ssl.keystore.location", keystore.toAbsolutePath().toString())
                    .withProperty(SASL_SSL_PREFIX + "ssl.keystore.password", keystorePassword)
                    .withProperty(SASL_SSL_PREFIX + "ssl.keystore.type", "PKCS12")
                    .withProperty(SASL_SSL_PREFIX + "sasl.enabled.mechanisms", "SCRAM-SHA-256,SCRAM-SHA-512")
                    .withProperty(SASL_SSL_PREFIX + "scram-sha-256.sasl.jaas.config", scramLogin)
                    .withProperty(SASL_SSL_PREFIX + "scram-sha-512.sasl.jaas.config", scramLogin);
        }

        private boolean hasSaslSslListener() {
            return properties.containsKey(SASL_SSL_PREFIX + "ssl.keystore.location");
        }

        private static void checkPort(int port) {
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("port out of range: " + port);
            }
        }
    }

    private final KafkaRaftServer server;
    private final String bootstrapServers;
    private final String saslSslBootstrapServers;
    private final Path logDir;
    private final boolean ownsLogDir;
    private final AtomicBoolean closed = new AtomicBoolean();

    private EmbeddedKafkaBroker(KafkaRaftServer server, String bootstrapServers, String saslSslBootstrapServers,
                                Path logDir, boolean ownsLogDir) {
        this.server = server;
        this.bootstrapServers = bootstrapServers;
        this.saslSslBootstrapServers = saslSslBootstrapServers;
        this.logDir = logDir;
        this.ownsLogDir = ownsLogDir;
    }

    /**
     * Formats the log directory if needed, starts the broker and returns once it accepts requests.
     *
     * @throws IllegalStateException if the broker is not ready within 60 seconds
     * @throws RuntimeException       if it cannot start (for example its port or log dir is in use); whatever was
     *                                started is stopped again and a temporary log dir deleted
     */
    public static EmbeddedKafkaBroker start(Options options) {
        long startMs = Time.SYSTEM.milliseconds();
        boolean ownsLogDir = options.logDir() == null;
        Path logDir = null;
        KafkaRaftServer server = null;
        try {
            logDir = ownsLogDir ? Files.createTempDirectory("ax-kafka-") : Files.createDirectories(options.logDir());
            int port;
            int controllerPort;
            // Both probe sockets stay open together so the two picks cannot be the same port.
            try (ServerSocket probe1 = bindLoopback(); ServerSocket probe2 = bindLoopback()) {
                port = options.port() == 0 ? probe1.getLocalPort() : options.port();
                controllerPort = options.controllerPort() == 0 ? probe2.getLocalPort() : options.controllerPort();
            }
            Properties props = brokerProperties(options, logDir, port, controllerPort);
            String saslSslBootstrapServers = null;
            if (options.hasSaslSslListener()) {
                int saslSslPort;
                do { // the two ports above are free again by now: never pick one of them
                    try (ServerSocket probe = bindLoopback()) {
                        saslSslPort = probe.getLocalPort();
                    }
                } while (saslSslPort == port || saslSslPort == controllerPort);
                addSaslSslListener(props, saslSslPort);
                saslSslBootstrapServers = HOST + ":" + saslSslPort;
            }

            format(props, logDir);
            server = new KafkaRaftServer(KafkaConfig.fromProps(props, false), Time.SYSTEM);
            server.startup();

            String bootstrapServers = HOST + ":" + port;
            awaitReady(bootstrapServers, startMs + READY_TIMEOUT_MS);
            log.info("Kafka broker ready at {} in {} ms (log dir {})",
                    bootstrapServers, Time.SYSTEM.milliseconds() - startMs, logDir);
            return new EmbeddedKafkaBroker(server, bootstrapServers, saslSslBootstrapServers, logDir, ownsLogDir);
        } catch (Exception e) { // Scala code may throw checked exceptions undeclared
            try {
                cleanUp(server, ownsLogDir ? logDir : null);
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e instanceof RuntimeException re ? re
                    : new IllegalStateException("Could not start the embedded Kafka broker: " + e, e);
        }
    }

    /** The address clients connect to, {@code 127.0.0.1:PORT}. */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    /**
     * The address of the SASL_SSL listener, {@code 127.0.0.1:PORT}.
     *
     * @throws IllegalStateException when the broker was started without {@link Options#withSaslSslListener}
     */
    public String saslSslBootstrapServers() {
        if (saslSslBootstrapServers == null) {
            throw new IllegalStateException("this broker has no SASL_SSL listener: start it with Options.withSaslSslListener");
        }
        return saslSslBootstrapServers;
    }

    /** The broker's data directory. */
    public Path logDir() {
        return logDir;
    }

    /** Stops the broker and waits for it; deletes the log directory if it was a temporary one. Idempotent. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            long startMs = Time.SYSTEM.milliseconds();
            cleanUp(server, ownsLogDir ? logDir : null);
            log.info("Kafka broker at {} stopped in {} ms", bootstrapServers, Time.SYSTEM.milliseconds() - startMs);
        }
    }

    private static Properties brokerProperties(Options options, Path logDir, int port, int controllerPort) {
        Properties p = new Properties();
        p.put("process.roles", "broker,controller");
        p.put("node.id", String.valueOf(NODE_ID));
        p.put("controller.quorum.voters", NODE_ID + "@" + HOST + ":" + controllerPort);
        p.put("listeners", "PLAINTEXT://" + HOST + ":" + port + ",CONTROLLER://" + HOST + ":" + controllerPort);
        p.put("advertised.listeners", "PLAINTEXT://" + HOST + ":" + port);
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.put("controller.listener.names", "CONTROLLER");
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("log.dirs", logDir.toAbsolutePath().toString());
        p.put("num.partitions", String.valueOf(options.defaultPartitions()));
        p.put("auto.create.topics.enable", "false");
        // One node: internal topics must not ask for more replicas than exist, or transactions
        // (and so exactly-once) and consumer groups cannot start.
        p.put("offsets.topic.replication.factor", "1");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("share.coordinator.state.topic.replication.factor", "1");
        p.put("share.coordinator.state.topic.min.isr", "1");
        // Nobody else is going to join: do not hold the first rebalance back (defaults are 3 s).
        p.put("group.initial.rebalance.delay.ms", "0");
        p.put("group.streams.initial.rebalance.delay.ms", "0");
        // A client killed mid-transaction blocks read_committed readers of what it wrote until its transaction is
        // aborted: check for timed-out transactions every second, not every 10 s (failover: topology-docs/OPERATIONS.md).
        p.put("transaction.abort.timed.out.transaction.cleanup.interval.ms", "1000");
        p.putAll(options.properties());
        return p;
    }

    /** Appends the SASL_SSL listener to the listeners; its settings are already among the properties. */
    private static void addSaslSslListener(Properties p, int port) {
        p.put("listeners", p.getProperty("listeners") + ",SASL_SSL://" + HOST + ":" + port);
        p.put("advertised.listeners", p.getProperty("advertised.listeners") + ",SASL_SSL://" + HOST + ":" + port);
        p.put("listener.security.protocol.map", p.getProperty("listener.security.protocol.map") + ",SASL_SSL:SASL_SSL");
    }

    /** Writes meta.properties and the bootstrap metadata unless the directory was formatted before. */
    private static void format(Properties props, Path logDir) throws IOException {
        Path configFile = Files.createTempFile("ax-kafka-", ".properties");
        try {
            try (OutputStream out = Files.newOutputStream(configFile)) {
                props.store(out, "ax embedded broker");
            }
            ByteArrayOutputStream output = new ByteArrayOutputStream();
            int rc;
            try (PrintStream printStream = new PrintStream(output, true, StandardCharsets.UTF_8)) {
                rc = StorageTool.execute(new String[] {"format", "-t", clusterId(logDir),
                        "-c", configFile.toString(), "--ignore-formatted"}, printStream);
            }
            String text = output.toString(StandardCharsets.UTF_8).trim();
            if (rc != 0) {
                throw new IllegalStateException("Formatting Kafka log dir " + logDir + " failed (" + rc + "): " + text);
            }
            log.debug("kafka-storage format: {}", text);
        } finally {
            Files.deleteIfExists(configFile);
        }
    }

    /** The cluster id recorded by an earlier format of this directory, or a new one. */
    private static String clusterId(Path logDir) throws IOException {
        Path metaProperties = logDir.resolve("meta.properties");
        if (Files.exists(metaProperties)) {
            Properties meta = new Properties();
            try (InputStream in = Files.newInputStream(metaProperties)) {
                meta.load(in);
            }
            String existing = meta.getProperty("cluster.id");
            if (existing != null && !existing.isBlank()) {
                return existing;
            }
        }
        return Uuid.randomUuid().toString();
    }

    /**
     * Waits until the broker answers DescribeCluster listing itself: a broker only reports live (unfenced)
     * brokers, so this also means topics can be created.
     */
    private static void awaitReady(String bootstrapServers, long deadlineMs) {
        Map<String, Object> config = Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500);
        Exception last = null;
        try (Admin admin = Admin.create(config)) {
            while (Time.SYSTEM.milliseconds() < deadlineMs) {
                try {
                    var nodes = admin.describeCluster(new DescribeClusterOptions().timeoutMs(READY_ATTEMPT_TIMEOUT_MS))
                            .nodes().get();
                    if (nodes.stream().map(Node::id).anyMatch(id -> id == NODE_ID)) {
                        return;
                    }
                } catch (ExecutionException e) {
                    last = e;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("Interrupted while waiting for the embedded Kafka broker", e);
                }
                Time.SYSTEM.sleep(100);
            }
        }
        throw new IllegalStateException("Embedded Kafka broker at " + bootstrapServers + " did not become ready within "
                + READY_TIMEOUT_MS / 1000 + " s", last == null ? null : last.getCause());
    }

    /** Stops {@code server} (if any) and deletes {@code dirToDelete} (if any); the cluster's nodes stop the same way. */
    static void cleanUp(KafkaRaftServer server, Path dirToDelete) {
        try {
            if (server != null) {
                server.shutdown();
                server.awaitShutdown();
            }
        } finally {
            if (dirToDelete != null) {
                try {
                    Utils.delete(dirToDelete.toFile());
                } catch (IOException e) {
                    log.warn("Could not delete Kafka log dir {}", dirToDelete, e);
                }
            }
        }
    }

    /** A socket on a free loopback port, picked by the OS. */
    private static ServerSocket bindLoopback() throws IOException {
        return new ServerSocket(0, 1, InetAddress.getByName(HOST));
    }
}
