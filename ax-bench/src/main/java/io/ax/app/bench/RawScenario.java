package io.ax.app.bench;

import io.ax.AxTopics;
import io.ax.client.AxClient;
import io.ax.client.internal.ProducerDefaults;
import io.ax.codec.WireCodec;
import io.ax.validation.ScheduleLimits;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * {@code raw}: the physical baseline on the same broker and in the same process. Produces n records the size
 * of a typical request (a real {@code ScheduleRequest} built by the client and encoded with {@link WireCodec},
 * key {@code task-i}) to a throwaway topic with as many partitions as ax's topics, with the client's own
 * producer settings ({@link ProducerDefaults}: acks=all, idempotence, linger.ms=5), then consumes them back.
 * Result: {@code produce_per_s consume_per_s record_bytes}.
 */
public final class RawScenario implements Scenario {
    static final int DEFAULT_N = 100_000;

    @Override
    public String name() {
        return "raw";
    }

    @Override
    public List<ResultLine> run(BenchContext context) throws Exception {
        return List.of(measure(context, context.options().nOr(DEFAULT_N)));
    }

    /** Produces and consumes {@code n} records; the line {@code ingest} compares itself with. */
    static ResultLine measure(BenchContext context, int n) throws Exception {
        Clock clock = context.clock();
        String topic = context.name("raw");
        try (Admin admin = Admin.create(context.kafka())) {
            admin.createTopics(List.of(new NewTopic(topic, Optional.of(context.options().partitions()), Optional.empty())))
                    .all().get();
            awaitLeaders(admin, topic, context);
            try {
                AtomicLong acked = new AtomicLong();
                AtomicLong consumed = new AtomicLong();
                int[] recordBytes = new int[1];
                double producePerS;
                double consumePerS;
                try (Progress progress = context.progress("raw", () -> "acked " + acked.get() + "/" + n
                        + ", consumed " + consumed.get() + "/" + n)) {
                    producePerS = produce(context, topic, n, acked, recordBytes);
                    consumePerS = consume(context, topic, n, consumed);
                }
                return ResultLine.of("raw", n).add("produce_per_s", producePerS).add("consume_per_s", consumePerS)
                        .add("record_bytes", recordBytes[0]);
            } finally {
                admin.deleteTopics(List.of(topic));
            }
        }
    }

    /**
     * Waits until every partition of the new topic has a leader: producing into a topic whose leaders are still
     * being elected makes the idempotent producer retry, and a loaded 2-core machine has shown it looping on
     * OutOfOrderSequenceException after that.
     */
    private static void awaitLeaders(Admin admin, String topic, BenchContext context) throws Exception {
        boolean ready = Await.until(context.clock(), Duration.ofSeconds(30), () -> {
            try {
                return admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().stream()
                        .allMatch(p -> p.leader() != null && !p.leader().isEmpty());
            } catch (Exception e) {
                return false;
            }
        });
        if (!ready) {
            throw new IllegalStateException("raw: topic " + topic + " has no leaders after 30 s");
        }
    }

    private static double produce(BenchContext context, String topic, int n, AtomicLong acked, int[] recordBytes)
            throws InterruptedException {
        Clock clock = context.clock();
        Instant dueAt = clock.instant().plus(Duration.ofDays(1));
        AtomicLong failed = new AtomicLong();
        try (Producer<String, byte[]> producer = new KafkaProducer<>(ProducerDefaults.with(null, context.kafka()));
             // a client over our producer only to build requests exactly as users do; it sends nothing
             AxClient requests = AxClient.create(producer, AxTopics.defaults(), clock, ScheduleLimits.defaults())) {
            warmUpEachPartition(producer, topic, context.options().partitions());
            long startMs = clock.millis();
            for (int i = 0; i < n; i++) {
                String key = TaskKeys.TASKS.key(i);
                byte[] value = WireCodec.encode(requests.schedule(key).jobType(Submitter.JOB_TYPE).at(dueAt)
                        .payload(Submitter.PAYLOAD).build());
                recordBytes[0] = value.length;
                producer.send(new ProducerRecord<>(topic, null, clock.millis(), key, value), (metadata, error) -> {
                    if (error == null) {
                        acked.incrementAndGet();
                    } else {
                        failed.incrementAndGet();
                    }
                });
            }
            producer.flush();
            long elapsedMs = Math.max(1, clock.millis() - startMs);
            if (failed.get() > 0) {
                throw new IllegalStateException(failed.get() + " of " + n + " raw records failed to send");
            }
            return n * 1000.0 / elapsedMs;
        }
    }

    /**
     * One acknowledged record per partition before the pipelined load, so the broker knows this producer on every
     * partition before batches with later sequence numbers arrive. On a fresh broker a first batch that failed
     * retriably (leader still settling) while later batches were in flight has left Kafka 4.4's idempotent
     * producer looping on OutOfOrderSequenceException here. These records are not counted as produced.
     */
    private static void warmUpEachPartition(Producer<String, byte[]> producer, String topic, int partitions) {
        for (int p = 0; p < partitions; p++) {
            try {
                producer.send(new ProducerRecord<>(topic, p, "warm-up", new byte[0])).get(60, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException("raw: warm-up record to partition " + p + " failed: " + e, e);
            }
        }
    }

    private static double consume(BenchContext context, String topic, int n, AtomicLong consumed) throws InterruptedException {
        Clock clock = context.clock();
        Map<String, Object> config = new HashMap<>(context.kafka());
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config, new StringDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            long startMs = clock.millis();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadlineMs = startMs + 120_000 + n / 5L;
            while (consumed.get() < n) {
                if (clock.millis() > deadlineMs) {
                    throw new IllegalStateException("raw: consumed only " + consumed.get() + " of " + n);
                }
                for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(100))) {
                    if (!"warm-up".equals(record.key())) {
                        consumed.incrementAndGet();
                    }
                }
            }
            return n * 1000.0 / Math.max(1, clock.millis() - startMs);
        }
    }
}
