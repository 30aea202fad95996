package io.ax.app.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Follows {@code ax.state} as an operator would with kcat, and prints each event as one readable line,
 * times relative to the demo's start. Remembers each task's latest state for the summary.
 */
final class StateWatcher implements Runnable, AutoCloseable {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final KafkaConsumer<String, String> consumer;
    private final String topic;
    private final PrintStream out;
    private final long startMs;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Map<String, String> latest = new ConcurrentHashMap<>();
    private final Map<String, List<String>> transitions = new ConcurrentHashMap<>();
    private final Thread thread = new Thread(this, "ax-demo-state-watcher");

    StateWatcher(String bootstrap, String topic, PrintStream out, long startMs) {
        this.consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, "ax-demo-watcher",
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
                new StringDeserializer(), new StringDeserializer());
        this.topic = topic;
        this.out = out;
        this.startMs = startMs;
    }

    void start() {
        consumer.subscribe(List.of(topic));
        thread.start();
    }

    /** taskId → latest "to" seen. */
    Map<String, String> latestStates() {
        return Map.copyOf(latest);
    }

    /** Every "to" seen for {@code taskId}, oldest first. */
    List<String> transitions(String taskId) {
        return List.copyOf(transitions.getOrDefault(taskId, List.of()));
    }

    @Override
    public void run() {
        try {
            while (running.get()) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(100))) {
                    print(record.value());
                }
            }
        } catch (org.apache.kafka.common.errors.WakeupException e) {
            // closing
        } finally {
            consumer.close(Duration.ofSeconds(5));
        }
    }

    private void print(String json) {
        JsonNode e;
        try {
            e = MAPPER.readTree(json);
        } catch (IOException ex) {
            out.println("  (unreadable state event) " + json);
            return;
        }
        String taskId = e.path("taskId").asText("-");
        String to = e.path("to").asText();
        latest.put(taskId, to);
        transitions.computeIfAbsent(taskId, id -> new CopyOnWriteArrayList<>()).add(to);
        String from = e.has("from") ? e.get("from").asText() + " → " : "→ ";
        StringBuilder line = new StringBuilder(String.format("  %s  %-16s %s%-13s", relative(e.path("at").asText()), taskId, from, to));
        if (e.has("attempt") && !"PENDING".equals(to)) {
            line.append(" attempt ").append(e.get("attempt").asInt());
        }
        if ("PENDING".equals(to) && e.has("dueAt")) {
            line.append(" due ").append(relative(e.get("dueAt").asText()).strip());
        }
        if (e.has("reason")) {
            line.append("  ").append(e.get("reason").asText());
        }
        if (e.has("source")) {
            JsonNode s = e.get("source");
            line.append(" [").append(s.path("topic").asText()).append('-').append(s.path("partition").asInt())
                    .append('@').append(s.path("offset").asLong()).append(']');
        }
        out.println(line);
    }

    private String relative(String iso) {
        long ms = Instant.parse(iso).toEpochMilli() - startMs;
        return String.format("%+7.3fs", ms / 1000.0);
    }

    @Override
    public void close() throws InterruptedException {
        running.set(false);
        consumer.wakeup();
        thread.join(10_000);
    }
}
