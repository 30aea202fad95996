package io.ax.app.internal.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.ax.app.config.AxConfig;
import io.ax.app.internal.metrics.SchedulerMetrics;
import io.ax.app.internal.store.AxStores;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Kafka Streams inits the same processor object again when its task goes from active to standby and back. The worker
 * registry's memory of its workers is read from its store at each init: a second init must hold what the store holds
 * then, not also what the first init read (a worker forgotten meanwhile, by the changelog a standby restored, stayed
 * counted). And what the rules decide at that load ({@code WorkerRules.load}) is applied to the store: an entry that
 * does not read is deleted.
 */
class WorkerRegistryReinitTest {
    private static final long T0 = 1_796_083_200_000L;
    private KeyValueStore<String, byte[]> workers;

    @AfterEach
    void closeStore() {
        if (workers != null) {
            workers.close();
        }
    }

    private AxConfig config;
    private MockProcessorContext<String, byte[]> context;
    private SchedulerMetrics metrics;

    /** A processor context over a real, unlogged registry store in a fresh state directory, and the instance's metrics. */
    @BeforeEach
    void openStore() throws Exception {
        Path stateDir = Files.createTempDirectory("ax-registry-reinit");
        config = new AxConfig(Map.of(AxConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092",
                AxConfig.STATE_DIR_CONFIG, stateDir.toString()));
        context = new MockProcessorContext<>(config.streamsProperties(), new TaskId(2, 0), stateDir.toFile());
        context.setCurrentSystemTimeMs(T0);
        workers = AxStores.workers().withLoggingDisabled().build();
        workers.init(context.getStateStoreContext(), workers);
        context.addStateStore(workers);
        metrics = new SchedulerMetrics(config.metricsSettings());
    }

    @Test
    void shouldHoldOnlyTheWorkersItsStoreHoldsWhenTheSameProcessorIsInitialisedASecondTime() {
        WorkerRegistryProcessor processor = newProcessor();

        processor.init(context);
        context.setRecordMetadata(config.topics().workers(), 0, 0);
        processor.process(new Record<>("w-1", announcement("w-1"), T0));
        processor.process(new Record<>("w-2", announcement("w-2"), T0));
        assertThat(alive(metrics)).isEqualTo(2.0);

        processor.close(); // active -> standby: the standby's restore forgets w-2 (the active elsewhere wrote its tombstone)
        workers.delete("w-2");
        processor.init(context); // -> active again: the same object

        assertThat(alive(metrics)).as("w-2 is no longer in the store, so no longer counted").isEqualTo(1.0);
    }

    @Test
    void shouldForgetAStoredEntryThatDoesNotReadAndCountTheOthersWhenInitialised() {
        WorkerRegistryProcessor first = newProcessor();
        first.init(context);
        context.setRecordMetadata(config.topics().workers(), 0, 0);
        first.process(new Record<>("w-1", announcement("w-1"), T0));
        first.close();
        workers.put("w-2", "{\"written by\":\"another version\"}".getBytes(StandardCharsets.UTF_8));

        newProcessor().init(context);

        assertThat(workers.get("w-2")).as("the entry that does not read is forgotten").isNull();
        assertThat(workers.get("w-1")).isNotNull();
        assertThat(alive(metrics)).isEqualTo(1.0);
    }

    private WorkerRegistryProcessor newProcessor() {
        return new WorkerRegistryProcessor(AxStores.WORKERS, "state", "workers",
                SchedulerSettings.from(config, 1, io.ax.app.internal.timer.ConsumerPositions.SYNCHRONOUS, metrics));
    }

    private static byte[] announcement(String id) {
        return ("{\"workerId\":\"" + id + "\",\"host\":\"h1\",\"heartbeatMs\":1000,\"jobTypes\":[\"email\"],"
                + "\"inFlight\":[]}").getBytes(StandardCharsets.UTF_8);
    }

    private static double alive(SchedulerMetrics metrics) {
        return metrics.registry().get("ax.workers").tag("state", "alive").gauge().value();
    }
}
