package io.ax.app.internal.migrate;

import io.ax.AxTopics;
import io.ax.app.internal.core.Liveness;
import io.ax.app.internal.core.StateMachine;
import io.ax.app.internal.setup.TopicSetup;
import io.ax.app.internal.store.AxStores;
import io.ax.codec.WireCodec;
import io.ax.schema.AdoptRequest;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * {@code ./ax migrate}: moves a stopped deployment's tasks to a new set of topics with more partitions.
 *
 * <ol>
 *   <li>Checks (see {@link Preflight}): the old scheduler is stopped, its topics and changelog exist; creates the new
 *       topics and refuses when they have fewer partitions than the old.</li>
 *   <li>Adopts: reads the old tasks changelog to the end offsets captured at start (compacted: the latest value per
 *       taskId counts, a tombstone removes it) and writes one {@link AdoptRequest} per stored task (live or finished,
 *       so dead letters stay replayable) to the new requests topic, keyed by taskId.</li>
 *   <li>Unprocessed requests: the old requests topic from the old group's committed offsets to its end, re-produced
 *       to the new one (key, value, headers, timestamp kept): after their task's adopt, on the same partition.</li>
 *   <li>Waits until the new scheduler has read its requests topic that far: every adopt is applied.</li>
 *   <li>Unprocessed reports and retry records: the old results and retry topics from the committed offsets to their
 *       end, re-produced to the new ones. Only now, so that none is read before the adopt of its task.</li>
 * </ol>
 * Every copy commits its progress in the same transaction ({@link MigrationWriter}); a re-run copies only what
 * arrived on the old topics since (the final sweep after producers and workers have switched), and adopts nothing
 * twice; an adopt the new scheduler already holds is ignored there anyway.
 */
public final class Migration {
    /** What one run did. */
    public record Report(int oldPartitions, int newPartitions, Map<String, Long> adopted, List<String> unreadable,
                         long requestsCopied, long reportsCopied, long retriesCopied) {
    }

    private static final Duration AWAIT_POLL = Duration.ofMillis(500);

    private final MigrationSettings settings;
    private final PrintStream out;

    public Migration(MigrationSettings settings, PrintStream out) {
        this.settings = settings;
        this.out = out;
    }

    public Report run() {
        try (Admin admin = Admin.create(settings.clientProps())) {
            Preflight preflight = new Preflight(admin);
            preflight.requireStopped(settings.fromApplicationId());
            int oldPartitions = preflight.partitionsOf(settings.from());
            String changelog = AxStores.changelogTopics(settings.fromApplicationId()).get(0);
            int changelogPartitions = preflight.partitionsOf(changelog, "is --application-id " + settings.fromApplicationId()
                    + " the old scheduler's application.id?");
            Preflight.requireNoFewerAsked(oldPartitions, settings.partitions());
            int newPartitions = TopicSetup.ensure(admin, settings.to(), settings.partitions(), settings.replicationFactor(),
                    settings.maxRecordBytes());
            Preflight.requireNoFewer(oldPartitions, newPartitions, settings.to());
            Map<TopicPartition, OffsetAndMetadata> oldCommitted = preflight.committed(settings.fromApplicationId());
            Map<TopicPartition, OffsetAndMetadata> progress = preflight.committed(settings.progressGroup());
            out.printf("Migrating %s (%s*, %d partitions) to %s (%s*, %d partitions)%n", settings.fromApplicationId(),
                    settings.from().prefix(), oldPartitions, settings.toApplicationId(), settings.to().prefix(), newPartitions);
            try (KafkaConsumer<byte[], byte[]> consumer = consumer();
                 MigrationWriter writer = new MigrationWriter(settings.clientProps(), settings)) {
                List<TopicPartition> changelogParts = partitions(changelog, changelogPartitions);
                Map<TopicPartition, Long> changelogEnds = consumer.endOffsets(changelogParts);
                Map<String, Long> adopted = new TreeMap<>();
                List<String> unreadable = new ArrayList<>();
                for (TopicPartition tp : changelogParts) {
                    adopt(consumer, writer, tp, changelogEnds.get(tp), progress, adopted, unreadable);
                }
                Tails tails = new Tails(consumer, oldCommitted, progress);
                long requests = copy(consumer, writer, tails, settings.from().requests(), settings.to().requests(), oldPartitions);
                writer.commit();
                awaitAdoption(admin, consumer);
                long reports = copy(consumer, writer, tails, settings.from().results(), settings.to().results(), oldPartitions);
                long retries = copy(consumer, writer, tails, settings.from().retry(), settings.to().retry(), oldPartitions);
                writer.commit();
                return new Report(oldPartitions, newPartitions, adopted, unreadable, requests, reports, retries);
            }
        }
    }

    /**
     * Two passes over one changelog partition, so memory holds the taskIds and not the tasks: the first finds the
     * offset of each taskId's latest record (a tombstone removes it), the second adopts the records at those offsets,
     * from where an earlier run stopped.
     */
    private void adopt(KafkaConsumer<byte[], byte[]> consumer, MigrationWriter writer, TopicPartition tp, long endOffset,
                       Map<TopicPartition, OffsetAndMetadata> progress, Map<String, Long> adopted, List<String> unreadable) {
        long beginning = consumer.beginningOffsets(List.of(tp)).get(tp);
        Map<String, Long> latest = new HashMap<>();
        TopicCopy.read(consumer, tp, beginning, endOffset, record -> {
            String taskId = key(record);
            if (record.value() == null) {
                latest.remove(taskId);
            } else {
                latest.put(taskId, record.offset());
            }
        });
        OffsetAndMetadata done = progress.get(tp);
        long from = Math.max(beginning, done == null ? 0 : done.offset());
        long migratedAtMs = System.currentTimeMillis();
        TopicCopy.read(consumer, tp, from, endOffset, record -> {
            String taskId = key(record);
            Long latestOffset = latest.get(taskId);
            if (latestOffset != null && latestOffset == record.offset()) {
                maybeAdopt(writer, tp, record, taskId, migratedAtMs, adopted, unreadable);
            }
            writer.copied(tp, record.offset() + 1);
        });
        writer.copied(tp, endOffset);
    }

    private void maybeAdopt(MigrationWriter writer, TopicPartition tp, ConsumerRecord<byte[], byte[]> record, String taskId,
                            long migratedAtMs, Map<String, Long> adopted, List<String> unreadable) {
        StoredTask task;
        try {
            task = WireCodec.decodeBinary(record.value(), StoredTask.class);
        } catch (RuntimeException e) {
            unreadable.add(taskId + " (" + tp + "@" + record.offset() + "): " + e.getMessage());
            return;
        }
        AdoptRequest adopt = AdoptRequest.newBuilder().setTask(task).setFromApplicationId(settings.fromApplicationId())
                .setFromTopic(settings.from().requests()).setFromPartition(tp.partition()).setMigratedAtMs(migratedAtMs).build();
        writer.send(new ProducerRecord<>(settings.to().requests(), null, migratedAtMs, record.key(), WireCodec.encode(adopt)));
        adopted.merge(describe(task), 1L, Long::sum);
    }

    /** How the summary counts a task: PENDING, its execution's state, both (a periodic task), or finished. */
    private static String describe(StoredTask task) {
        if (!Liveness.isLive(task)) {
            return "finished";
        }
        StoredExecution execution = task.getExecution();
        String inFlight = execution != null && StateMachine.isInFlight(execution.getState()) ? execution.getState().name() : null;
        if (task.getNextDueAtMs() == null) {
            return inFlight;
        }
        return inFlight == null ? "PENDING" : "PENDING+" + inFlight;
    }

    /** Copies the unprocessed part of each partition of {@code fromTopic} to {@code toTopic}, record for record. */
    private long copy(KafkaConsumer<byte[], byte[]> consumer, MigrationWriter writer, Tails tails, String fromTopic,
                      String toTopic, int partitions) {
        long[] copied = {0};
        for (TopicPartition tp : partitions(fromTopic, partitions)) {
            Tails.Range range = tails.range(tp);
            TopicCopy.read(consumer, tp, range.fromOffset(), range.toOffset(), record -> {
                writer.send(new ProducerRecord<>(toTopic, null, record.timestamp(), record.key(), record.value(), record.headers()));
                writer.copied(tp, record.offset() + 1);
                copied[0]++;
            });
            writer.copied(tp, range.toOffset());
        }
        return copied[0];
    }

    /**
     * Waits until the new scheduler's group has read the new requests topic to its current end: every adopt (and
     * every copied request) is applied, so no report copied next can be read before the adopt of its task.
     */
    private void awaitAdoption(Admin admin, KafkaConsumer<byte[], byte[]> consumer) {
        Preflight preflight = new Preflight(admin);
        List<TopicPartition> parts = partitions(settings.to().requests(),
                preflight.partitionsOf(settings.to().requests(), "it was just created"));
        Map<TopicPartition, Long> ends = consumer.endOffsets(parts);
        long deadlineMs = System.currentTimeMillis() + settings.awaitAdoption().toMillis();
        long nextNoticeMs = 0;
        while (true) {
            Map<TopicPartition, OffsetAndMetadata> read = preflight.committed(settings.toApplicationId());
            List<TopicPartition> behind = parts.stream().filter(tp -> {
                OffsetAndMetadata at = read.get(tp);
                long from = at == null ? consumer.beginningOffsets(List.of(tp)).get(tp) : at.offset();
                return TopicCopy.holdsRecords(consumer, tp, from, ends.get(tp));
            }).toList();
            if (behind.isEmpty()) {
                out.println("The new scheduler has read every adopt and copied request.");
                return;
            }
            long nowMs = System.currentTimeMillis();
            if (nowMs >= deadlineMs) {
                throw new MigrationRefusedException("the new scheduler (application.id " + settings.toApplicationId()
                        + ") has not read " + behind + " within " + settings.awaitAdoption() + "; the adopts are written."
                        + " Start it (ax.topic.prefix=" + settings.to().prefix() + ", ax.adopt.enabled=true) and run the"
                        + " migration again to copy the remaining reports and retry records.");
            }
            if (nowMs >= nextNoticeMs) {
                out.printf("Waiting for the new scheduler to read the adopts (%d of %d partitions of %s behind). Start it now:"
                                + " ./ax run --bootstrap ... -D application.id=%s -D ax.topic.prefix=%s -D ax.adopt.enabled=true%n",
                        behind.size(), parts.size(), settings.to().requests(), settings.toApplicationId(), settings.to().prefix());
                nextNoticeMs = nowMs + 10_000;
            }
            sleep(AWAIT_POLL);
        }
    }

    private KafkaConsumer<byte[], byte[]> consumer() {
        Map<String, Object> props = new HashMap<>(settings.clientProps());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.remove(ConsumerConfig.GROUP_ID_CONFIG);
        return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    private static List<TopicPartition> partitions(String topic, int count) {
        return IntStream.range(0, count).mapToObj(p -> new TopicPartition(topic, p)).toList();
    }

    private static String key(ConsumerRecord<byte[], byte[]> record) {
        return record.key() == null ? "" : new String(record.key(), StandardCharsets.UTF_8);
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MigrationRefusedException("interrupted while waiting for the new scheduler");
        }
    }

    /** Where the unprocessed part of each old input partition starts and ends. */
    private static final class Tails {
        record Range(long fromOffset, long toOffset) {
        }

        private final KafkaConsumer<byte[], byte[]> consumer;
        private final Map<TopicPartition, OffsetAndMetadata> oldCommitted;
        private final Map<TopicPartition, OffsetAndMetadata> progress;

        Tails(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, OffsetAndMetadata> oldCommitted,
              Map<TopicPartition, OffsetAndMetadata> progress) {
            this.consumer = consumer;
            this.oldCommitted = oldCommitted;
            this.progress = progress;
        }

        /**
         * From the old group's committed offset (or where an earlier run stopped, if later) to the end now. A partition
         * holding records the old group never committed for can't be told apart: refused.
         */
        Range range(TopicPartition tp) {
            long beginning = consumer.beginningOffsets(List.of(tp)).get(tp);
            long end = consumer.endOffsets(List.of(tp)).get(tp);
            OffsetAndMetadata committed = oldCommitted.get(tp);
            OffsetAndMetadata done = progress.get(tp);
            if (committed == null && done == null && beginning < end) {
                throw new MigrationRefusedException("the old scheduler's group has no committed offset on " + tp + ", which"
                        + " holds records (offsets " + beginning + " to " + end + "): which of them it processed cannot be told."
                        + " (Group offsets expire offsets.retention.minutes after the group empties.)");
            }
            long from = Math.max(beginning, Math.max(committed == null ? 0 : committed.offset(), done == null ? 0 : done.offset()));
            return new Range(from, end);
        }
    }
}
