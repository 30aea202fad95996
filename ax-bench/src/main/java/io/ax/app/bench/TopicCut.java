package io.ax.app.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The last stable offset of every partition of a set of topics at one moment (what a {@code read_committed} reader can
 * read up to), and what was written between two such cuts: records and bytes per topic, read back {@code read_committed}
 * (so transaction markers and aborted writes are not counted). For {@link CostScenario}.
 */
final class TopicCut {
    private final Map<TopicPartition, Long> offsets;

    private TopicCut(Map<TopicPartition, Long> offsets) {
        this.offsets = offsets;
    }

    /** Every topic whose name starts with {@code prefix} (a scheduler's topics, its changelogs and internal topics). */
    static Set<String> topicsStartingWith(Admin admin, String prefix) throws ExecutionException, InterruptedException {
        return admin.listTopics().names().get().stream().filter(t -> t.startsWith(prefix)).collect(Collectors.toSet());
    }

    /** The last stable offsets of every partition of {@code topics} now. */
    static TopicCut take(Admin admin, Set<String> topics) throws ExecutionException, InterruptedException {
        Map<String, TopicDescription> described = admin.describeTopics(topics).allTopicNames().get();
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        described.values().forEach(d -> d.partitions().forEach(p -> request.put(new TopicPartition(d.name(), p.partition()),
                OffsetSpec.latest())));
        Map<TopicPartition, Long> offsets = new HashMap<>();
        admin.listOffsets(request, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all().get()
                .forEach((tp, info) -> offsets.put(tp, info.offset()));
        return new TopicCut(offsets);
    }

    /**
     * A cut taken once the topics are quiet: cuts every {@code everyMs} until two in a row agree (the markers of the last
     * transactions written), or {@code timeout} passed (then the last one).
     */
    static TopicCut takeQuiet(Admin admin, Set<String> topics, long everyMs, Duration timeout)
            throws ExecutionException, InterruptedException {
        long deadlineNanos = System.nanoTime() + timeout.toNanos();
        TopicCut last = take(admin, topics);
        while (System.nanoTime() < deadlineNanos) {
            Thread.sleep(everyMs); // waiting for the broker's markers: a poll with a deadline
            TopicCut next = take(admin, topics);
            if (next.offsets.equals(last.offsets)) {
                return next;
            }
            last = next;
        }
        return last;
    }

    /** Records and bytes (key, value and headers) of one topic between two cuts. */
    record Written(long records, long bytes) {
    }

    /** What was written to each topic between {@code this} cut and the later {@code end}, read back read_committed. */
    Map<String, Written> writtenUntil(TopicCut end, Map<String, Object> kafka) {
        Map<String, Object> config = new HashMap<>(kafka);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
        Map<String, long[]> counts = new TreeMap<>();
        List<TopicPartition> toRead = new ArrayList<>();
        end.offsets.forEach((tp, endOffset) -> {
            counts.putIfAbsent(tp.topic(), new long[2]);
            if (endOffset > offsets.getOrDefault(tp, 0L)) {
                toRead.add(tp);
            }
        });
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.assign(toRead);
            toRead.forEach(tp -> consumer.seek(tp, offsets.getOrDefault(tp, 0L)));
            long deadlineNanos = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            List<TopicPartition> open = new ArrayList<>(toRead);
            while (!open.isEmpty()) {
                if (System.nanoTime() > deadlineNanos) {
                    throw new IllegalStateException("cost: could not read back " + open + " within 2 minutes");
                }
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    TopicPartition tp = new TopicPartition(record.topic(), record.partition());
                    if (record.offset() < end.offsets.get(tp)) {
                        long[] c = counts.get(record.topic());
                        c[0]++;
                        c[1] += size(record);
                    }
                }
                open.removeIf(tp -> consumer.position(tp) >= end.offsets.get(tp));
                consumer.pause(toRead.stream().filter(tp -> !open.contains(tp)).toList());
            }
        }
        Map<String, Written> out = new TreeMap<>();
        counts.forEach((topic, c) -> out.put(topic, new Written(c[0], c[1])));
        return out;
    }

    private static long size(ConsumerRecord<byte[], byte[]> record) {
        long size = (record.key() == null ? 0 : record.key().length) + (record.value() == null ? 0 : record.value().length);
        for (Header header : record.headers()) {
            size += header.key().getBytes(java.nio.charset.StandardCharsets.UTF_8).length + (header.value() == null ? 0 : header.value().length);
        }
        return size;
    }
}
