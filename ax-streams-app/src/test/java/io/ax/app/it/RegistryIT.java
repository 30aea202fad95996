package io.ax.app.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.apicurio.registry.serde.avro.AvroKafkaDeserializer;
import io.apicurio.registry.serde.avro.AvroKafkaSerializer;
import io.ax.AxTopics;
import io.ax.app.AxScheduler;
import io.ax.app.broker.EmbeddedKafkaBroker;
import io.ax.app.config.AxConfig;
import io.ax.client.AxClient;
import io.ax.codec.RegistryCodec;
import io.ax.codec.RegistrySettings;
import io.ax.codec.RegistryWire;
import io.ax.codec.SchemaRegistryClient;
import io.ax.codec.WireCodec;
import io.ax.schema.DelayTrigger;
import io.ax.schema.ScheduleRequest;
import io.ax.worker.AxWorker;
import io.ax.worker.Result;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.TestAbortedException;

/**
 * The schema-registry wire format end to end against a real Apicurio Registry 3.0.9 (its Confluent-compatible API)
 * and the embedded broker: requests produced with Apicurio's Kafka serde (Confluent format) and hand-built with
 * evolved writer schemas are scheduled and fire; a scheduler with {@code ax.output.format=registry} writes dispatches
 * that Apicurio's deserializer reads and that an {@link AxWorker} with the registry runs; {@link AxClient}'s registry
 * format is checked byte by byte against what the registry serves; an unknown id and a stopped
 * registry are REJECTED with their reason while the next good record flows. The registry is stopped by the last test.
 * Skipped (assumption, with the reason) where the registry cannot be started.
 */
@Tag("integration")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RegistryIT {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Clock CLOCK = Clock.systemUTC();
    private static EmbeddedKafkaBroker broker;
    private static ApicurioRegistry registry;
    private static AxScheduler scheduler;
    private static AxWorker worker;
    private static TopicRecorder state;
    private static AxTopics topics;

    /** Why the registry could not be started, or null; each test is skipped with it (visible per test in the reports). */
    private static String unavailable;

    @BeforeAll
    static void start(@TempDir Path stateDir) throws Exception {
        try {
            registry = ApicurioRegistry.startOrSkip();
        } catch (TestAbortedException e) {
            // Aborting here would leave the class with no test reported at all; skip each test instead.
            unavailable = e.getMessage().replaceFirst("^Assumption failed: ", "");
            return;
        }
        broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults());
        AxConfig config = new AxConfig(Map.of(
                AxConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                AxConfig.APPLICATION_ID_CONFIG, "it-registry",
                AxConfig.TOPIC_PREFIX_CONFIG, "reg.",
                AxConfig.TOPIC_PARTITIONS_CONFIG, 3,
                AxConfig.STATE_DIR_CONFIG, stateDir.toString(),
                AxConfig.SCHEMA_REGISTRY_URL_CONFIG, registry.ccompatUrl(),
                AxConfig.SCHEMA_REGISTRY_TIMEOUT_MS_CONFIG, 1_000L,
                AxConfig.OUTPUT_FORMAT_CONFIG, AxConfig.OUTPUT_FORMAT_REGISTRY));
        topics = config.topics();
        scheduler = AxScheduler.start(config).awaitRunning(Duration.ofMinutes(2));
        worker = AxWorker.builder().bootstrapServers(broker.bootstrapServers()).topics(topics).groupId("reg.workers")
                .schemaRegistry(RegistrySettings.of(registry.ccompatUrl()))
                .handler("noop", context -> Result.success())
                .handler("doomed", context -> Result.fatal("no such mailbox")).build();
        worker.start();
        state = new TopicRecorder(broker.bootstrapServers(), topics.state(), CLOCK);
    }

    @BeforeEach
    void requireRegistry() {
        Assumptions.assumeTrue(unavailable == null, unavailable);
    }

    @AfterAll
    static void stop() throws Exception {
        for (AutoCloseable closeable : new AutoCloseable[] {state, worker, scheduler, broker, registry}) {
            if (closeable != null) {
                closeable.close();
            }
        }
    }

    @Test
    @Order(1)
    void shouldScheduleAndRunARequestProducedWithApicuriosSerdeInTheConfluentFormat() throws Exception {
        try (KafkaProducer<String, Object> producer = new KafkaProducer<>(apicurioSerdeProducer())) {
            producer.send(new ProducerRecord<>(topics.requests(), "serde-1", request("noop"))).get();
        }

        awaitState("serde-1", "SUCCESS");
        assertThat(dispatchValues("serde-1")).first().satisfies(value ->
                assertThat(value[0]).as("dispatch in the registry wire format").isEqualTo(RegistryWire.MAGIC));
    }

    @Test
    @Order(2)
    void shouldScheduleRequestsWrittenWithEvolvedWriterSchemas() throws Exception {
        SchemaRegistryClient client = new SchemaRegistryClient(RegistrySettings.of(registry.ccompatUrl()));
        Schema newer = evolve(ScheduleRequest.getClassSchema(), "addedLater", null);
        Schema older = evolve(ScheduleRequest.getClassSchema(), null, "owner");
        int newerId = client.register("evolved-newer-value", newer);
        int olderId = client.register("evolved-older-value", older);

        produce("evolved-added", RegistryWire.frame(newerId, write(newer, request("noop"))));
        produce("evolved-removed", RegistryWire.frame(olderId, write(older, request("noop"))));

        awaitState("evolved-added", "SUCCESS");
        awaitState("evolved-removed", "SUCCESS");
    }

    @Test
    @Order(3)
    void shouldRejectAnUnknownSchemaIdAndGoOnWithTheNextRecord() {
        produce("unknown-id", RegistryWire.frame(999_999, new byte[] {2}));
        produce("after-unknown", WireCodec.encode(request("noop")));

        JsonNode rejected = awaitState("unknown-id", "REJECTED");
        assertThat(rejected.get("reason").asText()).isEqualTo("schema id 999999 is not in the schema registry");
        awaitState("after-unknown", "SUCCESS");
    }

    @Test
    @Order(4)
    void shouldWriteDispatchesAndDeadLettersThatApicuriosDeserializerReads() throws Exception {
        try (KafkaProducer<String, Object> producer = new KafkaProducer<>(apicurioSerdeProducer())) {
            producer.send(new ProducerRecord<>(topics.requests(), "doomed-1", request("doomed"))).get();
        }
        awaitState("doomed-1", "FAILED");

        assertThat(readWithApicurio(topics.dispatch(), List.of("serde-1", "evolved-added", "evolved-removed", "after-unknown")))
                .allSatisfy((taskId, dispatch) -> {
                    assertThat(dispatch.getSchema().getFullName()).isEqualTo("io.ax.schema.DispatchTask");
                    assertThat(dispatch.get("taskId").toString()).isEqualTo(taskId);
                });
        GenericRecord letter = readWithApicurio(topics.deadLetter(), List.of("doomed-1")).get("doomed-1");
        assertThat(letter.getSchema().getFullName()).isEqualTo("io.ax.schema.DeadLetter");
        assertThat(letter.get("reason").toString()).contains("no such mailbox");
    }

    /** The records of {@code taskIds} on {@code topic}, read with Apicurio's deserializer (Confluent format, content ids). */
    private static Map<String, GenericRecord> readWithApicurio(String topic, List<String> taskIds) {
        Map<String, Object> props = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "reg-reader-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                "apicurio.registry.url", registry.v3Url(),
                "apicurio.registry.headers.enabled", false,
                "apicurio.registry.use-id", "contentId");
        AvroKafkaDeserializer<Object> deserializer = new AvroKafkaDeserializer<>();
        deserializer.configure(props, false); // Kafka configures deserializers it creates, not instances handed to it
        Map<String, GenericRecord> read = new java.util.HashMap<>();
        try (KafkaConsumer<String, Object> consumer = new KafkaConsumer<>(props, new StringDeserializer(), deserializer)) {
            consumer.subscribe(List.of(topic));
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                for (ConsumerRecord<String, Object> record : consumer.poll(Duration.ofMillis(200))) {
                    if (taskIds.contains(record.key())) {
                        read.put(record.key(), (GenericRecord) record.value());
                    }
                }
                return read.keySet().containsAll(taskIds);
            });
        }
        return read;
    }

    /**
     * The bytes the client wrote, read back from the topic and taken apart by hand (not with ax's codec): byte 0, a
     * 4-byte big-endian id that the registry serves and lists under {@code <requests topic>-value}, and an Avro body
     * that, read with that schema, is the request the client was asked to send, every byte of it.
     */
    @Test
    @Order(5)
    void shouldProduceInTheRegistryFormatFromTheClient() throws Exception {
        try (AxClient client = AxClient.builder().bootstrapServers(broker.bootstrapServers()).topics(topics)
                .schemaRegistry(RegistrySettings.of(registry.ccompatUrl())).build()) {
            client.schedule("client-1").jobType("noop").after(Duration.ZERO).submit().join();
        }
        awaitState("client-1", "SUCCESS");

        byte[] value = recordValues(topics.requests(), "client-1").get(0);
        assertThat(value.length).as("magic byte, schema id, body").isGreaterThan(5);
        assertThat(value[0]).as("magic byte").isEqualTo((byte) 0);
        int schemaId = ByteBuffer.wrap(value, 1, 4).getInt();
        JsonNode served = registryGet("/schemas/ids/" + schemaId);
        Schema writer = new Schema.Parser().parse(served.get("schema").asText());
        assertThat(writer.getFullName()).isEqualTo("io.ax.schema.ScheduleRequest");
        assertThat(idsUnder(topics.requests() + "-value")).as("registered under the requests topic's subject").contains(schemaId);

        BinaryDecoder body = DecoderFactory.get().binaryDecoder(value, 5, value.length - 5, null);
        ScheduleRequest decoded = new SpecificDatumReader<ScheduleRequest>(writer, ScheduleRequest.getClassSchema()).read(null, body);
        assertThat(body.isEnd()).as("the body is exactly one request").isTrue();
        assertThat(decoded).isEqualTo(ScheduleRequest.newBuilder().setJobType("noop").setTrigger(new DelayTrigger(0L)).build());
    }

    /** A GET on the registry's Confluent-compatible API, with the JDK's own client (not ax's). */
    private static JsonNode registryGet(String path) throws IOException, InterruptedException {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(registry.ccompatUrl() + path))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("GET %s: %s", path, response.body()).isEqualTo(200);
        return MAPPER.readTree(response.body());
    }

    /** The schema ids of every version registered under {@code subject}. */
    private static List<Integer> idsUnder(String subject) throws IOException, InterruptedException {
        List<Integer> ids = new java.util.ArrayList<>();
        for (JsonNode version : registryGet("/subjects/" + subject + "/versions")) {
            ids.add(registryGet("/subjects/" + subject + "/versions/" + version.asInt()).get("id").asInt());
        }
        return ids;
    }

    @Test
    @Order(6)
    void shouldRejectWhileTheRegistryIsStoppedAndGoOnWithTheNextRecord() throws Exception {
        SchemaRegistryClient client = new SchemaRegistryClient(RegistrySettings.of(registry.ccompatUrl()));
        Schema fresh = evolve(ScheduleRequest.getClassSchema(), "notYetFetched", null);
        int freshId = client.register("fresh-value", fresh);
        registry.close();

        produce("registry-down", RegistryWire.frame(freshId, write(fresh, request("noop"))));
        produce("after-outage", WireCodec.encode(request("noop")));

        JsonNode rejected = awaitState("registry-down", "REJECTED");
        assertThat(rejected.get("reason").asText()).startsWith("schema registry unavailable").contains("schema id " + freshId);
        // Single-object input flows, and so do dispatches: the scheduler and the worker cached the dispatch schema.
        awaitState("after-outage", "SUCCESS");
    }

    private static Map<String, Object> apicurioSerdeProducer() {
        return Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, AvroKafkaSerializer.class.getName(),
                "apicurio.registry.url", registry.v3Url(),
                "apicurio.registry.auto-register", true,
                "apicurio.registry.headers.enabled", false,
                "apicurio.registry.use-id", "contentId");
    }

    private static ScheduleRequest request(String jobType) {
        return ScheduleRequest.newBuilder().setJobType(jobType).setTrigger(new DelayTrigger(0L)).setOwner("it").build();
    }

    private static void produce(String taskId, byte[] value) {
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()), new StringSerializer(), new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(topics.requests(), taskId, value)).get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static JsonNode awaitState(String taskId, String to) {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .until(() -> stateOf(taskId, to).isPresent());
        return stateOf(taskId, to).orElseThrow();
    }

    private static Optional<JsonNode> stateOf(String taskId, String to) {
        return state.seen().stream().filter(s -> taskId.equals(s.record().key())).map(s -> json(s.record().value()))
                .filter(e -> to.equals(e.path("to").asText())).findFirst();
    }

    private static List<byte[]> dispatchValues(String taskId) throws InterruptedException {
        return recordValues(topics.dispatch(), taskId);
    }

    /** The values of {@code taskId}'s records on {@code topic}, as they are on the topic. */
    private static List<byte[]> recordValues(String topic, String taskId) throws InterruptedException {
        try (TopicRecorder recorder = new TopicRecorder(broker.bootstrapServers(), topic, CLOCK)) {
            await().atMost(Duration.ofSeconds(30)).until(() -> recorder.seen().stream().anyMatch(s -> taskId.equals(s.record().key())));
            return recorder.seen().stream().filter(s -> taskId.equals(s.record().key())).map(s -> s.record().value()).toList();
        }
    }

    private static JsonNode json(byte[] value) {
        try {
            return MAPPER.readTree(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The schema with a string field {@code added} (default "later") appended and/or the field {@code removed} left out. */
    private static Schema evolve(Schema schema, String added, String removed) throws IOException {
        ObjectNode json = (ObjectNode) MAPPER.readTree(schema.toString());
        ArrayNode kept = MAPPER.createArrayNode();
        json.withArray("fields").forEach(field -> {
            if (!field.get("name").asText().equals(removed)) {
                kept.add(field);
            }
        });
        if (added != null) {
            kept.add(MAPPER.createObjectNode().put("name", added).put("type", "string").put("default", "later"));
        }
        json.set("fields", kept);
        return new Schema.Parser().parse(json.toString());
    }

    /** The Avro body of {@code record} as a producer on the {@code writer} schema version writes it. */
    private static byte[] write(Schema writer, ScheduleRequest record) throws IOException {
        GenericRecord generic = new GenericDatumReader<GenericRecord>(record.getSchema(), writer, GenericData.get())
                .read(null, DecoderFactory.get().binaryDecoder(RegistryCodec.avroBody(record), null));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(writer).write(generic, encoder);
        encoder.flush();
        return out.toByteArray();
    }
}
