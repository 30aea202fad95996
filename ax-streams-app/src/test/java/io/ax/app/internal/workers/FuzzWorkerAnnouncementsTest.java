package io.ax.app.internal.workers;

import static org.assertj.core.api.Assertions.assertThat;

import io.ax.AxTopics;
import io.ax.app.config.AxConfig;
import io.ax.app.fuzz.FuzzSettings;
import io.ax.app.fuzz.HostileAnnouncements;
import io.ax.app.fuzz.HostileAnnouncements.Announcement;
import io.ax.app.internal.timer.ConsumerPositions;
import io.ax.app.internal.metrics.RefusedRecords;
import io.ax.app.internal.metrics.SchedulerMetrics;
import io.ax.app.internal.store.AxStores;
import io.ax.app.internal.topology.AxTopology;
import io.ax.app.internal.topology.SchedulerSettings;
import io.ax.codec.WorkerAnnouncement;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fuzz of the workers topic through the scheduler's topology ({@link HostileAnnouncements} makes the records). Per
 * record: no exception out of {@code pipeInput}; a valid announcement is stored as it reads; a bad one is refused with a
 * reason (counted once in {@code ax_worker_records_refused}, the reason naming what is wrong in at most 1024 chars) and
 * the worker's previous entry stays; nothing refused writes to {@code ax.state}; the store never holds more than
 * {@code ax.workers.max} workers. CI runs {@value #CI_COUNT} records; {@code -Dax.fuzz.count}, {@code -Dax.fuzz.seed} and
 * {@code -Dax.fuzz.only} as for the other fuzz suites.
 */
@Tag("fuzz")
class FuzzWorkerAnnouncementsTest {
    static final int CI_COUNT = 600;
    private static final int MAX_WORKERS = 10;
    private static final Instant T0 = Instant.parse("2026-12-01T00:00:00Z");

    /** Exactly (RocksDB's estimate counts deleted keys). */
    private static long count(KeyValueStore<String, byte[]> store) {
        try (var all = store.all()) {
            long n = 0;
            while (all.hasNext()) {
                all.next();
                n++;
            }
            return n;
        }
    }

    @Test
    void shouldStoreEveryValidAnnouncementAndRefuseEveryOtherWithAReason(@TempDir Path stateDir) {
        FuzzSettings settings = FuzzSettings.fromSystemProperties(CI_COUNT);
        HostileAnnouncements generator = new HostileAnnouncements(settings.seed());
        AxConfig config = new AxConfig(Map.of(AxConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092",
                AxConfig.STATE_DIR_CONFIG, stateDir.toString(), AxConfig.WORKERS_MAX_CONFIG, MAX_WORKERS));
        SchedulerMetrics metrics = new SchedulerMetrics(config.metricsSettings());
        List<String> failures = new ArrayList<>();
        Map<String, Integer> figures = new TreeMap<>();
        try (TopologyTestDriver driver = new TopologyTestDriver(AxTopology.build(SchedulerSettings.from(config, 1,
                ConsumerPositions.SYNCHRONOUS, metrics)), config.streamsProperties(), T0)) {
            AxTopics topics = config.topics();
            TestInputTopic<String, byte[]> workers = driver.createInputTopic(topics.workers(), Serdes.String().serializer(),
                    Serdes.ByteArray().serializer());
            TestOutputTopic<String, byte[]> state = driver.createOutputTopic(topics.state(), Serdes.String().deserializer(),
                    Serdes.ByteArray().deserializer());
            KeyValueStore<String, byte[]> store = driver.getKeyValueStore(AxStores.WORKERS);
            RefusedRecords refused = metrics.workerErrors();
            Instant now = T0;
            for (int index : settings.indexes()) {
                Announcement record = generator.get(index);
                figures.merge(record.kind(), 1, Integer::sum);
                byte[] before = record.key() == null ? null : store.get(record.key());
                long refusedBefore = refused.count();
                long storedBefore = count(store);
                String where = "record " + index + " (" + record.kind() + ", key " + io.ax.validation.Quote.of(record.key()) + ")";
                try {
                    workers.pipeInput(record.key(), record.value(), now);
                } catch (RuntimeException e) {
                    failures.add(where + ": " + e);
                    continue;
                }
                now = now.plusMillis(10);
                List<?> lines = state.readValuesToList();
                byte[] after = record.key() == null ? null : store.get(record.key());
                boolean full = before == null && storedBefore >= MAX_WORKERS;
                if (record.value() == null) {
                    if (after != null) {
                        failures.add(where + ": a tombstone left the worker stored");
                    }
                } else if (record.valid() && !full) {
                    WorkerAnnouncement sent = WorkerAnnouncement.parse(record.key(), record.value());
                    if (after == null || !WorkerEntry.decode(record.key(), after).announcement().equals(sent)) {
                        failures.add(where + ": a valid announcement was not stored as sent");
                    }
                    if (refused.count() != refusedBefore) {
                        failures.add(where + ": a valid announcement was counted refused: " + refused.last().get(refused.last().size() - 1));
                    }
                } else {
                    if (refused.count() != refusedBefore + 1) {
                        failures.add(where + ": refused " + (refused.count() - refusedBefore) + " times, not once");
                    } else {
                        String reason = refused.last().get(refused.last().size() - 1).reason();
                        if (reason == null || reason.isBlank() || reason.length() > 1_024) {
                            failures.add(where + ": a reason that is empty or too long: " + reason);
                        }
                    }
                    if (!Arrays.equals(before, after)) {
                        failures.add(where + ": a refused record changed the stored worker");
                    }
                    if (!lines.isEmpty()) {
                        failures.add(where + ": a refused record wrote to ax.state: " + lines);
                    }
                }
                if (count(store) > MAX_WORKERS) {
                    failures.add(where + ": the store holds " + count(store) + " workers, more than " + MAX_WORKERS);
                }
                if (failures.size() >= settings.stopAfterFailures()) {
                    break;
                }
            }
            driver.advanceWallClockTime(Duration.ofHours(2)); // every stored worker goes silent: dead, then forgotten
        }
        System.out.println("FUZZ workers " + settings + " " + figures);
        assertThat(failures).as(settings.toString()).isEmpty();
    }
}
