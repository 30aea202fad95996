package io.ax.app;

import io.ax.AxException;
import io.ax.app.config.AxConfig;
import io.ax.app.internal.setup.TopicSetup;
import io.ax.app.internal.topology.AxTopology;
import io.ax.app.internal.wakeup.AxClientSupplier;
import io.ax.codec.AvroTrust;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
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
    private final CountDownLatch running = new CountDownLatch(1);

    private AxScheduler(AxConfig config, int partitions) {
        Properties props = config.streamsProperties();
        streams = new KafkaStreams(AxTopology.build(config, partitions), props, new AxClientSupplier());
        streams.setUncaughtExceptionHandler(e -> {
            // A bug, not bad input (bad input is rejected on ax.state): log it and let Streams replace the thread.
            log.error("Stream thread failed; replacing it", e);
            return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.REPLACE_THREAD;
        });
        streams.setStateListener((newState, oldState) -> {
            log.info("Scheduler {} -> {}", oldState, newState);
            if (newState == KafkaStreams.State.RUNNING) {
                running.countDown();
            }
        });
    }

    /** Creates or checks the topics, then starts processing. */
    public static AxScheduler start(AxConfig config) {
        int partitions;
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                config.getString(AxConfig.BOOTSTRAP_SERVERS_CONFIG)))) {
            partitions = TopicSetup.ensure(admin, config.topics(), config.getInt(AxConfig.TOPIC_PARTITIONS_CONFIG),
                    config.getShort(AxConfig.TOPIC_REPLICATION_CONFIG));
        }
        AxScheduler scheduler = new AxScheduler(config, partitions);
        scheduler.streams.start();
        return scheduler;
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
        streams.close(CloseOptions.timeout(Duration.ofSeconds(30))
                .withGroupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP));
    }
}
