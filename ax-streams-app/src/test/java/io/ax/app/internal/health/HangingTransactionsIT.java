package io.ax.app.internal.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ax.app.broker.EmbeddedKafkaBroker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The hanging-transaction watch against a real broker: a transaction its coordinator still runs is open on a partition
 * long past the watch's threshold, and the watch must leave it alone (aborting it would drop a scheduler's fire). The
 * hanging case itself (a coordinator that finished a transaction without writing one partition's marker) cannot be
 * made on purpose through Kafka's clients; the rule is {@link OpenTransactionTest}, and the chaos suite
 * ({@code ./ax bench chaos}, broker killed and restarted under load) is where Kafka leaves real ones behind.
 */
@Tag("integration")
class HangingTransactionsIT {
    private static final String TOPIC = "ht.out";
    private static EmbeddedKafkaBroker broker;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults());
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
    }

    @AfterAll
    static void stopBroker() {
        broker.close();
    }

    @Test
    void shouldLeaveATransactionItsCoordinatorStillRunsOpen() throws Exception {
        TopicPartition partition = new TopicPartition(TOPIC, 0);
        try (Admin admin = admin(); KafkaProducer<String, String> producer = transactional("ht-app-1")) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(TOPIC, 0, "k", "v")).get(30, TimeUnit.SECONDS);
            SettableTime time = new SettableTime();
            HangingTransactions watch = new HangingTransactions(admin, "ht-app", List.of(TOPIC, "ht.missing"),
                    broker.bootstrapServers(), 30_000, true, time);

            assertThat(watch.checkOnce()).as("first sight: too young to ask").isEmpty();
            time.advanceMs(30_000);
            assertThat(watch.checkOnce()).as("open past the threshold, but ONGOING with the partition").isEmpty();
            assertThat(lastStable(admin, partition)).as("still open: not aborted").isZero();

            producer.commitTransaction();
            await().atMost(Duration.ofSeconds(30)).until(() -> lastStable(admin, partition) == 2); // record + commit marker
            time.advanceMs(30_000);
            assertThat(watch.checkOnce()).isEmpty();
        }
    }

    /** The watch's clock, moved by the test. */
    private static final class SettableTime implements Time {
        private final AtomicLong nowMs = new AtomicLong(1_000_000);

        void advanceMs(long ms) {
            nowMs.addAndGet(ms);
        }

        @Override
        public long milliseconds() {
            return nowMs.get();
        }

        @Override
        public long nanoseconds() {
            return TimeUnit.MILLISECONDS.toNanos(nowMs.get());
        }

        @Override
        public void sleep(long ms) {
            advanceMs(ms);
        }

        @Override
        public void waitObject(Object obj, Supplier<Boolean> condition, long deadlineMs) {
            throw new UnsupportedOperationException("not used by the watch");
        }
    }

    private static long lastStable(Admin admin, TopicPartition partition) throws Exception {
        return admin.listOffsets(Map.of(partition, OffsetSpec.latest()), new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                .partitionResult(partition).get(30, TimeUnit.SECONDS).offset();
    }

    private static KafkaProducer<String, String> transactional(String transactionalId) {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId,
                ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 60_000), new StringSerializer(), new StringSerializer());
    }

    private static Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()));
    }
}
