package io.ax.app;

import io.ax.AxException;
import io.ax.app.config.AxConfig;
import io.ax.app.internal.health.HangingTransactions;
import io.ax.app.internal.health.StreamThreadFailures;
import io.ax.app.internal.timer.StreamThreads;
import io.ax.app.internal.metrics.SchedulerMetrics;
import io.ax.app.internal.query.QueryServer;
import io.ax.app.internal.setup.StateDirectory;
import io.ax.app.internal.setup.TopicSetup;
import io.ax.app.internal.query.HttpLimits;
import io.ax.app.internal.store.AxStores;
import io.ax.app.internal.topology.AxTopology;
import io.ax.app.internal.topology.SchedulerSettings;
import io.ax.app.internal.timer.AxClientSupplier;
import io.ax.client.internal.ProducerDefaults;
import io.ax.codec.AvroTrust;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running scheduler instance: checks or creates the topics, then runs {@link AxTopology} in Kafka
 * Streams. Run as many instances (same {@code application.id}) as partitions allow; Kafka Streams spreads the
 * partitions, their stores and their timers across them.
 */
public final class AxScheduler implements AutoCloseable {
    static {
        AvroTrust.ensureAxSchemasTrusted();
    }

    private static final Logger log = LoggerFactory.getLogger(AxScheduler.class);

    private final KafkaStreams streams;
    /** How often, and how long at most, the accept path is run on a sample before the first record ({@code ColdStart}). */
    private static final int COLD_START_ROUNDS = 500;
    private static final long COLD_START_BUDGET_MS = 200;
    private final SchedulerMetrics metrics;
    /** A stream thread that dies this often within the window stops the instance (see {@link StreamThreadFailures}). */
    private static final int MAX_THREAD_DEATHS = 3;
    private static final long THREAD_DEATH_WINDOW_MS = 10 * 60 * 1000;

    private final CountDownLatch running = new CountDownLatch(1);
    private final CountDownLatch stopped = new CountDownLatch(1);

    private final StateDirectory stateDirectory;
    private final Admin watchAdmin;
    private final HangingTransactions hangingTransactions;
    private final AxConfig config;
    private final int partitions;
    /** The HTTP API and the producer behind its POSTs, when {@code ax.http.listen} is set; null otherwise. */
    private QueryServer http;
    private Producer<String, byte[]> httpProducer;

    private AxScheduler(AxConfig config, int partitions, int flowPartitions, StateDirectory stateDirectory) {
        this.stateDirectory = stateDirectory;
        this.config = config;
        this.partitions = partitions;
        Properties props = config.streamsProperties();
        metrics = new SchedulerMetrics(config.metricsSettings());
        // Where each stream thread's consumer and processors meet (wake-ups, how far the inputs are read): handed to both.
        StreamThreads threads = new StreamThreads();
        props.put(StreamsConfig.mainConsumerPrefix(StreamThreads.CONFIG), threads); // for a consumer Streams builds itself
        SchedulerSettings settings = SchedulerSettings.from(config, partitions, threads, metrics)
                .withFlowPartitions(flowPartitions);
        // The first records would otherwise load and interpret the accept path's code while the records behind them wait.
        io.ax.app.internal.topology.ColdStart.run(settings, COLD_START_ROUNDS, COLD_START_BUDGET_MS);
        // One clock-step detector for the instance: its punctuations and its consumers' polls check the same one.
        streams = new KafkaStreams(AxTopology.build(settings), props, new AxClientSupplier(config.tickMs(), settings.clockSteps(), threads));
        streams.setGlobalStateRestoreListener(metrics.restoreListener());
        metrics.streamThreads(() -> streams.metadataForLocalThreads().size());
        metrics.storeOperations(streams::metrics);
        streams.setUncaughtExceptionHandler(new StreamThreadFailures(Time.SYSTEM, MAX_THREAD_DEATHS, THREAD_DEATH_WINDOW_MS));
        streams.setStateListener((newState, oldState) -> {
            log.info("Scheduler {} -> {}", oldState, newState);
            metrics.streamsState(newState);
            if (newState == KafkaStreams.State.RUNNING) {
                running.countDown();
            }
            if (newState == KafkaStreams.State.ERROR || newState == KafkaStreams.State.NOT_RUNNING) {
                stopped.countDown();
            }
        });
        // Last: nothing after it can throw and leave its admin client open.
        long checkMs = config.getLong(AxConfig.HANGING_TXN_CHECK_MS_CONFIG);
        this.watchAdmin = checkMs > 0 ? Admin.create(config.setupAdminProperties()) : null;
        this.hangingTransactions = checkMs > 0 ? hangingTransactionsWatch(config, watchAdmin).start(checkMs) : null;
    }

    /** Every topic the scheduler reads read_committed or writes in transactions: its own, and its stores' changelogs. */
    private static HangingTransactions hangingTransactionsWatch(AxConfig config, Admin admin) {
        String applicationId = config.getString(AxConfig.APPLICATION_ID_CONFIG);
        List<String> watched = new ArrayList<>(config.topics().all());
        watched.addAll(AxStores.changelogTopics(applicationId));
        watched.add(applicationId + "-" + io.ax.app.internal.store.FlowStores.GATES + "-changelog");
        watched.add(applicationId + "-" + AxStores.WORKERS + "-changelog");
        return new HangingTransactions(admin, applicationId, watched, config.getString(AxConfig.BOOTSTRAP_SERVERS_CONFIG),
                config.getLong(AxConfig.HANGING_TXN_MS_CONFIG), config.getBoolean(AxConfig.HANGING_TXN_ABORT_CONFIG), Time.SYSTEM);
    }

    /** Creates or checks the topics, then starts processing. */
    public static AxScheduler start(AxConfig config) {
        int partitions;
        int flowPartitions;
        StateDirectory stateDirectory;
        try (Admin admin = Admin.create(config.setupAdminProperties())) {
            partitions = TopicSetup.ensure(admin, config.topics(), config.getInt(AxConfig.TOPIC_PARTITIONS_CONFIG),
                    config.getShort(AxConfig.TOPIC_REPLICATION_CONFIG), config.maxRecordBytes());
            flowPartitions = TopicSetup.partitionCount(admin, config.topics().flow());
            TopicSetup.requireMaxMessageBytes(admin, AxStores.changelogTopics(config.getString(AxConfig.APPLICATION_ID_CONFIG)),
                    config.maxRecordBytes());
            stateDirectory = StateDirectory.claim(config.stateDir(), TopicSetup.clusterId(admin),
                    config.getString(AxConfig.APPLICATION_ID_CONFIG));
        }
        AxScheduler scheduler = null;
        try {
            scheduler = new AxScheduler(config, partitions, flowPartitions, stateDirectory);
            scheduler.streams.start();
            scheduler.maybeStartHttp();
            return scheduler;
        } catch (RuntimeException e) {
            if (scheduler != null) {
                scheduler.close(); // streams, HTTP server, watch and state directory
            } else {
                stateDirectory.close();
            }
            throw e;
        }
    }

    private void maybeStartHttp() {
        if (config.httpListen().isEmpty()) {
            return;
        }
        Map<String, Object> producerSettings = new HashMap<>(config.connectionProperties());
        producerSettings.put(ProducerConfig.CLIENT_ID_CONFIG, config.getString(AxConfig.APPLICATION_ID_CONFIG) + "-http-"
                + config.getString(AxConfig.INSTANCE_NAME_CONFIG));
        httpProducer = new KafkaProducer<>(ProducerDefaults.with(config.getString(AxConfig.BOOTSTRAP_SERVERS_CONFIG), producerSettings));
        http = QueryServer.start(streams, config.httpListen().get(), config.httpAdvertised().orElseThrow(), partitions,
                config.httpToken(), httpProducer, config.topics(), config.limits(), metrics, httpLimits(config));
    }

    /** The HTTP API's bounds; the largest body is the largest input record the scheduler takes. */
    private static HttpLimits httpLimits(AxConfig config) {
        return new HttpLimits(config.maxRecordBytes(), config.getLong(AxConfig.HTTP_IDLE_TIMEOUT_MS_CONFIG),
                config.getInt(AxConfig.HTTP_MAX_CONNECTIONS_CONFIG), config.getInt(AxConfig.HTTP_THREADS_CONFIG),
                config.getInt(AxConfig.HTTP_MAX_DATA_REQUESTS_CONFIG));
    }

    /** Waits until every assigned partition is restored and processing. */
    public AxScheduler awaitRunning(Duration timeout) {
        try {
            if (!running.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AxException("scheduler not running after " + timeout + " (state " + streams.state() + ")");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AxException("interrupted while waiting for the scheduler", e);
        }
        return this;
    }

    /** Blocks until the scheduler stops by itself or is closed; true when it stopped in ERROR. */
    public boolean awaitStop() throws InterruptedException {
        stopped.await();
        return streams.state() == KafkaStreams.State.ERROR;
    }

    /** This instance's metrics (served at {@code /metrics} with the HTTP API). */
    /**
     * The flow-control limits this instance applies now (topology-docs/FLOW-CONTROL.md): limits key → normalized JSON, from
     * its copy of the limits topic. Empty while the instance is not running.
     */
    public java.util.Map<String, String> limits() {
        return io.ax.app.internal.flow.LimitsView.read(streams);
    }

    public SchedulerMetrics metrics() {
        return metrics;
    }

    public KafkaStreams.State state() {
        return streams.state();
    }

    /**
     * Stops processing and commits; pending timers stay in the stores and fire after the next start. The
     * instance leaves the consumer group, so its partitions move to the other instances at once instead of
     * after the session timeout (45 s): for a scheduler, timers firing on time matter more than avoiding one
     * rebalance during a rolling restart.
     */
    @Override
    public void close() {
        if (http != null) {
            http.close();
        }
        if (httpProducer != null) {
            httpProducer.close(Duration.ofSeconds(5));
        }
        try {
            streams.close(CloseOptions.timeout(Duration.ofSeconds(30))
                    .withGroupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP));
        } finally {
            stopWatching();
            stateDirectory.close();
        }
    }

    private void stopWatching() {
        if (hangingTransactions != null) {
            hangingTransactions.close();
            watchAdmin.close(Duration.ofSeconds(5));
        }
    }
}
