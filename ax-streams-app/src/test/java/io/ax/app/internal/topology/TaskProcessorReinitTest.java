package io.ax.app.internal.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.ax.AxTopics;
import io.ax.app.config.AxConfig;
import io.ax.app.internal.metrics.SchedulerMetrics;
import io.ax.app.internal.store.AxStores;
import io.ax.app.internal.store.FlowStores;
import io.ax.app.internal.timer.ConsumerPositions;
import io.ax.app.internal.timer.TimerIndex;
import io.ax.app.internal.core.TimerKind;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Kafka Streams inits the same processor object again when its task goes from active to standby and back (the task's
 * topology is recycled with it). The timer index is wiped at each init and derived again from the task store: a second
 * init on the same {@link TaskProcessor} must rebuild it like the first, or every task of the partition stays unfired
 * (the chaos suite lost whole partitions so).
 */
class TaskProcessorReinitTest {
    private static final long T0 = 1_796_083_200_000L;
    private final List<StateStore> stores = new ArrayList<>();

    @AfterEach
    void closeStores() {
        stores.forEach(StateStore::close);
    }

    @Test
    void shouldDeriveTheTimersAgainWhenTheSameProcessorIsInitialisedASecondTime() throws Exception {
        Path stateDir = Files.createTempDirectory("ax-reinit");
        AxConfig config = new AxConfig(Map.of(AxConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092",
                AxConfig.STATE_DIR_CONFIG, stateDir.toString()));
        AxTopics topics = config.topics();
        MockProcessorContext<String, byte[]> context = new MockProcessorContext<>(config.streamsProperties(), new TaskId(0, 0),
                stateDir.toFile());
        context.setCurrentSystemTimeMs(T0);
        add(context, AxStores.tasks(1_000_000).withLoggingDisabled().build());
        KeyValueStore<Bytes, byte[]> timers = add(context, AxStores.timers().build());
        add(context, AxStores.index().build());
        add(context, AxStores.dependencies().withLoggingDisabled().build());
        add(context, AxStores.calendars().build());
        add(context, FlowStores.limits().withLoggingDisabled().build());
        TaskProcessor processor = new TaskProcessor(SchedulerSettings.from(config, 1, ConsumerPositions.SYNCHRONOUS,
                new SchedulerMetrics(config.metricsSettings())));
        processor.init(context);
        context.setRecordMetadata(topics.requests(), 0, 0);
        // An hour ahead: beyond the wheel's horizon and the far level's (10 min), so in the timer index, where it can be seen.
        processor.process(new Record<>("t", "{\"jobType\":\"email\",\"delayMs\":3600000}".getBytes(StandardCharsets.UTF_8), T0));
        Bytes occurrence = TimerIndex.key(T0 + 3_600_000, "t", TimerKind.OCCURRENCE);
        assertThat(timers.get(occurrence)).as("the occurrence timer, set by the decision").isNotNull();

        processor.close(); // active -> standby
        processor.init(context); // -> active again: the same object
        assertThat(timers.get(occurrence)).as("the occurrence timer, derived from the task again by the second init's rebuild")
                .isNotNull();
    }

    private <S extends StateStore> S add(MockProcessorContext<String, byte[]> context, S store) {
        store.init(context.getStateStoreContext(), store);
        context.addStateStore(store);
        stores.add(store);
        return store;
    }
}
